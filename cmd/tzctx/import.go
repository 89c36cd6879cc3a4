package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/server"
	"github.com/turnzerocloud/tzctx/store"
)

func newImportCmd(g *globals) *cobra.Command {
	var activate bool
	var cfgPath string
	cmd := &cobra.Command{
		Use:   "import FILE [--activate] [--config FILE]",
		Short: "Store the version an archive from 'tzctx export' holds",
		Long: `Import reads an archive that 'tzctx export' wrote (FILE "-" reads stdin) and
stores the version it holds under its own name. Every file is checked against
the archive's manifest as it is read, and the whole version is verified and
opened, as a server does before it serves it, before it becomes visible; a
damaged, truncated or foreign archive is refused and leaves nothing behind.
A version of the same name and content stored already makes the import a
no-op; one of the same name and other content is refused. --activate then
makes the version the served one.

A version whose files total over the configuration's max_version_bytes
(default 4 GiB) is refused from the archive's manifest, before anything is
written; --config names the file that raises it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			cfg, err := server.LoadConfig(cfgPath)
			if err != nil {
				return err
			}
			var r io.Reader = cmd.InOrStdin()
			if file != "-" {
				f, err := os.Open(file)
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				defer f.Close()
				r = f
			}
			st, err := store.Open(g.dataDir())
			if err != nil {
				return diskFault(g.dataDir(), "nothing was stored", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := st.Import(ctx, r, store.ImportOptions{MaxVersionBytes: cfg.MaxVersionSize})
			if file == "-" {
				file = "stdin"
			}
			if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return fmt.Errorf("import of %s interrupted; nothing was imported", file)
			}
			if err != nil {
				return diskFault(g.dataDir(), "nothing was stored", fmt.Errorf("import %s: %w", file, err))
			}
			msg := "imported " + res.Name
			if res.Present {
				msg = fmt.Sprintf("version %s is present already; nothing imported", res.Name)
			}
			if activate {
				if err := st.Activate(ctx, res.Name); err != nil {
					return diskFault(g.dataDir(), "the version is stored, not activated", fmt.Errorf("%s, but: %w", msg, err))
				}
				msg += "; activated " + res.Name
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	cmd.Flags().BoolVar(&activate, "activate", false, "make the imported version the served one")
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON), for its \"max_version_bytes\" member")
	return cmd
}
