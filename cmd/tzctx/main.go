// Command tzctx ingests versions of a documentation site and serves them,
// with the served-context contracts of Turn Zero Cloud, to HTTP clients and
// AI agents. It reads flags and calls the packages: package server holds
// the server, package ingest the ingest, package store the versions.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRoot(os.Stdout, os.Stderr).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tzctx:", err)
		os.Exit(1)
	}
}

// globals are the flags every subcommand shares.
type globals struct {
	data string
}

func (g *globals) dataDir() string {
	if g.data != "" {
		return g.data
	}
	if d := os.Getenv("TZCTX_DATA"); d != "" {
		return d
	}
	return "./tzctx-data"
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "tzctx",
		Short:         "Serve documentation site versions to agents and HTTP clients",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.data, "data", "", "data directory (default $TZCTX_DATA or ./tzctx-data)")
	root.AddCommand(newIngestCmd(g), newVersionsCmd(g), newActivateCmd(g), newDeleteCmd(g), newVerifyCmd(g), newExportCmd(g), newImportCmd(g), newRecordsCmd(g), newServeCmd(g), newCheckCmd(), newGenCmd(), newSkillsCmd(), newMCPCmd(g), newTokenCmd(), newPublishCmd(g), newDiffCmd(g))
	return root
}
