package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/internal/catalog"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/internal/identity"
	"github.com/turnzerocloud/tzctx/internal/metering"
	"github.com/turnzerocloud/tzctx/internal/plane"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/store"
)

// frontEnds are what every front end calls: the dispatcher of this build
// over the store, the credentials it resolves, the MCP front end, and the
// meter of its calls (nil where metrics are off).
type frontEnds struct {
	dispatcher *dispatch.Dispatcher
	resolver   dispatch.Resolver
	mcp        *mcp.Server
	meter      *metering.Meter
	// close closes the call records' sinks; it runs once the front ends
	// have stopped.
	close func() error
}

// newFrontEnds builds the reader, the dispatcher and the MCP front end
// over st, as cfg configures them, recording calls to the sinks
// openRecords opens, to the meter and to log.
func newFrontEnds(cfg config, st *store.Store, dataDir string, log *slog.Logger) (fe *frontEnds, err error) {
	meter := newMeter(cfg, st)
	limits, err := plane.Limits()
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load()
	if err != nil {
		return nil, fmt.Errorf("the embedded contract set: %w", err)
	}
	reader := query.NewReader(query.Config{Limits: limits, Origin: cfg.Origin, Access: cfg.Trees, Holder: query.AccessHolder(cfg.Trees), Catalog: cat}, query.FromStore(st))
	creds, err := identity.New(context.Background(), cfg.Credentials, cfg.OIDC)
	if err != nil {
		return nil, err
	}
	recs, closeRecords, err := openRecords(cfg, dataDir, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = closeRecords()
		}
	}()
	d, err := plane.New(reader, creds, append(recs, meter, dispatch.LogRecorder{Logger: log}))
	if err != nil {
		return nil, err
	}
	// A stdio message is held to the bound of an HTTP body, and a
	// resource URI to what an ID within id_max_length can be escaped to.
	m, err := mcp.New(d, mcp.Options{Version: buildVersion(), Catalog: cat, TextMaxLimit: limits.TextMaxLimit,
		IDMaxLength: limits.IDMaxLength, LineLimit: cfg.BodyLimitBytes, Logger: log})
	if err != nil {
		return nil, err
	}
	// Every version is warmed before it is served, the one served now
	// included, so no request pays for loading it.
	if err := st.SetWarm(context.Background(), query.StoreWarm(reader.Warm)); err != nil {
		log.Error("warming the served version", "error", err.Error())
	}
	return &frontEnds{dispatcher: d, resolver: creds, mcp: m, meter: meter, close: closeRecords}, nil
}

// closeFrontEnds closes what newFrontEnds opened, logging a fault; serve
// and serveStdio defer it once their front ends are built, so it runs
// after the front ends stop.
func closeFrontEnds(fe *frontEnds, log *slog.Logger) {
	if err := fe.close(); err != nil {
		log.Error("records", "error", err.Error())
	}
}

// newMeter returns the meter of the calls, which reads the served version
// from st at each scrape, or nil (which records nothing) where cfg turns
// metrics off.
func newMeter(cfg config, st *store.Store) *metering.Meter {
	if !cfg.metricsOn() {
		return nil
	}
	return metering.New(metering.Options{Version: func() string { return st.Health().Serving }})
}

// buildVersion is the module version of this build, "(devel)" for a
// build from a work tree.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

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
			cfg, err := loadConfig(cfgPath)
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
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			return serveStdio(ctx, g.dataDir(), cfg, token, cmd.InOrStdin(), cmd.OutOrStdout(), log)
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON), as tzctx serve reads it")
	cmd.Flags().StringVar(&token, "token", "", "bearer credential of the caller (default $TZCTX_TOKEN; none reads anonymously)")
	return cmd
}

// serveStdio serves one MCP client on in and out until in ends or ctx is
// done, watching the active pointer as serve does.
func serveStdio(ctx context.Context, dataDir string, cfg config, token string, in io.Reader, out io.Writer, log *slog.Logger) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	st, err := store.Open(dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Refresh(ctx); err != nil && ctx.Err() == nil {
		log.Error("activation", "error", err.Error())
	}
	if h := st.Health(); h.Serving == "" && h.Fault == nil {
		log.Warn("no version is active in " + dataDir + "; reads answer context_unavailable until one is activated")
	}
	// A stdio process serves no /metrics, so it counts nothing either.
	off := false
	cfg.Metrics = &off
	fe, err := newFrontEnds(cfg, st, dataDir, log)
	if err != nil {
		return err
	}
	defer closeFrontEnds(fe, log)
	id, err := fe.resolver.Resolve(ctx, token)
	if err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	defer startWatch(ctx, st, time.Duration(cfg.WatchInterval), hup, log, fe.mcp.ListsChanged)()
	log.Info("serving MCP over stdio", "data", dataDir, "credential", id.Credential, "account", id.Account)
	return fe.mcp.ServeStdio(ctx, in, out, token, id)
}

// accessLogged logs one "http" line per request to h, as the HTTP API
// does: method, path, status and duration, never the query string.
func accessLogged(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		log.Info("http", "method", r.Method, "path", dispatch.LoggedPath(r.URL.Path), "status", sw.status, "ms", time.Since(start).Milliseconds())
	})
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines) through the wrapper.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets streamed answers (server-sent events) through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
