package server

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// metricsCanary is a word only the callers of the metrics tests send: no
// metric may carry it.
const metricsCanary = "canarymetricsword"

// series returns the metric of a family whose labels are exactly want,
// or nil.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return m
		}
	}
	return nil
}

// callsOf returns tzctx_calls_total of one series, 0 where it is absent.
func callsOf(fams map[string]*dto.MetricFamily, account, application, action, transport, outcome string) float64 {
	m := series(fams, "tzctx_calls_total", map[string]string{
		"account": account, "application": application, "action": action, "transport": transport, "outcome": outcome})
	return m.GetCounter().GetValue()
}

// getStatus GETs u and returns the status and body.
func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := httpClient.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// TestServeMetrics: calls over HTTP and MCP, succeeding and refused, are
// counted on /metrics of the main listener by account, action, transport
// and outcome, with their durations, beside the served version and the
// runtime's metrics; a query's words, a caller's route or action name and
// a credential appear nowhere in the scrape.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(50 * time.Millisecond)
	cfg.Credentials = []identity.Credential{{TokenSHA256: identity.SHA256("tok-metrics"), Account: "acme", Application: "ci-bot"}}
	srv := startServer(t, dataDir, cfg)

	long := strings.Repeat(metricsCanary+" ", 10) // 180 code points: over the 160 a query may hold
	calls := []struct {
		what   string
		status int
		do     func() (int, error)
	}{
		{"an anonymous tree read", 200, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"tree": "cloud"})
			return c, err
		}},
		{"a second anonymous tree read", 200, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"tree": "tzdocs"})
			return c, err
		}},
		{"a signed-in tree read", 200, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer tok-metrics")
			return c, err
		}},
		{"a POST search", 200, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"tree": "cloud", "query": metricsCanary})
			return c, err
		}},
		{"a GET search", 200, func() (int, error) {
			c, _ := getStatus(t, srv.base+"/api/v1/actions/read_documentation?"+url.Values{"tree": {"cloud"}, "query": {metricsCanary}}.Encode())
			return c, nil
		}},
		{"a POST search too long", 400, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"query": long})
			return c, err
		}},
		{"a GET search too long", 400, func() (int, error) {
			c, _ := getStatus(t, srv.base+"/api/v1/actions/read_documentation?"+url.Values{"query": {long}}.Encode())
			return c, nil
		}},
		{"a page no manifest lists", 404, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"page": "/cloud/" + metricsCanary})
			return c, err
		}},
		{"an unknown credential", 401, func() (int, error) {
			c, _, err := postRaw(srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer "+metricsCanary)
			return c, err
		}},
		{"an unknown action", 404, func() (int, error) {
			c, _, err := postRaw(srv.base, metricsCanary, map[string]any{})
			return c, err
		}},
	}
	for _, c := range calls {
		code, err := c.do()
		if err != nil || code != c.status {
			t.Fatalf("%s: %d (%v), want %d", c.what, code, err, c.status)
		}
	}
	m := mcpSession(t, srv.base, "")
	if r := mcpCall(t, m, "read_documentation", map[string]any{"tree": "cloud", "query": metricsCanary}); r.IsError {
		t.Fatalf("MCP search refused: %v", r.Content)
	}
	if r := mcpCall(t, m, "read_documentation", map[string]any{"query": long}); !r.IsError {
		t.Fatal("MCP search of 180 code points was not refused")
	}

	fams, raw := testkit.Scrape(t, srv.base+"/metrics")
	const rd, viaHTTP, viaMCP = "read_documentation", "http", "mcp-http"
	want := []struct {
		account, application, action, transport, outcome string
		n                                                float64
	}{
		{"anonymous", "", rd, viaHTTP, "ok", 4},
		{"acme", "ci-bot", rd, viaHTTP, "ok", 1},
		{"anonymous", "", rd, viaHTTP, "invalid_request", 2},
		{"anonymous", "", rd, viaHTTP, "context_not_found", 1},
		{"anonymous", "", rd, viaHTTP, "unauthenticated", 1},
		{"anonymous", "", "(unknown action)", viaHTTP, "context_not_found", 1},
		{"anonymous", "", rd, viaMCP, "ok", 1},
		{"anonymous", "", rd, viaMCP, "invalid_request", 1},
	}
	var rdCalls float64
	for _, w := range want {
		if got := callsOf(fams, w.account, w.application, w.action, w.transport, w.outcome); got != w.n {
			t.Errorf("tzctx_calls_total{account=%q,application=%q,action=%q,transport=%q,outcome=%q} = %v, want %v",
				w.account, w.application, w.action, w.transport, w.outcome, got, w.n)
		}
		if w.action == rd {
			rdCalls += w.n
		}
	}
	var total float64
	for _, s := range fams["tzctx_calls_total"].GetMetric() {
		if labelMap(s)["action"] == rd {
			total += s.GetCounter().GetValue()
		}
	}
	if total != rdCalls {
		t.Errorf("read_documentation has %v calls in all, want %v: a series this test did not make\n%s", total, rdCalls, raw)
	}
	h := series(fams, "tzctx_call_duration_seconds", map[string]string{"action": rd})
	if h == nil || float64(h.GetHistogram().GetSampleCount()) != rdCalls {
		t.Errorf("tzctx_call_duration_seconds{action=%q} counts %d calls, want %v", rd, h.GetHistogram().GetSampleCount(), rdCalls)
	} else if b := finiteBuckets(h); len(b) == 0 || b[0] != 50e-6 || b[len(b)-1] != 10 {
		t.Errorf("the duration buckets do not run from 50 µs to 10 s: %v", b)
	}
	if h := series(fams, "tzctx_call_duration_seconds", map[string]string{"action": "(unknown action)"}); h.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("tzctx_call_duration_seconds{action=\"(unknown action)\"} counts %d calls, want 1", h.GetHistogram().GetSampleCount())
	}
	if cp := series(fams, "tzctx_code_points_served_total", map[string]string{"action": rd}); cp.GetCounter().GetValue() <= 0 {
		t.Errorf("tzctx_code_points_served_total{action=%q} = %v, want the code points served", rd, cp.GetCounter().GetValue())
	}
	if v := series(fams, "tzctx_served_version_info", map[string]string{"version": "v1"}); v.GetGauge().GetValue() != 1 || len(fams["tzctx_served_version_info"].GetMetric()) != 1 {
		t.Errorf("tzctx_served_version_info is not {version=\"v1\"} 1 alone:\n%v", fams["tzctx_served_version_info"])
	}
	if fams["go_goroutines"] == nil {
		t.Error("the scrape has no go_goroutines")
	}
	process := 0
	for name := range fams {
		if strings.HasPrefix(name, "process_") {
			process++
		}
	}
	if process == 0 {
		t.Error("the scrape has no process_ metric")
	}
	for _, w := range []string{metricsCanary, "tok-metrics", identity.SHA256("tok-metrics")[:12]} {
		if strings.Contains(raw, w) {
			t.Errorf("the scrape holds %q", w)
		}
	}

	// The version metric follows an activation.
	testkit.IngestInto(t, dataDir, "v2", true, testkit.SiteTrees(t, changedSite(t))...)
	if !waitFor(10*time.Second, func() bool { _, v, _ := health(srv.base); return v == "v2" }) {
		t.Fatal("the server did not serve v2 within 10 s")
	}
	fams, _ = testkit.Scrape(t, srv.base+"/metrics")
	if v := fams["tzctx_served_version_info"].GetMetric(); len(v) != 1 || series(fams, "tzctx_served_version_info", map[string]string{"version": "v2"}) == nil {
		t.Errorf("after activating v2, tzctx_served_version_info is %v", v)
	}
}

