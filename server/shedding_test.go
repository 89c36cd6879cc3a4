package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// holdHeader marks the requests the test hook holds in flight.
const holdHeader = "X-Test-Hold"

// holdCalls sets heldCalls for the test: a request carrying holdHeader
// signals entered once it holds its slot and waits until release is
// closed. It must be called before the server starts; the hook is unset
// once the server has stopped.
func holdCalls(t *testing.T) (entered chan struct{}, release chan struct{}) {
	t.Helper()
	entered, release = make(chan struct{}, 64), make(chan struct{})
	heldCalls = func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(holdHeader) != "" {
				entered <- struct{}{}
				<-release
			}
			next.ServeHTTP(w, r)
		})
	}
	// Registered before startServer's cleanup, so it runs after it.
	t.Cleanup(func() { heldCalls = nil })
	return entered, release
}

// mcpInitialize POSTs an MCP initialize request to base's /mcp and
// returns the status, the Retry-After header and the body.
func mcpInitialize(t *testing.T, base, token string) (int, string, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"shed-test","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), raw
}

// postWithHeaders POSTs an action and returns the response headers too.
func postWithHeaders(t *testing.T, base, action string, body any, header ...string) (int, http.Header, []byte) {
	t.Helper()
	return postVia(t, httpClient, base, action, body, header...)
}

