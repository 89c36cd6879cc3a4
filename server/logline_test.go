package server

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestOneLogLinePerCall: an action call over HTTP, by POST and by GET,
// and a tools/call over MCP each leave one log line, the call's, naming
// the action, its outcome and the request's method, path, status and
// duration; a request that is no call (/healthz) leaves one "http" line.
// No line holds the query's words or the query string.
func TestOneLogLinePerCall(t *testing.T) {
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "lines")
	logs := defaultLogs(t)
	srv := startServer(t, dataDir, testConfig(time.Hour))
	c := mcpSession(t, srv.base, "")

	// linesOf runs do and returns the log lines it added, once the line
	// naming the request's method is written (after the answer, which the
	// client may hold first); the call's record is logged before it, or in
	// it.
	linesOf := func(do func()) []string {
		t.Helper()
		before := len(logs.String())
		do()
		if !waitFor(5*time.Second, func() bool { return strings.Contains(logs.String()[before:], " method=") }) {
			t.Fatalf("no log line names the request's method:\n%s", logs.String()[before:])
		}
		return strings.Split(strings.TrimSpace(logs.String()[before:]), "\n")
	}
	for _, tc := range []struct {
		name string
		do   func()
		want []string
	}{
		{"POST", func() {
			if code, _, raw, err := post(srv.base, "read_documentation", map[string]any{"query": privateWords}); err != nil || code != http.StatusOK {
				t.Fatalf("POST search: %d %.300s %v", code, raw, err)
			}
		}, []string{"msg=call ", "action=read_documentation ", "transport=http ", "code=ok ", "status=200 ", "method=POST ", "path=/api/v1/actions/read_documentation ", "http_status=200 ", " ms="}},
		{"GET", func() {
			resp, err := httpClient.Get(srv.base + "/api/v1/actions/read_documentation?page=/cloud/no/such/page/&limit=100")
			if err != nil || resp.StatusCode != http.StatusNotFound {
				t.Fatalf("GET of a missing page: %v %v", resp, err)
			}
			resp.Body.Close()
		}, []string{"msg=call ", "action=read_documentation ", "code=context_not_found ", "status=404 ", "method=GET ", "path=/api/v1/actions/read_documentation ", "http_status=404 "}},
		{"MCP", func() {
			if res := mcpCall(t, c, "read_documentation", map[string]any{"query": privateWords}); res.IsError {
				t.Fatalf("MCP search: %+v", res.Content)
			}
		}, []string{"msg=call ", "action=read_documentation ", "transport=mcp-http ", "code=ok ", "method=POST ", "path=/mcp ", "http_status=200 "}},
		{"healthz", func() {
			resp, err := httpClient.Get(srv.base + "/healthz")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /healthz: %v %v", resp, err)
			}
			resp.Body.Close()
		}, []string{"msg=http ", "method=GET ", "path=/healthz ", "status=200 "}},
	} {
		lines := linesOf(tc.do)
		if len(lines) != 1 {
			t.Errorf("%s: %d log lines, want 1:\n%s", tc.name, len(lines), strings.Join(lines, "\n"))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(lines[0], w) {
				t.Errorf("%s: the log line lacks %q: %s", tc.name, w, lines[0])
			}
		}
	}
	out := strings.ToLower(logs.String())
	for _, w := range append(strings.Fields(privateWords), "limit=", "no/such") {
		if strings.Contains(out, w) {
			t.Errorf("the log holds %q:\n%s", w, out)
		}
	}
}