// finiteBuckets returns a histogram's upper bounds but +Inf, which the
// text parser lists too.
func finiteBuckets(h *dto.Metric) []float64 {
	var out []float64
	for _, b := range h.GetHistogram().GetBucket() {
		if !math.IsInf(b.GetUpperBound(), 1) {
			out = append(out, b.GetUpperBound())
		}
	}
	return out
}

func labelMap(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// TestServeMetricsOnItsOwnAddress: with metrics_addr, /metrics is served
// there alone, the main listener answers it as an unknown path, and the
// metrics listener stops with the server.
func TestServeMetricsOnItsOwnAddress(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(50 * time.Millisecond)
	maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cfg.MetricsAddr = maddr
	srv := startServer(t, dataDir, cfg)

	mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	fams, _ := testkit.Scrape(t, "http://"+maddr+"/metrics")
	if got := callsOf(fams, "anonymous", "", "read_documentation", "http", "ok"); got != 1 {
		t.Errorf("calls on metrics_addr: %v, want 1", got)
	}
	if series(fams, "tzctx_served_version_info", map[string]string{"version": "v1"}) == nil {
		t.Error("metrics_addr serves no tzctx_served_version_info{version=\"v1\"}")
	}
	if code, body := getStatus(t, srv.base+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "tzctx_") {
		t.Errorf("the main address answers /metrics %d, want 404:\n%.300s", code, body)
	}
	if code, _ := getStatus(t, "http://"+maddr+"/api/v1/actions/list_context"); code != http.StatusNotFound {
		t.Errorf("metrics_addr answers an action %d, want 404", code)
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if c, err := net.DialTimeout("tcp", maddr, time.Second); err == nil {
		c.Close()
		t.Error("metrics_addr still accepts connections after serve returned")
	}
}

// TestServeMetricsOff: metrics false serves no /metrics, on the main
// address or on metrics_addr: /metrics answers as any unknown path.
func TestServeMetricsOff(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(50 * time.Millisecond)
	off := false
	cfg.Metrics = &off
	maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cfg.MetricsAddr = maddr
	srv := startServer(t, dataDir, cfg)

	mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	code, body := getStatus(t, srv.base+"/metrics")
	ucode, ubody := getStatus(t, srv.base+"/no-such-path")
	if code != http.StatusNotFound || code != ucode || strings.Contains(body, "tzctx_") ||
		strings.Replace(body, "/metrics", "/no-such-path", 1) != ubody {
		t.Errorf("/metrics with metrics off: %d %s; an unknown path: %d %s", code, body, ucode, ubody)
	}
	if c, err := net.DialTimeout("tcp", maddr, time.Second); err == nil {
		c.Close()
		t.Error("metrics_addr accepts connections with metrics off")
	}
}

// TestMetricsGuard: /metrics on the main listener answers a loopback
// client and an admin credential from anywhere; any other caller,
// signed in or not, is refused 403, so accounts and applications stay
// hidden from callers.
func TestMetricsGuard(t *testing.T) {
	t.Parallel()
	res, err := identity.New(context.Background(), []identity.Credential{
		{TokenSHA256: identity.SHA256("op"), Account: "ops", Application: "prometheus", Admin: true},
		{TokenSHA256: identity.SHA256("reader"), Account: "acme", Application: "agent"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := metricsGuard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("tzctx_calls_total 1\n")) }), res)
	for _, c := range []struct {
		remote, token string
		want          int
	}{
		{"127.0.0.1:5000", "", 200},
		{"[::1]:5000", "", 200},
		{"203.0.113.5:5000", "op", 200},
		{"203.0.113.5:5000", "", 403},
		{"203.0.113.5:5000", "reader", 403},
		{"203.0.113.5:5000", "unknown", 403},
	} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = c.remote
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want || (c.want == 200) != strings.Contains(rec.Body.String(), "tzctx_calls_total") {
			t.Errorf("%s with %q: %d %q, want %d", c.remote, c.token, rec.Code, rec.Body.String(), c.want)
		}
	}
}
