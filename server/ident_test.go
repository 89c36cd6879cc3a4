package server

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
)

// TestServeOIDCOutageWithRateLimit: with rate_limit set, a JWT whose key
// ID the server has not cached, sent while the issuer's JWKS endpoint
// answers 500, is answered 503 context_unavailable with Retry-After over
// the HTTP API and /mcp, never 401: the credential is resolved once per
// request (by the rate limiter) and that answer stands, so a client keeps
// a token that may be good.
func TestServeOIDCOutageWithRateLimit(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "outage")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(50 * time.Millisecond)
	cfg.OIDC = oidcConfig(iss)
	cfg.OIDC.JWKSMinRefresh = "100ms"
	cfg.RateLimit = &RateLimitConfig{PerSecond: 50, Burst: 100}
	if err := cfg.RateLimit.check(); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, dataDir, cfg)

	// The issuer's keys are fetched and cached.
	if code, _, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer "+iss.Token(t, nil)); err != nil || code != http.StatusOK {
		t.Fatalf("a good JWT: %d %.300s (%v)", code, raw, err)
	}
	time.Sleep(150 * time.Millisecond)
	iss.JWKSStatus.Store(http.StatusInternalServerError)
	// Signed by a key the cache lacks: whether the issuer publishes it
	// cannot be known while its JWKS fails.
	tok := iss.StrangerToken(t, "k2", nil)
	for i := range 3 {
		resp, raw := rawPost(t, srv.base+"/api/v1/actions/read_documentation", tok, `{"tree":"blueprint"}`)
		var body answer
		_ = json.Unmarshal(raw, &body)
		if resp.StatusCode != http.StatusServiceUnavailable || body.Error == nil || body.Error.Code != "context_unavailable" || !strings.Contains(body.Error.Detail, "identity provider's keys could not be fetched") {
			t.Errorf("HTTP API, try %d, JWKS at 500: %d %s; want 503 context_unavailable", i+1, resp.StatusCode, raw)
		}
		if resp.Header.Get("Retry-After") == "" || resp.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("HTTP API, try %d: Retry-After %q, WWW-Authenticate %q; want a Retry-After and no challenge", i+1, resp.Header.Get("Retry-After"), resp.Header.Get("WWW-Authenticate"))
		}
		resp, raw = rawPost(t, srv.base+"/mcp", tok, initializeBody)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), "context_unavailable") || resp.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("/mcp, try %d, JWKS at 500: %d %s, WWW-Authenticate %q; want 503 context_unavailable without a challenge", i+1, resp.StatusCode, raw, resp.Header.Get("WWW-Authenticate"))
		}
	}
	// Once the issuer answers, the same token is judged on its merits.
	iss.JWKSStatus.Store(0)
	time.Sleep(150 * time.Millisecond)
	if resp, raw := rawPost(t, srv.base+"/api/v1/actions/read_documentation", tok, `{"tree":"blueprint"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the unknown key's token once the JWKS answers: %d %s, want 401", resp.StatusCode, raw)
	}
}

// TestServeOIDCLongNamesBounded: a JWT whose sub is 50,011 characters and
// whose azp is 20,000 is served, and its records and call log lines name
// the account and application bounded as metric labels are, never whole.
func TestServeOIDCLongNamesBounded(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "names")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(50 * time.Millisecond)
	cfg.OIDC = oidcConfig(iss)
	logs := &testkit.SyncBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	srv := startServer(t, dataDir, cfg)

	sub := "acct-" + strings.Repeat("s", 50006)
	azp := "app-" + strings.Repeat("a", 19996)
	tok := iss.Token(t, map[string]any{"sub": sub, "azp": azp})
	if code, _, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer "+tok); err != nil || code != http.StatusOK {
		t.Fatalf("HTTP read with a long sub: %d %.300s (%v)", code, raw, err)
	}
	c := mcpSession(t, srv.base, tok)
	if res := mcpCall(t, c, "read_documentation", map[string]any{"tree": "cloud"}); res.IsError {
		t.Fatalf("MCP read with a long sub: %+v", res.StructuredContent)
	}
	srv.stop(t)

	recs := parseRecordsJSON(t, recordsJSON(t, dataDir))
	seen := 0
	for _, r := range recs {
		if r.Action != "read_documentation" {
			continue
		}
		seen++
		if len(r.Account) > metering.MaxLabelBytes || !strings.HasPrefix(r.Account, "acct-sss") || len(r.Application) > metering.MaxLabelBytes || !strings.HasPrefix(r.Application, "app-aaa") {
			t.Errorf("record (%s) names account %.80q (%d bytes), application %.80q (%d bytes); want each at most %d bytes", r.Transport, r.Account, len(r.Account), r.Application, len(r.Application), metering.MaxLabelBytes)
		}
	}
	if seen != 2 {
		t.Errorf("%d read_documentation records, want 2 (HTTP and MCP)", seen)
	}
	out := logs.String()
	if !strings.Contains(out, "account=acct-sss") {
		t.Errorf("no call log line names the bounded account:\n%.2000s", out)
	}
	if strings.Contains(out, strings.Repeat("s", metering.MaxLabelBytes+1)) || strings.Contains(out, strings.Repeat("a", metering.MaxLabelBytes+1)) {
		t.Error("the log holds the account or application beyond the bound of a metric label")
	}
}

// fromAddress calls an action of base from the loopback source address
// ip, a remote address of its own to the server, and returns the status.
func fromAddress(t *testing.T, base, ip, action string) int {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	c := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Post(base+"/api/v1/actions/"+action, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatalf("POST from %s: %v", ip, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestServeBucketsMakeRoomForNewAddresses: with max_buckets full and the
// bucket used least recently still spent, callers from addresses never
// seen before each get a bucket of their own, taking the places of
// buckets that refilled, rather than sharing one overflow bucket and
// being refused on their first call; the spent bucket is kept.
func TestServeBucketsMakeRoomForNewAddresses(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "buckets")
	cfg := testConfig(time.Hour)
	// A bucket used once is full again in 2 s; a spent one needs 20 s.
	cfg.RateLimit = &RateLimitConfig{PerSecond: 0.5, Burst: 10, Anonymous: "per_address", MaxBuckets: 50}
	srv := startServer(t, dataDir, cfg)

	for range 10 {
		if code := fromAddress(t, srv.base, "127.0.0.2", "list_context"); code != http.StatusOK {
			t.Fatalf("a call of 127.0.0.2's burst: %d", code)
		}
	}
	for i := range 49 {
		if code := fromAddress(t, srv.base, fmt.Sprintf("127.0.0.%d", i+3), "list_context"); code != http.StatusOK {
			t.Fatalf("127.0.0.%d's first call: %d", i+3, code)
		}
	}
	time.Sleep(2100 * time.Millisecond)
	refused := 0
	for i := range 45 {
		if code := fromAddress(t, srv.base, fmt.Sprintf("127.0.1.%d", i+1), "list_context"); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 45 new addresses refused 429 on their first call while 49 kept buckets had refilled", refused)
	}
	limited := false
	for range 10 {
		if fromAddress(t, srv.base, "127.0.0.2", "list_context") == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("127.0.0.2's spent bucket was forgotten: it got a fresh burst of 10")
	}
}

// withHost sends method path to base with the Host header host, an
// optional bearer token and body, and returns the response and its body.
func withHost(t *testing.T, method, url, host, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// TestServeHostGuard: a server on loopback refuses 403, before any route
// runs, a request whose Host names neither a loopback name nor one of
// allowed_hosts (a DNS-rebinding page): /metrics, the HTTP API, the
// console and /mcp alike, and /mcp before its credential is resolved (no
// JWKS fetch). Loopback names and listed names are served, /mcp
// included. /mcp's challenge names resource_metadata on a Host that
// passed the guard, or on oidc.resource where that is set.
func TestServeHostGuard(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "hosts")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(time.Hour)
	cfg.OIDC = oidcConfig(iss)
	cfg.AllowedHosts = []string{"Docs.Example.com"}
	srv := startServer(t, dataDir, cfg)
	port := strings.TrimPrefix(srv.base, "http://127.0.0.1:")

	const forged = "rebound.attacker.example:" + "8080"
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/metrics", ""},
		{http.MethodPost, "/api/v1/actions/list_context", "{}"},
		{http.MethodGet, "/api/v1/actions/list_context", ""},
		{http.MethodGet, "/console/", ""},
		{http.MethodGet, "/healthz", ""},
		{http.MethodGet, "/.well-known/oauth-protected-resource/mcp", ""},
		{http.MethodPost, "/mcp", initializeBody},
	} {
		resp, raw := withHost(t, c.method, srv.base+c.path, forged, iss.StrangerToken(t, "k-unseen", nil), c.body)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(raw, "allowed_hosts") || resp.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("%s %s with Host %s: %d %.200s, WWW-Authenticate %q; want 403 naming allowed_hosts, no challenge", c.method, c.path, forged, resp.StatusCode, raw, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if n := iss.Fetches.Load(); n != 0 {
		t.Errorf("%d JWKS fetches for requests refused by their Host, want none: Host is checked first", n)
	}

	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "127.0.0.9", "[::1]:" + port, "docs.example.com", "DOCS.example.com:443"} {
		if resp, raw := withHost(t, http.MethodGet, srv.base+"/metrics", host, "", ""); resp.StatusCode != http.StatusOK {
			t.Errorf("/metrics with Host %s: %d %.200s, want 200", host, resp.StatusCode, raw)
		}
	}
	if resp, raw := withHost(t, http.MethodPost, srv.base+"/api/v1/actions/list_context", "docs.example.com", "", "{}"); resp.StatusCode != http.StatusOK {
		t.Errorf("the API with a listed Host: %d %.200s", resp.StatusCode, raw)
	}
	if resp, raw := withHost(t, http.MethodPost, srv.base+"/mcp", "docs.example.com", "", initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("/mcp with a listed Host: %d %.200s, want 200", resp.StatusCode, raw)
	}
	resp, _ := withHost(t, http.MethodPost, srv.base+"/mcp", "localhost:"+port, "tzctx_unknown", initializeBody)
	want := `resource_metadata="http://localhost:` + port + `/.well-known/oauth-protected-resource/mcp"`
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, want) {
		t.Errorf("/mcp challenge with Host localhost: %d %q, want %s", resp.StatusCode, ch, want)
	}
}
