package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/turnzerocloud/tzctx/store"
)

func newExportCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "export VERSION FILE",
		Short: "Write a stored version as one archive file, for 'tzctx import' on another machine",
		Long: `Export verifies the named version as a server does before it serves it, and
writes it to FILE as one gzip-compressed tar archive: a manifest listing every
file with its size and SHA-256, then the version's files. A damaged version is
refused. FILE "-" writes the archive to stdout; otherwise it is written to
FILE.tmp and renamed to FILE once complete, so a failed export leaves no FILE.
'tzctx import FILE' stores the version in another data directory.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, file := args[0], args[1]
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			if _, err := st.Lookup(name); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if file == "-" {
				out := cmd.OutOrStdout()
				if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					return errors.New("stdout is a terminal; give a FILE, or redirect stdout to one")
				}
				n, err := st.ExportTo(ctx, name, out)
				if err != nil {
					return err
				}
				// stdout is the archive: the report goes to stderr.
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to stdout (%d bytes)\n", name, n)
				return nil
			}
			n, err := st.ExportFile(ctx, name, file)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %s to %s (%d bytes)\n", name, file, n)
			return nil
		},
	}
}