// postVia is postWithHeaders through client c.
func postVia(t *testing.T, c *http.Client, base, action string, body any, header ...string) (int, http.Header, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, base+"/api/v1/actions/"+action, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// refusalOf decodes the contract envelope, failing the test where the body
// is not one.
func refusalOf(t *testing.T, raw []byte) apiErr {
	t.Helper()
	var e struct {
		Error *apiErr `json:"error"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Error == nil {
		t.Fatalf("the answer is not the contract's error envelope (%v): %s", err, raw)
	}
	return *e.Error
}

// TestServeShedsBeyondMaxInFlight: with max_in_flight calls held in
// flight, a further call of /api/v1/actions and a POST of /mcp are shed
// with 503, Retry-After and context_unavailable, recorded and counted,
// while /healthz, /readyz and /metrics answer; once the held calls end,
// calls are served again.
func TestServeShedsBeyondMaxInFlight(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	entered, release := holdCalls(t)
	cfg := testConfig(time.Hour)
	// Both held calls come from one address: it may take every slot, so
	// the bound of the server is what is reached.
	cfg.MaxInFlight, cfg.MaxInFlightPerCaller, cfg.QueueWait = 2, 2, 0
	const token = "shed-test-token"
	cfg.Credentials = []identity.Credential{{TokenSHA256: sha256Hex(token), Account: "acme", Application: "shed-bot"}}
	srv := startServer(t, dataDir, cfg)

	var held sync.WaitGroup
	heldCodes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		held.Add(1)
		go func() {
			defer held.Done()
			code, _, _ := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud"}, holdHeader, "1")
			heldCodes <- code
		}()
	}
	for i := 0; i < 2; i++ {
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the held calls did not reach the server")
		}
	}

	code, h, raw := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud", "query": privateWords}, "Authorization", "Bearer "+token)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") != "1" {
		t.Fatalf("a call beyond max_in_flight: %d, Retry-After %q; want 503 and 1: %s", code, h.Get("Retry-After"), raw)
	}
	e := refusalOf(t, raw)
	if e.Code != "context_unavailable" || !strings.Contains(e.Detail, "2 calls in flight") || strings.Contains(e.Detail, "zanzibar") {
		t.Fatalf("refusal %+v", e)
	}
	mcode, retry, mraw := mcpInitialize(t, srv.base, "")
	if mcode != http.StatusServiceUnavailable || retry != "1" || refusalOf(t, mraw).Code != "context_unavailable" {
		t.Fatalf("an MCP POST beyond max_in_flight: %d, Retry-After %q: %s", mcode, retry, mraw)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if c, body := getStatus(t, srv.base+p); c != http.StatusOK {
			t.Errorf("%s while calls are shed: %d %s; a probe must not wait on the bound", p, c, body)
		}
	}
	fams, _ := testkit.Scrape(t, srv.base+"/metrics")
	if v := series(fams, "tzctx_shed_total", map[string]string{"surface": "http"}).GetCounter().GetValue(); v != 1 {
		t.Errorf("tzctx_shed_total{surface=http} = %v, want 1", v)
	}
	if v := series(fams, "tzctx_shed_total", map[string]string{"surface": "mcp-http"}).GetCounter().GetValue(); v != 1 {
		t.Errorf("tzctx_shed_total{surface=mcp-http} = %v, want 1", v)
	}
	if v := series(fams, "tzctx_calls_in_flight", map[string]string{}).GetGauge().GetValue(); v != 2 {
		t.Errorf("tzctx_calls_in_flight = %v, want the 2 held", v)
	}
	if v := series(fams, "tzctx_calls_in_flight_limit", map[string]string{}).GetGauge().GetValue(); v != 2 {
		t.Errorf("tzctx_calls_in_flight_limit = %v, want 2", v)
	}
	if v := callsOf(fams, "acme", "shed-bot", "read_documentation", tzctx.TransportHTTP, "context_unavailable"); v != 1 {
		t.Errorf("tzctx_calls_total of the shed call as acme = %v, want 1", v)
	}

	close(release)
	held.Wait()
	for i := 0; i < 2; i++ {
		if c := <-heldCodes; c != http.StatusOK {
			t.Errorf("a held call answered %d once released, want 200", c)
		}
	}
	mustRead(t, srv.base, map[string]any{"tree": "cloud"})

	out := recordsJSON(t, dataDir)
	if strings.Contains(out, "zanzibar") {
		t.Fatal("a record holds the shed call's query words")
	}
	var shedHTTP, shedMCP int
	for _, r := range parseRecordsJSON(t, out) {
		if r.Code != "context_unavailable" {
			continue
		}
		switch {
		case r.Transport == tzctx.TransportHTTP && r.Action == "read_documentation" && r.Status == 503 && r.Account == "acme" && r.Credential == tzctx.CredentialPrefix(token):
			shedHTTP++
		case r.Transport == tzctx.TransportMCPHTTP && r.Action == "(unknown action)" && r.Status == 503:
			shedMCP++
		default:
			t.Errorf("unexpected context_unavailable record %+v", r)
		}
	}
	if shedHTTP != 1 || shedMCP != 1 {
		t.Errorf("shed records: %d over http, %d over mcp-http; want 1 each:\n%s", shedHTTP, shedMCP, out)
	}
}

// TestServeRateLimitsPerCredential: a credential past its bucket's burst
// is refused 429 rate_limited with Retry-After, over HTTP and MCP, while
// another credential and anonymous callers keep their own buckets; each
// refusal is recorded with its credential and counted.
func TestServeRateLimitsPerCredential(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := testConfig(time.Hour)
	// A bucket that refills once in 1000 s: nothing refills during the
	// test, so the split is exact.
	cfg.RateLimit = &RateLimitConfig{PerSecond: 0.001, Burst: 3, Anonymous: "per_address", MaxBuckets: 100}
	const alpha, beta = "rate-alpha-token", "rate-beta-token"
	cfg.Credentials = []identity.Credential{
		{TokenSHA256: sha256Hex(alpha), Account: "alpha", Application: "bot"},
		{TokenSHA256: sha256Hex(beta), Account: "beta", Application: "bot"},
	}
	srv := startServer(t, dataDir, cfg)

	for i := 0; i < 3; i++ {
		if code, _, raw := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer "+alpha); code != 200 {
			t.Fatalf("alpha's call %d of a burst of 3: %d %s", i+1, code, raw)
		}
	}
	code, h, raw := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud", "query": privateWords}, "Authorization", "Bearer "+alpha)
	if code != http.StatusTooManyRequests {
		t.Fatalf("alpha's 4th call: %d, want 429: %s", code, raw)
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 900 || s > 1000 {
		t.Errorf("Retry-After %q, want about the 1000 s a token takes to refill", h.Get("Retry-After"))
	}
	e := refusalOf(t, raw)
	if e.Code != "rate_limited" || strings.Contains(e.Detail, "zanzibar") || strings.Contains(e.Detail, alpha) || strings.Contains(e.Detail, tzctx.CredentialPrefix(alpha)) {
		t.Fatalf("refusal %+v", e)
	}
	t.Logf("rate-limited: %s", e.Detail)
	if mcode, retry, mraw := mcpInitialize(t, srv.base, alpha); mcode != http.StatusTooManyRequests || retry == "" || refusalOf(t, mraw).Code != "rate_limited" {
		t.Fatalf("alpha's MCP POST past its bucket: %d, Retry-After %q: %s", mcode, retry, mraw)
	}
	// beta and the anonymous callers of this address have their own.
	if code, _, raw := postWithHeaders(t, srv.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", "Bearer "+beta); code != 200 {
		t.Fatalf("beta was limited by alpha's calls: %d %s", code, raw)
	}
	if mcode, _, mraw := mcpInitialize(t, srv.base, beta); mcode != 200 {
		t.Fatalf("beta's MCP initialize: %d %s", mcode, mraw)
	}
	for i := 0; i < 3; i++ {
		mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	}
	if code, _, _ := postWithHeaders(t, srv.base, "list_context", map[string]any{}); code != http.StatusTooManyRequests {
		t.Fatalf("the 4th anonymous call of one address: %d, want 429", code)
	}
	// The probes are never limited.
	for i := 0; i < 5; i++ {
		if c, body := getStatus(t, srv.base+"/healthz"); c != 200 {
			t.Fatalf("/healthz: %d %s", c, body)
		}
	}

	fams, _ := testkit.Scrape(t, srv.base+"/metrics")
	if v := series(fams, "tzctx_rate_limited_total", map[string]string{"surface": "http"}).GetCounter().GetValue(); v != 2 {
		t.Errorf("tzctx_rate_limited_total{surface=http} = %v, want 2", v)
	}
	if v := series(fams, "tzctx_rate_limited_total", map[string]string{"surface": "mcp-http"}).GetCounter().GetValue(); v != 1 {
		t.Errorf("tzctx_rate_limited_total{surface=mcp-http} = %v, want 1", v)
	}
	if v := callsOf(fams, "alpha", "bot", "read_documentation", tzctx.TransportHTTP, "rate_limited"); v != 1 {
		t.Errorf("tzctx_calls_total of alpha's refused call = %v, want 1", v)
	}
	out := recordsJSON(t, dataDir)
	if strings.Contains(out, "zanzibar") {
		t.Fatal("a record holds the refused call's query words")
	}
	type key struct{ transport, action, account, credential string }
	got := map[key]int{}
	for _, r := range parseRecordsJSON(t, out) {
		if r.Code == "rate_limited" {
			if r.Status != 429 {
				t.Errorf("a rate_limited record of status %d", r.Status)
			}
			got[key{r.Transport, r.Action, r.Account, r.Credential}]++
		}
	}
	want := map[key]int{
		{tzctx.TransportHTTP, "read_documentation", "alpha", tzctx.CredentialPrefix(alpha)}:  1,
		{tzctx.TransportMCPHTTP, "(unknown action)", "alpha", tzctx.CredentialPrefix(alpha)}: 1,
		{tzctx.TransportHTTP, "list_context", "", ""}:                                        1,
	}
	if len(got) != len(want) {
		t.Fatalf("rate_limited records %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("rate_limited records %v, want %v", got, want)
		}
	}
}
