package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestChainRecoversOnce: a panic in a handler of the main listener, an
// action call's over HTTP and an MCP request's, is recovered once by the
// listener's one chain: answered 500 with the contract's envelope,
// logged once ("request panicked", without the words the panic value
// holds), and the request leaves one access log line, of status 500.
func TestChainRecoversOnce(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "chain")
	logs := defaultLogs(t)
	heldCalls = func(http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("answering " + privateWords) })
	}
	t.Cleanup(func() { heldCalls = nil })
	srv := startServer(t, dataDir, testConfig(time.Hour))
	const envelope = `{"error":{"code":"internal","detail":"the server failed to answer; try again"}}` + "\n"
	for _, path := range []string{"/api/v1/actions/list_context", "/mcp"} {
		before := len(logs.String())
		resp, err := httpClient.Post(srv.base+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatalf("POST %s: %v; want the panic answered 500", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || string(body) != envelope {
			t.Errorf("POST %s = %d %q, want 500 and the internal envelope", path, resp.StatusCode, body)
		}
		// The access line is written once the answer is, last.
		if !waitFor(5*time.Second, func() bool { return strings.Contains(logs.String()[before:], " method=POST") }) {
			t.Fatalf("POST %s: no access log line:\n%s", path, logs.String()[before:])
		}
		got := logs.String()[before:]
		if n := strings.Count(got, "request panicked"); n != 1 {
			t.Errorf("POST %s: the panic logged %d times, want once:\n%s", path, n, got)
		}
		if n := strings.Count(got, " method=POST"); n != 1 || !strings.Contains(got, "status=500") {
			t.Errorf("POST %s: %d access log lines, want one of status 500:\n%s", path, n, got)
		}
		for _, w := range strings.Fields(privateWords) {
			if strings.Contains(got, w) {
				t.Errorf("POST %s: the panic's word %q was logged:\n%s", path, w, got)
			}
		}
	}
}
