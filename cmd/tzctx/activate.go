package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newActivateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "activate NAME",
		Short: "Make a stored version the served one; running servers switch without restart",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			if err := st.Activate(cmd.Context(), args[0]); err != nil {
				return diskFault(g.dataDir(), "the active version is as it was", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "activated %s\n", args[0])
			return nil
		},
	}
}
