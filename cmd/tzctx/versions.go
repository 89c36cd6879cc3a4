package main

import (
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
		Short: "List stored versions; the active one is marked *",
		Args:  cobra.NoArgs,
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
			fmt.Fprintln(w, "ACTIVE\tNAME\tCREATED\tTREES\tPAGES\tBYTES")
			for _, m := range ms {
				mark := ""
				if m.Name == active {
					mark = "*"
				}
				var trees []string
				for _, t := range m.Trees {
					trees = append(trees, t.Name)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\n", mark, m.Name, m.Created.Format(time.RFC3339), strings.Join(trees, ","), m.Pages, st.Size(m.Name))
			}
			return w.Flush()
		},
	}
}
