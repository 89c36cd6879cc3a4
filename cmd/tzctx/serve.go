package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/console"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/internal/follow"
	"github.com/turnzerocloud/tzctx/internal/metering"
	"github.com/turnzerocloud/tzctx/internal/objstore"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/store"
)

func newServeCmd(g *globals) *cobra.Command {
	var cfgPath, addr, origin, followURL string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the active version over HTTP; ingests the sample site into an empty data directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cfgPath)
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
			return serve(ctx, g.dataDir(), cfg, nil)
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON)")
	cmd.Flags().StringVar(&addr, "addr", "", "listen address (default 127.0.0.1:8080)")
	cmd.Flags().StringVar(&origin, "origin", "", "public origin stripped from page values (default https://turnzero.ai)")
	cmd.Flags().StringVar(&followURL, "follow", "", "follow the versions published at s3://BUCKET/PREFIX (tzctx publish): poll its pointer, take and serve each new one")
	return cmd
}

// serve runs the server until ctx ends. ready, if set, receives the bound
// address once the server listens.
func serve(ctx context.Context, dataDir string, cfg config, ready chan<- string) error {
	log := slog.Default()
	// SIGHUP asks for an activation check; it is caught from the start, so
	// it never kills a server that is still starting or stopping.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	st, err := store.Open(dataDir)
	if err != nil {
		return err
	}
	// A following server never loads the sample site: until the first
	// version arrives it answers reads with context_unavailable.
	var follower *follow.Follower
	if cfg.Follow.URL != "" {
		loc, err := objstore.ParseLocation(cfg.Follow.URL)
		if err != nil {
			return fmt.Errorf("follow: %w", err)
		}
		c, err := objstore.New(cfg.S3.FromEnv(os.Getenv), loc)
		if err != nil {
			return fmt.Errorf("follow: %w", err)
		}
		follow.CleanDownloads(dataDir)
		follower = follow.New(c, st, log, follow.Options{
			Interval: time.Duration(cfg.Follow.Interval), Keep: cfg.Follow.Keep,
			RequestTimeout: time.Duration(cfg.Follow.RequestTimeout), StallTimeout: time.Duration(cfg.Follow.StallTimeout),
			MaxVersionBytes: cfg.MaxVersionSize,
		})
	} else if err := ensureVersion(ctx, st, log); err != nil {
		return err
	}
	// A damaged active version does not stop the server: it serves
	// nothing and says why on /healthz until another version is
	// activated.
	if _, err := st.Refresh(ctx); err != nil && ctx.Err() == nil {
		log.Error("activation", "error", err.Error())
	}
	defer st.Close()

	fe, err := newFrontEnds(cfg, st, dataDir, log)
	if err != nil {
		return err
	}
	defer closeFrontEnds(fe, log)
	if err := registerOperator(fe, cfg, st, dataDir, log); err != nil {
		return err
	}
	d := fe.dispatcher
	e := api.New(d, api.Options{
		BodyLimit: fmt.Sprintf("%dB", cfg.BodyLimitBytes),
		Health: func() (string, error) {
			h := st.Health()
			return h.Serving, h.Fault
		},
	})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	mcpHandler := fe.mcp.HTTPHandler(mcp.HTTPOptions{
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
		mountResourceMetadata(mux, cfg.OIDC, func(h http.Handler) http.Handler { return accessLogged(h, log) })
	}
	// Calls of /api/v1/actions and /mcp share one bound of calls in
	// flight and the callers' buckets; the probes and /metrics never wait
	// on them.
	guard := newGuard(cfg, d, fe.meter)
	mux.Handle("/mcp", accessLogged(guarded(guard, mcpSurface, mcpHandler), log))
	mux.Handle("/readyz", accessLogged(readyz(st), log))
	if follower != nil {
		mux.Handle("/healthz", accessLogged(followHealthz(st, follower), log))
		fe.meter.Follow(func() metering.FollowStatus {
			s := follower.Status()
			return metering.FollowStatus{Up: s.Fault == nil && !s.LastSuccess.IsZero(), LastSuccess: s.LastSuccess, Failures: s.Failures, Taken: s.Taken}
		})
	}
	// echo's access log is inside the guard: the guard logs its own
	// refusals of the API.
	apiGuarded := apiSurface
	apiGuarded.Log = log
	mux.Handle("/api/v1/actions/", guarded(guard, apiGuarded, e))
	// The console's static files are served beside the API, outside its
	// middleware; with console off, /console/ is the API's unknown path.
	if cfg.consoleOn() {
		ch := accessLogged(console.Handler(), log)
		mux.Handle(console.Prefix, ch)
		mux.Handle(strings.TrimSuffix(console.Prefix, "/"), ch)
	}
	mux.Handle("/", e)
	// Each /api/ answer leaves in one write (onewrite.go).
	// One Host check, before any route (hostguard.go).
	srv := newHTTPServer(cfg, oneWrite(hostGuard(mux, cfg.AllowedHosts, log)))
	srv.ConnContext = oneWriteContext
	ln = oneWriteListener(ln)
	// /metrics is served on the main listener, or on metrics_addr alone
	// where that is set; with metrics off it is an unknown path.
	var metricsSrv *http.Server
	var metricsLn net.Listener
	if fe.meter != nil {
		metrics := fe.meter.Handler()
		if cfg.MetricsAddr == "" {
			// The access log is outside the guard, so a refused scrape is
			// logged (method, path, status 403) as an answered one is.
			mux.Handle("/metrics", accessLogged(metricsGuard(metrics, fe.resolver), log))
		} else {
			if metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
				ln.Close()
				return fmt.Errorf("metrics_addr: %w", err)
			}
			mmux := http.NewServeMux()
			mmux.Handle("/metrics", accessLogged(metrics, log))
			metricsSrv = newHTTPServer(cfg, hostGuard(mmux, cfg.AllowedHosts, log))
		}
	}
	// The watcher stops before the store closes, and the follower before
	// the watcher.
	defer startWatch(ctx, st, time.Duration(cfg.WatchInterval), hup, log, fe.mcp.ListsChanged)()
	if follower != nil {
		fctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); follower.Run(fctx) }()
		defer func() { cancel(); <-done }()
		log.Info("following", "location", cfg.Follow.URL, "interval", time.Duration(cfg.Follow.Interval).String())
	}
	log.Info("serving", "addr", ln.Addr().String(), "data", dataDir)
	errc := make(chan error, 2)
	if metricsSrv != nil {
		log.Info("serving metrics", "addr", metricsLn.Addr().String())
		go func() { errc <- metricsSrv.Serve(metricsLn) }()
	}
	if ready != nil {
		ready <- ln.Addr().String()
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
	_ = mcpHandler.Close(sctx)
	err = srv.Shutdown(sctx)
	if metricsSrv != nil {
		err = errors.Join(err, metricsSrv.Shutdown(sctx))
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer returns a server of h with the configured timeouts.
func newHTTPServer(cfg config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       time.Duration(cfg.ReadTimeout),
		WriteTimeout:      time.Duration(cfg.WriteTimeout),
		IdleTimeout:       2 * time.Minute,
	}
}

// ensureVersion ingests and activates the embedded sample site where the
// data directory holds no version, so a newcomer's server answers at once.
func ensureVersion(ctx context.Context, st *store.Store, log *slog.Logger) error {
	active, err := st.ActiveName()
	if err != nil || active != "" {
		return err
	}
	ms, err := st.List()
	if err != nil {
		return err
	}
	damaged, err := st.Unreadable()
	if err != nil {
		return err
	}
	if len(ms) > 0 || len(damaged) > 0 {
		// An operator's data directory never falls back to the sample.
		log.Warn("no version is active; activate one with 'tzctx activate NAME'")
		return nil
	}
	tmp, err := os.MkdirTemp("", "tzctx-sample-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	site, err := data.Extract(tmp)
	if err != nil {
		return err
	}
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		return err
	}
	sum, err := ingest.Run(ctx, st, ingest.Options{Trees: trees})
	if err != nil {
		return fmt.Errorf("ingest the sample site: %w", err)
	}
	log.Info("ingested the sample site", "version", sum.Version, "pages", sum.Pages)
	return st.Activate(ctx, sum.Version)
}

// startWatch runs watch in a goroutine and returns the function that
// stops it and waits for it to end, which must run before st closes.
func startWatch(ctx context.Context, st *store.Store, every time.Duration, hup <-chan os.Signal, log *slog.Logger, changed func()) (stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		watch(wctx, st, every, hup, log, changed)
	}()
	return func() {
		cancel()
		<-done
	}
}

