package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newDeleteCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a stored version; the active one is refused",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			if err := st.Delete(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", args[0])
			return nil
		},
	}
}
