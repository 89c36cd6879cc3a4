package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/mcp"
)

// clientFrom is an HTTP client whose connections leave from the loopback
// address ip (127.0.0.2: another caller than 127.0.0.1 to the server).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// shareAnswer is the answer to one of the calls the busy caller sends.
type shareAnswer struct {
	code int
	h    http.Header
	raw  []byte
}

// TestServeCallerShareLeavesSlotsToOthers: one anonymous caller whose
// calls run long (held by the test's hook, as a long completion or search
// would hold them) takes at most its share of max_in_flight, a quarter by
// default; its further calls are refused at once 429 rate_limited naming
// the share, and another anonymous caller's read_documentation and a
// credential's are answered 200 rather than shed 503. Nothing here waits
// on a clock: each of the busy caller's calls is either held (the hook
// says so) or answered before the next is sent.
func TestServeCallerShareLeavesSlotsToOthers(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	entered, release := holdCalls(t)
	cfg := testConfig(time.Hour)
	cfg.MaxInFlight, cfg.QueueWait = 8, 0 // a share of 2 by default
	const token = "share-test-token"
	cfg.Credentials = []identity.Credential{{TokenSHA256: sha256Hex(token), Account: "acme", Application: "share-bot"}}
	srv := startServer(t, dataDir, cfg)

	answers := make(chan shareAnswer, cfg.MaxInFlight)
	held, refused := 0, []shareAnswer{}
	for i := 0; i < cfg.MaxInFlight; i++ {
		go func() {
			code, h, raw := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud"}, holdHeader, "1")
			answers <- shareAnswer{code, h, raw}
		}()
		select {
		case <-entered:
			held++
		case a := <-answers:
			refused = append(refused, a)
		case <-time.After(30 * time.Second):
			t.Fatalf("call %d of the busy caller neither reached the server nor was answered", i+1)
		}
	}
	t.Logf("the busy caller holds %d slots of %d; %d of its calls refused", held, cfg.MaxInFlight, len(refused))

	// Another anonymous caller, and a caller with a credential, still
	// find slots.
	code, _, raw := postVia(t, clientFrom("127.0.0.2"), srv.base, "read_documentation", map[string]any{"tree": "cloud"})
	if code != http.StatusOK {
		t.Errorf("another anonymous caller's read_documentation while one caller's calls run: %d, want 200: %.300s", code, raw)
	}
	code, _, raw = postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer "+token)
	if code != http.StatusOK {
		t.Errorf("a credential's read_documentation while one anonymous caller's calls run: %d, want 200: %.300s", code, raw)
	}

	if held != 2 || len(refused) != cfg.MaxInFlight-2 {
		t.Errorf("the busy caller holds %d slots and was refused %d calls; want its share of 2 held and %d refused", held, len(refused), cfg.MaxInFlight-2)
	}
	for _, a := range refused {
		e := refusalOf(t, a.raw)
		if a.code != http.StatusTooManyRequests || a.h.Get("Retry-After") != "1" || e.Code != "rate_limited" ||
			!strings.Contains(e.Detail, "2 calls in flight") || !strings.Contains(e.Detail, "8 call slots") {
			t.Errorf("a call past the caller's share: %d, Retry-After %q, %+v; want 429 rate_limited, 1, naming the share of 2 of 8", a.code, a.h.Get("Retry-After"), e)
		}
	}
	close(release)
	for i := 0; i < held; i++ {
		if a := <-answers; a.code != http.StatusOK {
			t.Errorf("a held call answered %d once released, want 200", a.code)
		}
	}
	// Its share given back, the busy caller is served again.
	mustRead(t, srv.base, map[string]any{"tree": "cloud"})
}

// TestServeLogsClientGoneMCPCall: an MCP completion whose client closed
// its connection before the answer is logged with status 499 (client
// closed request), not the 200 mcp-go never wrote, and its completion
// does no work for no one. The hook holds the request until the server
// has seen the client go.
func TestServeLogsClientGoneMCPCall(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	logs := &testkit.SyncBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	entered := make(chan struct{}, 1)
	heldCalls = func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(holdHeader) != "" {
				entered <- struct{}{}
				<-r.Context().Done() // the client has gone
			}
			next.ServeHTTP(w, r)
		})
	}
	t.Cleanup(func() { heldCalls = nil })
	srv := startServer(t, dataDir, testConfig(time.Hour))

	code, h := mcpPost(t, context.Background(), srv.base, "", initializeBody, false)
	sid := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", code, sid)
	}
	if code, _ := mcpPost(t, context.Background(), srv.base, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false); code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", code)
	}
	before := len(logs.String())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		body := `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"read-page-section"},"argument":{"name":"page","value":"` + privateWords + `"}}}`
		mcpPost(t, ctx, srv.base, sid, body, true)
	}()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the completion did not reach the server")
	}
	cancel()
	<-done
	if !waitFor(30*time.Second, func() bool { return strings.Contains(logs.String()[before:], "path=/mcp") }) {
		t.Fatalf("no log line of the completion:\n%s", logs.String()[before:])
	}
	lines := strings.TrimSpace(logs.String()[before:])
	if strings.Contains(lines, "zanzibar") {
		t.Fatalf("a log line holds the completed value: %s", lines)
	}
	if !strings.Contains(lines, "status=499") || strings.Contains(lines, "status=200") {
		t.Errorf("the completion whose client went away is logged as\n%s\nwant status 499 and no 200", lines)
	}
}

// mcpPost POSTs one JSON-RPC message of session sid to base's /mcp,
// ("" for none), held by the test's hook where hold is set, and returns
// the status (0 where the request ended without one, as when ctx ends
// first) and the headers.
func mcpPost(t *testing.T, ctx context.Context, base, sid, body string, hold bool) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	if hold {
		req.Header.Set(holdHeader, "1")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

// TestLoadConfigCallerShareAndCompletions: max_in_flight_per_caller
// defaults to a quarter of max_in_flight (at least 1) and mcp_completions
// to the MCP front end's defaults; given values are taken.
func TestLoadConfigCallerShareAndCompletions(t *testing.T) {
	t.Parallel()
	d := DefaultConfig()
	if d.PerCaller() != 16 || d.MCPCompletions.bounds() != (mcp.CompletionBounds{MaxValueChars: 256, MaxWords: 16, MaxCandidates: 100000}) {
		t.Fatalf("defaults: a share of %d slots, completions %+v", d.PerCaller(), d.MCPCompletions)
	}
	f := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(f, []byte(`{"max_in_flight": 3, "mcp_completions": {"max_value_chars": 100, "max_words": 4, "max_candidates": 500}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.PerCaller() != 1 || c.MCPCompletions != (MCPCompletionsConfig{MaxValueChars: 100, MaxWords: 4, MaxCandidates: 500}) {
		t.Fatalf("a share of %d slots of 3, completions %+v", c.PerCaller(), c.MCPCompletions)
	}
	if err := os.WriteFile(f, []byte(`{"max_in_flight": 8, "max_in_flight_per_caller": 8}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = LoadConfig(f); err != nil || c.PerCaller() != 8 {
		t.Fatalf("max_in_flight_per_caller 8 of 8: %d, %v", c.PerCaller(), err)
	}
}
