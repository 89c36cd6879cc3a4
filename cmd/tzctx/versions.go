package main

import (
	"errors"
	"fmt"
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
			ms, err := st.List()
			if err != nil {
				return err
			}
			active, err := st.ActiveName()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ACTIVE\tNAME\tCREATED\tTREES\tPAGES\tBYTES\tSTATE")
			var faults []string
			listed := false
			for _, m := range ms {
				mark := ""
				if m.Name == active {
					mark, listed = "*", true
				}
				var trees []string
				for _, t := range m.Trees {
					trees = append(trees, t.Name)
				}
				state := "ok"
				if err := st.Verify(cmd.Context(), m.Name); err != nil {
					if !errors.Is(err, store.ErrDamaged) {
						return err
					}
					state = "damaged"
					faults = append(faults, err.Error())
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", mark, m.Name, m.Created.Format(time.RFC3339), strings.Join(trees, ","), m.Pages, humanBytes(st.Size(m.Name)), state)
			}
			// Folders whose meta.json does not read: damaged, and listed
			// so, since nothing else describes them.
			unreadable, err := st.Unreadable()
			if err != nil {
				return err
			}
			for _, name := range unreadable {
				mark := ""
				if name == active {
					mark, listed = "*", true
				}
				fmt.Fprintf(w, "%s\t%s\t-\t-\t-\t%s\tdamaged\n", mark, name, humanBytes(st.Size(name)))
				if _, err := st.Lookup(name); err != nil {
					faults = append(faults, err.Error())
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if active != "" && !listed {
				faults = append(faults, fmt.Sprintf("the pointer names version %q, which is not stored; no server serves it: run 'tzctx activate NAME'", active))
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
