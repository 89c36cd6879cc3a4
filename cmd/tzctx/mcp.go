package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/server"
)

func newMCPCmd(g *globals) *cobra.Command {
	var cfgPath, token string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the active version to one MCP client over stdio (logs go to stderr)",
		Long: `Serve the active version to one MCP client over stdin and stdout, as the
caller whose bearer credential is --token (or $TZCTX_TOKEN); without one the
caller is anonymous. Stdout carries the protocol alone; logs go to stderr.
Activations are picked up without restart, as tzctx serve picks them up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := server.LoadConfig(cfgPath)
			if err != nil {
				return err
			}
			if g.data == "" && os.Getenv("TZCTX_DATA") == "" && cfg.Data != "" {
				g.data = cfg.Data
			}
			if token == "" {
				token = os.Getenv("TZCTX_TOKEN")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// A client may close the process's stderr (mcp-go's does as
			// a session ends); a log line written then must fail, not
			// kill the process with SIGPIPE before it closes its records.
			signal.Ignore(syscall.SIGPIPE)
			recheck, stopHUP := rechecks(ctx)
			defer stopHUP()
			return server.ServeStdio(ctx, cfg, g.dataDir(), server.Stdio{
				Token: token, In: cmd.InOrStdin(), Out: cmd.OutOrStdout(),
				Log: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)), Recheck: recheck,
			})
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON), as tzctx serve reads it")
	cmd.Flags().StringVar(&token, "token", "", "bearer credential of the caller (default $TZCTX_TOKEN; none reads anonymously)")
	return cmd
}
