package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify [NAME]",
		Short: "Check stored versions against the checksums recorded when they were built",
		Long: `Verify checks the named version, or every stored version, as a server does
before it serves one: every file is listed in meta.json with its size and
SHA-256, and the version's files open and read through. It prints one line per
version and exits non-zero where any is damaged.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			var names []string
			if len(args) == 1 {
				names = args
			} else {
				ms, err := st.List()
				if err != nil {
					return err
				}
				for _, m := range ms {
					names = append(names, m.Name)
				}
				// Folders whose meta.json does not read are damaged
				// versions too; List cannot describe them.
				unreadable, err := st.Unreadable()
				if err != nil {
					return err
				}
				names = append(names, unreadable...)
				if len(names) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no version is stored")
					return nil
				}
			}
			bad := 0
			for _, name := range names {
				start := time.Now()
				err := st.Verify(cmd.Context(), name)
				switch {
				case err == nil:
					fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%d bytes, %.2f s)\n", name, st.Size(name), time.Since(start).Seconds())
				case errors.Is(err, store.ErrDamaged):
					bad++
					fmt.Fprintf(cmd.OutOrStdout(), "%s: damaged: %v\n", name, err)
				default:
					return err
				}
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d versions are damaged", bad, len(names))
			}
			return nil
		},
	}
}