// watch picks up activations: it checks the pointer every interval and at
// once on SIGHUP, and calls changed, where set, once the served version
// has changed.
func watch(ctx context.Context, st *store.Store, every time.Duration, hup <-chan os.Signal, log *slog.Logger, changed func()) {
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// A refused version is logged once, not at every tick.
	logged := ""
	if h := st.Health(); h.Fault != nil {
		logged = h.Fault.Error()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-hup:
			st.Recheck()
			logged = ""
		}
		switched, err := st.Refresh(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if err.Error() != logged {
				logged = err.Error()
				log.Error("activation", "error", logged)
			}
			continue
		}
		logged = ""
		if switched {
			if v, err := st.Acquire(); err == nil {
				log.Info("serving version", "version", v.Name())
				v.Release()
			}
			if changed != nil {
				changed()
			}
		}
	}
}

// metricsGuard serves /metrics on the main listener only to a loopback
// client or a caller presenting an admin credential: the counters name
// accounts and applications, which other callers must not learn. A
// scraper elsewhere either sends an admin bearer credential or scrapes
// metrics_addr, a listener of the operator's own. Behind a reverse proxy
// on the same host every client is a loopback one, so such a proxy must
// not forward /metrics.
func metricsGuard(h http.Handler, resolver dispatch.Resolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
				h.ServeHTTP(w, r)
				return
			}
		}
		bearer, err := dispatch.Bearer(r.Header.Values("Authorization"))
		if err == nil && bearer != "" {
			if id, rerr := resolver.Resolve(r.Context(), bearer); rerr == nil && id.Admin {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("WWW-Authenticate", `Bearer`)
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"invalid_request","detail":"/metrics on this address answers loopback clients and admin credentials alone; send an admin bearer credential, or scrape metrics_addr"}}` + "\n"))
	})
}

// readyz answers the readiness probe: 200 once a version is served, 503
// before, so an orchestrator sends no traffic to a server with nothing to
// serve (a following server waiting for its first version, or one whose
// active version was refused).
func readyz(st *store.Store) http.Handler {
	return probeMethods(func(w http.ResponseWriter, r *http.Request) {
		if h := st.Health(); h.Serving != "" {
			writeProbe(w, http.StatusOK, map[string]any{"status": "ready", "version": h.Serving})
			return
		}
		writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "detail": "no version is served yet"})
	})
}

// followHealthz answers the liveness probe of a following server: 200
// while the process serves, whatever the object store does, so that an
// outage of the store never gets replicas restarted; the body says what
// is served and the follower's fault, which /metrics counts too.
func followHealthz(st *store.Store, f *follow.Follower) http.Handler {
	return probeMethods(func(w http.ResponseWriter, r *http.Request) {
		h, fs := st.Health(), f.Status()
		body := map[string]any{"status": "ok", "follow": fs.Location}
		if h.Serving != "" {
			body["version"] = h.Serving
		} else {
			body["status"] = "waiting"
		}
		var faults []string
		if h.Fault != nil {
			faults = append(faults, h.Fault.Error())
		}
		if fs.Fault != nil {
			faults = append(faults, "follow: "+fs.Fault.Error())
		}
		if len(faults) > 0 {
			if h.Serving != "" {
				body["status"] = "degraded"
			}
			body["detail"] = strings.Join(faults, "; ")
		}
		if !fs.LastSuccess.IsZero() {
			body["follow_last_success"] = fs.LastSuccess.UTC().Format(time.RFC3339)
		}
		writeProbe(w, http.StatusOK, body)
	})
}

// probeMethods answers a probe's GET and HEAD with h (net/http writes no
// body for HEAD) and refuses any other method 405, as /healthz is
// answered in the HTTP API.
func probeMethods(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = w.Write([]byte(`{"error":{"code":"invalid_request","detail":"this path answers GET and HEAD alone"}}` + "\n"))
			return
		}
		h(w, r)
	})
}

func writeProbe(w http.ResponseWriter, status int, body map[string]any) {
	raw, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(raw, '\n'))
}
