// Package server is tzctx's server: its configuration file and loader,
// and the life of one server over a data directory (New, Serve, Close).
// It opens the store, follows a published location or bootstraps the
// sample site, builds the dispatcher and the front ends over it (the
// HTTP API, MCP over HTTP and stdio, the console), guards them (the Host
// check, calls in flight and rate limits), serves the probes and
// /metrics, records calls, and watches the active pointer. Command tzctx
// reads flags and calls it.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/console"
	"github.com/turnzerocloud/tzctx/internal/ops/follow"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/store"
)

// Server is one server over a data directory: New builds it, Serve
// serves it on a listener until its context ends, and Close releases
// what New opened once Serve has returned.
type Server struct {
	cfg      Config
	dataDir  string
	log      *slog.Logger
	st       *store.Store
	follower *follow.Follower
	fe       *frontEnds
	mcp      *mcp.HTTPHandler
	handler  http.Handler
	// metrics serves /metrics on metrics_addr's listener, where set.
	metrics   *http.Server
	metricsLn net.Listener
	recheck   chan struct{}
}

// New opens the store in dataDir and builds the server cfg configures
// over it. A following server waits for its first version; any other
// ingests and activates the sample site where dataDir holds no version,
// under ctx. Where cfg sets metrics_addr, that listener is bound here.
func New(ctx context.Context, cfg Config, dataDir string, log *slog.Logger) (s *Server, err error) {
	st, err := store.Open(dataDir)
	if err != nil {
		return nil, err
	}
	s = &Server{cfg: cfg, dataDir: dataDir, log: log, st: st, recheck: make(chan struct{}, 1)}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	// A following server never loads the sample site: until the first
	// version arrives it answers reads with context_unavailable.
	if cfg.Follow.URL != "" {
		loc, err := objstore.ParseLocation(cfg.Follow.URL)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		c, err := objstore.New(cfg.S3.FromEnv(os.Getenv), loc)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		follow.CleanDownloads(dataDir)
		s.follower = follow.New(c, st, log, follow.Options{
			Interval: time.Duration(cfg.Follow.Interval), Keep: cfg.Follow.Keep,
			RequestTimeout: time.Duration(cfg.Follow.RequestTimeout), StallTimeout: time.Duration(cfg.Follow.StallTimeout),
			MaxVersionBytes: cfg.MaxVersionSize,
		})
	} else if err := ensureVersion(ctx, st, log); err != nil {
		return nil, err
	}
	// A damaged active version does not stop the server: it serves
	// nothing and says why on /healthz until another version is
	// activated.
	if _, err := st.Refresh(ctx); err != nil && ctx.Err() == nil {
		log.Error("activation", "error", err.Error())
	}
	if s.fe, err = newFrontEnds(cfg, st, dataDir, log, true, localAddr(cfg)); err != nil {
		return nil, err
	}
	if err := s.route(); err != nil {
		return nil, err
	}
	return s, nil
}

