package server

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/follow"
	"github.com/turnzerocloud/tzctx/store"
)

// metricsGuard serves /metrics on the main listener only to a loopback
// client or a caller presenting an admin credential: the counters name
// accounts and applications, which other callers must not learn. A
// scraper elsewhere either sends an admin bearer credential or scrapes
// metrics_addr, a listener of the operator's own. Behind a reverse proxy
// on the same host every client is a loopback one, so such a proxy must
// not forward /metrics.
func metricsGuard(h http.Handler, resolver tzctx.Resolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
				h.ServeHTTP(w, r)
				return
			}
		}
		bearer, err := tzctx.Bearer(r.Header.Values("Authorization"))
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
		if serving, _ := st.Serving(); serving != "" {
			writeProbe(w, http.StatusOK, map[string]any{"status": "ready", "version": serving})
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
