package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/server"
)

func newServeCmd(g *globals) *cobra.Command {
	var cfgPath, addr, origin, followURL string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the active version over HTTP; ingests the sample site into an empty data directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := server.LoadConfig(cfgPath)
			if err != nil {
				return err
			}
			if addr != "" {
				cfg.Addr = addr
			}
			if origin != "" {
				cfg.Origin = origin
			}
			if followURL != "" {
				if _, err := objstore.ParseLocation(followURL); err != nil {
					return fmt.Errorf("--follow: %w", err)
				}
				cfg.Follow.URL = followURL
			}
			if g.data == "" && os.Getenv("TZCTX_DATA") == "" && cfg.Data != "" {
				g.data = cfg.Data
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if log.Writer() == os.Stderr {
				// The log's lines (slog's default handler writes through
				// package log) leave in batches, not with a write each;
				// what is pending is written before serve returns.
				lw := server.NewLineWriter(os.Stderr)
				log.SetOutput(lw)
				defer func() {
					_ = lw.Close() // later lines are written at once
					log.SetOutput(os.Stderr)
				}()
			}
			return serve(ctx, g.dataDir(), cfg, nil)
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON)")
	cmd.Flags().StringVar(&addr, "addr", "", "listen address (default 127.0.0.1:8080)")
	cmd.Flags().StringVar(&origin, "origin", "", "public origin stripped from page values (default https://turnzero.ai)")
	cmd.Flags().StringVar(&followURL, "follow", "", "follow the versions published at s3://BUCKET/PREFIX (tzctx publish): poll its pointer, take and serve each new one")
	return cmd
}

// serve runs the server cfg configures on cfg.Addr until ctx ends.
// ready, if set, receives the bound address once the server listens.
func serve(ctx context.Context, dataDir string, cfg server.Config, ready chan<- string) error {
	// SIGHUP asks for an activation check; it is caught from the start, so
	// it never kills a server that is still starting or stopping.
	recheck, stop := rechecks(ctx)
	defer stop()
	srv, err := server.New(ctx, cfg, dataDir, slog.Default())
	if err != nil {
		return err
	}
	defer srv.Close()
	go func() {
		for range recheck {
			srv.Recheck()
		}
	}()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}
	return srv.Serve(ctx, ln)
}

// rechecks catches SIGHUP from now until stop, and returns a channel that
// receives at each one until ctx ends or stop is called, when it closes.
func rechecks(ctx context.Context) (<-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(ctx)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out, func() { signal.Stop(hup); cancel() }
}
