package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newVersionsCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List stored versions; the active one is marked *, and each is verified",
		Long: `Versions lists the stored versions, oldest first, and marks with * the one the
pointer names. Every version is verified against the checksums recorded when it
was built, as a server does before it serves one: STATE is ok, or damaged, with
the fault below the table. BYTES is the size on disk, in IEC units (KiB,
MiB, GiB: powers of 1024). A server never serves a damaged version: it goes on
serving the version it had, or, just started, serves none.

--json lists the same as JSON, with what was ingested of each tree: the
folder it was read from (kept on this machine only, never exported), its
format, pages and when it was read, and the version it was carried from
where it was built on one (tzctx ingest --base).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			entries, faults, err := st.Inventory(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeVersionsJSON(cmd.OutOrStdout(), st, entries, faults)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ACTIVE\tNAME\tCREATED\tTREES\tPAGES\tBYTES\tSTATE")
			for _, e := range entries {
				mark, created, trees, pages, state := "", "-", "-", "-", "ok"
				if e.Active {
					mark = "*"
				}
				if !e.Created.IsZero() {
					var names []string
					for _, t := range e.Trees {
						names = append(names, t.Name)
					}
					created, trees, pages = e.Created.Format(time.RFC3339), strings.Join(names, ","), strconv.Itoa(e.Pages)
				}
				if e.Damaged {
					state = "damaged"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, e.Name, created, trees, pages, humanBytes(e.Bytes), state)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if len(faults) > 0 {
				fmt.Fprintln(cmd.OutOrStdout())
				for _, f := range faults {
					fmt.Fprintln(cmd.OutOrStdout(), f)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "list the versions as JSON, with what was ingested of each tree")
	return cmd
}

// versionJSON is one version as tzctx versions --json lists it.
type versionJSON struct {
	Name    string `json:"name"`
	Active  bool   `json:"active"`
	State   string `json:"state"`
	Created string `json:"created,omitempty"`
	// Base is the version this one was built on, "" for none.
	Base  string     `json:"base,omitempty"`
	Pages int        `json:"pages"`
	Bytes int64      `json:"bytes"`
	Trees []treeJSON `json:"trees"`
}

// treeJSON is one tree of a version as tzctx versions --json lists it.
type treeJSON struct {
	Name     string `json:"name"`
	Pages    int    `json:"pages"`
	Bytes    int64  `json:"bytes"`
	Headings int    `json:"headings"`
	Skipped  int    `json:"skipped"`
	Format   string `json:"format,omitempty"`
	// Folder is the folder the tree was read from, where this machine
	// recorded it.
	Folder string `json:"folder,omitempty"`
	Read   string `json:"read,omitempty"`
	// Base is the version the tree was carried from, its folder not read.
	Base string `json:"base,omitempty"`
}

// writeVersionsJSON writes the inventory as JSON: the versions and the
// faults found.
func writeVersionsJSON(w io.Writer, st *store.Store, entries []store.Entry, faults []string) error {
	out := struct {
		Versions []versionJSON `json:"versions"`
		Faults   []string      `json:"faults"`
	}{Versions: []versionJSON{}, Faults: faults}
	if out.Faults == nil {
		out.Faults = []string{}
	}
	for _, e := range entries {
		v := versionJSON{Name: e.Name, Active: e.Active, State: "ok", Base: e.Base, Pages: e.Pages, Bytes: e.Bytes, Trees: []treeJSON{}}
		if e.Damaged {
			v.State = "damaged"
		}
		if !e.Created.IsZero() {
			v.Created = e.Created.Format(time.RFC3339)
		}
		folders, err := st.Sources(e.Name)
		if err != nil {
			// A record that does not read is no fault of the version.
			folders = nil
		}
		for _, t := range e.Trees {
			tj := treeJSON{Name: t.Name, Pages: t.Pages, Bytes: t.Bytes, Headings: t.Headings, Skipped: t.Skipped, Format: t.Format, Folder: folders[t.Name], Base: t.Base}
			if !t.Read.IsZero() {
				tj.Read = t.Read.Format(time.RFC3339)
			}
			v.Trees = append(v.Trees, tj)
		}
		out.Versions = append(out.Versions, v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// humanBytes writes a size for a person: bytes below 1 KiB, else one
// decimal of the largest IEC unit (KiB, MiB, GiB, TiB) it reaches, as in
// 12.3 MiB.
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
