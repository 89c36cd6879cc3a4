package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newVersionsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "versions",
		Short: "List stored versions; the active one is marked *, and each is verified",
		Long: `Versions lists the stored versions, oldest first, and marks with * the one the
pointer names. Every version is verified against the checksums recorded when it
was built, as a server does before it serves one: STATE is ok, or damaged, with
the fault below the table. BYTES is the size on disk, in IEC units (KiB,
MiB, GiB: powers of 1024). A server never serves a damaged version: it goes on
serving the version it had, or, just started, serves none.`,
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