// route builds the handler of the main listener and, where metrics_addr
// is set, binds the metrics listener.
func (s *Server) route() error {
	cfg, st, fe, log := s.cfg, s.st, s.fe, s.log
	d := fe.dispatcher
	e := api.New(d, api.Options{
		BodyLimit:        fmt.Sprintf("%dB", cfg.BodyLimitBytes),
		AnswerCacheBytes: cfg.AnswerCacheBytes,
		Health:           st.Serving,
		Logger:           log,
		// The listener's one chain (api.Chain) wraps every route.
		Chained: true,
	})
	s.mcp = fe.mcp.HTTPHandler(mcp.HTTPOptions{
		Resolver:           fe.resolver,
		BodyLimit:          cfg.BodyLimitBytes,
		AllowedOrigins:     cfg.MCPAllowedOrigins,
		ResourceMetadata:   resourceMetadataURL(cfg.OIDC),
		StreamsPerCaller:   cfg.MCPStreams.PerCaller,
		StreamsTotal:       cfg.MCPStreams.Total,
		MaxListenBytes:     cfg.MCPStreams.MaxListenBytes,
		SessionsPerCaller:  cfg.MCPSessions.PerCaller,
		SessionsTotal:      cfg.MCPSessions.Total,
		MaxInitializeBytes: cfg.MCPSessions.MaxInitializeBytes,
		HostChecked:        true,
	})
	mux := http.NewServeMux()
	if cfg.OIDC != nil {
		mountResourceMetadata(mux, cfg.OIDC)
	}
	// Calls of /api/v1/actions and /mcp share one bound of calls in
	// flight and the callers' buckets; the probes and /metrics never wait
	// on them.
	guard := newGuard(cfg, d, fe.meter)
	mux.Handle("/mcp", guarded(guard, mcpSurface, s.mcp))
	mux.Handle("/readyz", readyz(st))
	if f := s.follower; f != nil {
		mux.Handle("/healthz", followHealthz(st, f))
		fe.meter.Follow(func() metering.FollowStatus {
			s := f.Status()
			return metering.FollowStatus{Up: s.Fault == nil && !s.LastSuccess.IsZero(), LastSuccess: s.LastSuccess, Failures: s.Failures, Taken: s.Taken}
		})
	}
	mux.Handle("/api/v1/actions/", guarded(guard, apiSurface, e))
	// The console's static files are served beside the API; with console
	// off, /console/, /favicon.ico and GET / are
	// the API's unknown paths. With it on, GET / redirects to it.
	if cfg.ConsoleOn() {
		ch := console.Handler()
		mux.Handle(console.Prefix, ch)
		mux.Handle(strings.TrimSuffix(console.Prefix, "/"), ch)
		mux.Handle(console.Favicon, ch)
		mux.Handle("GET "+console.Root+"{$}", ch)
	}
	mux.Handle("/", e)
	// Each /api/ answer leaves in one write (onewrite.go).
	// One chain, around every route: one access log line, one recovery
	// of a panic, one body bound per request (api.Chain); within it, one
	// Host check, before any route (hostguard.go), whose refusals the
	// chain logs as it logs every answer.
	s.handler = oneWrite(api.Chain(hostGuard(mux, cfg.AllowedHosts), log, cfg.BodyLimitBytes))
	// /metrics is served on the main listener, or on metrics_addr alone
	// where that is set; with metrics off it is an unknown path.
	if fe.meter != nil {
		metrics := fe.meter.Handler()
		if cfg.MetricsAddr == "" {
			// The chain's access log is outside the guard, so a refused
			// scrape is logged (method, path, status 403) as an answered
			// one is.
			mux.Handle("/metrics", metricsGuard(metrics, fe.resolver))
		} else {
			ln, err := net.Listen("tcp", cfg.MetricsAddr)
			if err != nil {
				return fmt.Errorf("metrics_addr: %w", err)
			}
			mmux := http.NewServeMux()
			mmux.Handle("/metrics", metrics)
			s.metrics, s.metricsLn = newHTTPServer(cfg, api.Chain(hostGuard(mmux, cfg.AllowedHosts), log, cfg.BodyLimitBytes)), ln
		}
	}
	return nil
}

// Recheck asks the server to look at the active pointer at once, as
// SIGHUP does, forgetting a refusal it remembers of a version.
func (s *Server) Recheck() {
	select {
	case s.recheck <- struct{}{}:
	default:
	}
}

// Serve serves on ln, and on the metrics listener where there is one,
// until ctx ends or a listener fails; it then shuts the listeners down,
// letting requests in flight end (10 s at most), and returns. It runs
// the watcher of the active pointer and the follower while it serves.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	cfg, log := s.cfg, s.log
	srv := newHTTPServer(cfg, s.handler)
	srv.ConnContext = oneWriteContext
	ln = oneWriteListener(ln)
	// The watcher stops before the store closes, and the follower before
	// the watcher.
	defer startWatch(ctx, s.st, time.Duration(cfg.WatchInterval), s.recheck, log, s.fe.mcp.ListsChanged)()
	if s.follower != nil {
		fctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); s.follower.Run(fctx) }()
		defer func() { cancel(); <-done }()
		log.Info("following", "location", cfg.Follow.URL, "interval", time.Duration(cfg.Follow.Interval).String())
	}
	log.Info("serving", "addr", ln.Addr().String(), "data", s.dataDir)
	errc := make(chan error, 2)
	metricsSrv := s.metrics
	if metricsSrv != nil {
		log.Info("serving metrics", "addr", s.metricsLn.Addr().String())
		go func() { errc <- metricsSrv.Serve(s.metricsLn) }()
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		// One listener failed: the other stops with it.
		_ = srv.Close()
		if metricsSrv != nil {
			_ = metricsSrv.Close()
		}
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// MCP sessions' listening streams end first, or Shutdown waits on them.
	_ = s.mcp.Close(sctx)
	err := srv.Shutdown(sctx)
	if metricsSrv != nil {
		err = errors.Join(err, metricsSrv.Shutdown(sctx))
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close releases what New opened: the metrics listener where Serve never
// served it, the call records' sinks (a fault of theirs is logged) and
// the store. It runs once Serve has returned.
func (s *Server) Close() error {
	if s.metricsLn != nil {
		_ = s.metricsLn.Close()
	}
	if s.fe != nil {
		closeFrontEnds(s.fe, s.log)
	}
	return s.st.Close()
}

// newHTTPServer returns a server of h with the configured timeouts.
func newHTTPServer(cfg Config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       time.Duration(cfg.ReadTimeout),
		WriteTimeout:      time.Duration(cfg.WriteTimeout),
		IdleTimeout:       2 * time.Minute,
	}
}
