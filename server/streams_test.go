package server

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// listenRequest is a protocol 2026-07-28 subscriptions/listen request
// that subscribes to the resource list, so its stream stays open.
const listenRequest = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourcesListChanged":true}}}`

// openStream sends a request that may become a long-lived stream to
// base's /mcp and returns the response once its headers arrive; the test
// closes its body. A stream's response has no end, so the client has no
// timeout.
func openStream(t *testing.T, method, base, sid, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestServeListenStreamsHoldNoSlot: anonymous subscriptions/listen
// streams left open, more of them than max_in_flight, hold no call slot:
// every one up to the per-caller stream bound opens, and calls are
// served meanwhile; the stream past that bound is refused 429 with
// Retry-After. (Before, each stream held a slot until the client hung
// up, and every other call was shed 503.)
func TestServeListenStreamsHoldNoSlot(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(time.Hour)
	cfg.MaxInFlight, cfg.QueueWait = 4, 0
	srv := startServer(t, dataDir, cfg)
	perCaller := cfg.MCPStreams.PerCaller
	if perCaller <= cfg.MaxInFlight {
		t.Fatalf("the default mcp_streams.per_caller %d is not above the test's max_in_flight %d", perCaller, cfg.MaxInFlight)
	}
	for i := 0; i < perCaller; i++ {
		if resp := openStream(t, http.MethodPost, srv.base, "", listenRequest); resp.StatusCode != http.StatusOK {
			t.Fatalf("listen stream %d of %d: %d, want 200 (streams hold no call slot)", i+1, perCaller, resp.StatusCode)
		}
	}
	if code, _, raw := postWithHeaders(t, srv.base, "list_context", map[string]any{}); code != http.StatusOK {
		t.Fatalf("a call with %d listen streams open: %d %s", perCaller, code, raw)
	}
	resp := openStream(t, http.MethodPost, srv.base, "", listenRequest)
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the stream past mcp_streams.per_caller: %d, Retry-After %q, want 429 with Retry-After: %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
	if !strings.Contains(string(raw), `"jsonrpc"`) || !strings.Contains(string(raw), "streams") {
		t.Errorf("the refusal is not a JSON-RPC error naming the stream bound: %s", raw)
	}
}

// TestServeMCPGetIsRateLimited: GET /mcp, a session's event stream, is
// rate-limited like a call, yet holds no call slot while it is open.
func TestServeMCPGetIsRateLimited(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(time.Hour)
	cfg.MaxInFlight, cfg.QueueWait = 1, 0
	cfg.RateLimit = &RateLimitConfig{PerSecond: 0.001, Burst: 3, Anonymous: "per_address", MaxBuckets: 100}
	const token = "stream-test-token"
	cfg.Credentials = []identity.Credential{{TokenSHA256: sha256Hex(token), Account: "acme", Application: "stream-bot"}}
	srv := startServer(t, dataDir, cfg)

	code, _, raw := mcpInitialize(t, srv.base, "")
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, raw)
	}
	// mcpInitialize does not return the session: open one directly.
	req, _ := http.NewRequest(http.MethodPost, srv.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("the credential's initialize: %d, session %q", resp.StatusCode, sid)
	}
	// The anonymous caller's second and third tokens: GETs (of the
	// credential's session, refused 404 after the bucket; what matters
	// is that they are counted). Its fourth is refused by the rate limit.
	for i := 0; i < 2; i++ {
		if r := openStream(t, http.MethodGet, srv.base, sid, ""); r.StatusCode != http.StatusNotFound {
			t.Fatalf("the anonymous caller's GET of another's session: %d, want 404", r.StatusCode)
		}
	}
	r := openStream(t, http.MethodGet, srv.base, sid, "")
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("a GET past the anonymous bucket: %d, want 429 with Retry-After", r.StatusCode)
	}
	// The credential's own event stream opens and holds no slot: with
	// max_in_flight 1 a call is still served.
	greq, _ := http.NewRequest(http.MethodGet, srv.base+"/mcp", nil)
	greq.Header.Set("Accept", "text/event-stream")
	greq.Header.Set("Mcp-Session-Id", sid)
	greq.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	greq.Header.Set("Authorization", "Bearer "+token)
	gresp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(greq)
	if err != nil {
		t.Fatal(err)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != http.StatusOK {
		t.Fatalf("the owner's GET stream: %d", gresp.StatusCode)
	}
	if code, _, raw := postWithHeaders(t, srv.base, "list_context", map[string]any{}, "Authorization", "Bearer "+token); code != http.StatusOK {
		t.Errorf("a call with the GET stream open and max_in_flight 1: %d %s", code, raw)
	}
}

// TestServeShutdownWithListenStreams: stopping the server with listen
// streams open ends them and returns nil promptly, not after the 10 s
// shutdown deadline with "context deadline exceeded".
func TestServeShutdownWithListenStreams(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	srv := startServer(t, dataDir, testConfig(time.Hour))
	var streams []*http.Response
	for i := 0; i < 5; i++ {
		resp := openStream(t, http.MethodPost, srv.base, "", listenRequest)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("listen stream %d: %d", i, resp.StatusCode)
		}
		streams = append(streams, resp)
	}
	start := time.Now()
	if err := srv.stop(t); err != nil {
		t.Fatalf("serve returned %v with 5 listen streams open, want nil", err)
	}
	// The deadline is 10 s; a prompt stop is far below it on any machine.
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("shutdown took %v with 5 listen streams open", d)
	}
	for i, s := range streams {
		if _, err := io.Copy(io.Discard, s.Body); err != nil && !strings.Contains(err.Error(), "EOF") {
			t.Logf("stream %d ended with %v", i, err)
		}
	}
}

// TestLoadConfigMCPBounds: mcp_streams and mcp_sessions default to the
// mcp package's bounds, take what the file gives, and refuse a bound
// that is not positive, naming the member.
func TestLoadConfigMCPBounds(t *testing.T) {
	t.Parallel()
	d := DefaultConfig()
	if d.MCPStreams != (MCPStreamsConfig{PerCaller: 8, Total: 512, MaxListenBytes: 8192}) ||
		d.MCPSessions != (MCPSessionsConfig{PerCaller: 32, Total: 1024, MaxInitializeBytes: 8192}) {
		t.Fatalf("defaults %+v %+v", d.MCPStreams, d.MCPSessions)
	}
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "c.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := LoadConfig(write(`{"mcp_streams": {"per_caller": 2}, "mcp_sessions": {"total": 10, "max_initialize_bytes": 4096}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.MCPStreams != (MCPStreamsConfig{PerCaller: 2, Total: 512, MaxListenBytes: 8192}) ||
		c.MCPSessions != (MCPSessionsConfig{PerCaller: 32, Total: 10, MaxInitializeBytes: 4096}) {
		t.Fatalf("read %+v %+v", c.MCPStreams, c.MCPSessions)
	}
	for body, want := range map[string]string{
		`{"mcp_streams": {"total": 0}}`:                 "mcp_streams.total: 0 is not a positive bound",
		`{"mcp_streams": {"max_listen_bytes": -1}}`:     "mcp_streams.max_listen_bytes: -1 is not a positive bound",
		`{"mcp_sessions": {"per_caller": 0}}`:           "mcp_sessions.per_caller: 0 is not a positive bound",
		`{"mcp_sessions": {"max_initialize_bytes": 0}}`: "mcp_sessions.max_initialize_bytes: 0 is not a positive bound",
	} {
		if _, err := LoadConfig(write(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
