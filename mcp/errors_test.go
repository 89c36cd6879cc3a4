package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// rpcSession is a raw JSON-RPC conversation with /mcp at one protocol
// version.
type rpcSession struct {
	t       *testing.T
	url     string
	version string
	session string
	token   string
	header  map[string]string
}

// initHTTP initializes a raw session at version.
func (f *fixture) initHTTP(t *testing.T, version, token string) *rpcSession {
	t.Helper()
	s := &rpcSession{t: t, url: f.base + "/mcp", version: version, token: token}
	status, _, hdr := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if status != http.StatusOK {
		t.Fatalf("initialize at %s: status %d", version, status)
	}
	s.session = hdr.Get("Mcp-Session-Id")
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// post sends one message and returns the status, the JSON-RPC message
// answered (from a JSON or an event-stream body) and the headers.
func (s *rpcSession) post(body string) (int, map[string]json.RawMessage, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	for k, v := range s.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(d)
			}
		}
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, resp.Header
}

// rpcError is a JSON-RPC error member.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// toolResult is a tools/call result as it crosses the wire.
type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// violations are calls whose arguments break the input schema, with a
// word of the detail each must answer.
// A call whose arguments are no object is refused before the
// dispatcher has arguments, and recorded as HTTP records a body that is
// no object: without credential.
var violations = []struct {
	args, detail, credential string
}{
	{`{"tree":"cloud","limit":0}`, "member limit must be at least 1", "pat"},
	{`{"tree":"cloud","limit":1.0}`, "member limit must be an integer literal", "pat"},
	{`{"tree":"cloud","limit":"8000"}`, "member limit must be of type integer", "pat"},
	{`{"tree":"cloud","colour":"red"}`, "unknown member colour", "pat"},
	{`{"query":"` + strings.Repeat("q", 161) + `"}`, "member query is 161 characters long", "pat"},
	{`[1,2]`, "the arguments must be a JSON object", "pat"},
	// Refused as HTTP refuses such a body, not read as the last value or
	// as U+FFFD by encoding/json.
	{`{"tree":"nope","tree":"cloud"}`, "member tree is given more than once", "pat"},
	{`{"tree":"cloud","x":{"a":1,"a":2}}`, "member x/a is given more than once", "pat"},
	{`{"query":"\ud800 lonely"}`, "member query is not valid UTF-8", "pat"},
}

// TestSchemaViolationsFollowTheProtocolVersion: up to 2025-06-18
// a schema violation is the JSON-RPC error -32602 with the dispatcher's
// detail; from 2025-11-25 on it is a tool result with isError, the detail
// as text and no envelope. Neither carries the plane's invalid_request
// envelope, and each is recorded as a refused call. A handler's refusal
// is the envelope at every version.
func TestSchemaViolationsFollowTheProtocolVersion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		old := version < "2025-11-25"
		s := f.initHTTP(t, version, tokenPlain)
		for i, v := range violations {
			before := len(f.rec.all())
			_, m, _ := s.post(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":{"name":"read_documentation","arguments":` + v.args + `}}`)
			if strings.Contains(string(m["result"])+string(m["error"]), "invalid_request") {
				t.Errorf("%s %s: the answer carries the plane's invalid_request envelope: %s%s", version, v.args, m["result"], m["error"])
			}
			if old {
				var e rpcError
				if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != -32602 || !strings.Contains(e.Message, v.detail) {
					t.Errorf("%s %s: answered %s %s, want -32602 saying %q", version, v.args, m["error"], m["result"], v.detail)
				}
			} else {
				var r toolResult
				if err := json.Unmarshal(m["result"], &r); err != nil || !r.IsError || len(r.StructuredContent) != 0 || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, v.detail) {
					t.Errorf("%s %s: answered %s %s, want an isError result saying %q without structured content", version, v.args, m["error"], m["result"], v.detail)
				}
			}
			recs := f.rec.all()[before:]
			if len(recs) != 1 || recs[0].Action != "read_documentation" || recs[0].Code != string(tzctx.InvalidRequest) || recs[0].Account != v.credential {
				t.Errorf("%s %s: records %+v, want one invalid_request of read_documentation by %q", version, v.args, recs, v.credential)
			}
		}
		// Raw bytes that are not UTF-8 are refused too: mcp-go's
		// transport refuses the message as not valid JSON (-32700)
		// before it reaches a tool.
		_, m, _ := s.post("{\"jsonrpc\":\"2.0\",\"id\":98,\"method\":\"tools/call\",\"params\":{\"name\":\"read_documentation\",\"arguments\":{\"query\":\"a\xff\xfeb\"}}}")
		var raw toolResult
		if len(m["error"]) == 0 && (json.Unmarshal(m["result"], &raw) != nil || !raw.IsError) {
			t.Errorf("%s: arguments holding bytes FF FE answered %s, want a refusal", version, m["result"])
		}
		_, m, _ = s.post(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","offset":5}}}`)
		var r toolResult
		if err := json.Unmarshal(m["result"], &r); err != nil || !r.IsError || !strings.Contains(string(r.StructuredContent), `"code":"invalid_request"`) {
			t.Errorf("%s: a handler refusal answered %s %s, want isError with the envelope", version, m["error"], m["result"])
		}
	}
}

// TestStdioSchemaViolations: over stdio, the version the client
// negotiated decides too.
func TestStdioSchemaViolations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		inR, inW := io.Pipe()
		var out syncBuf
		done := make(chan error, 1)
		go func() { done <- f.s.ServeStdio(context.Background(), inR, &out, "", anonymous) }()
		lines := []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":0}}}`,
		}
		for _, l := range lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		var got map[string]json.RawMessage
		deadline := time.Now().Add(10 * time.Second)
		for got == nil && time.Now().Before(deadline) {
			sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
			for sc.Scan() {
				var m map[string]json.RawMessage
				if json.Unmarshal(sc.Bytes(), &m) == nil && string(m["id"]) == `"a"` {
					got = m
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		inW.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if version < "2025-11-25" {
			var e rpcError
			if json.Unmarshal(got["error"], &e) != nil || e.Code != -32602 {
				t.Errorf("%s: answered %v, want -32602", version, got)
			}
		} else {
			var r toolResult
			if json.Unmarshal(got["result"], &r) != nil || !r.IsError || len(r.StructuredContent) != 0 {
				t.Errorf("%s: answered %v, want an isError result", version, got)
			}
		}
	}
}

// TestHTTPFront: the Origin allow-list (configured and loopback origins
// pass, others are refused 403, no Origin passes), bearer credentials
// (an unknown one is refused 401) and the body limit (413).
func TestHTTPFront(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for _, tc := range []struct {
		origin, token string
		want          int
	}{
		{"", "", http.StatusOK},
		{"http://localhost:6274", "", http.StatusOK},
		{"http://127.0.0.1:3000", "", http.StatusOK},
		{"https://agents.example", "", http.StatusOK},
		{"https://evil.example", "", http.StatusForbidden},
		{"http://localhost.evil.example", "", http.StatusForbidden},
		{"null", "", http.StatusForbidden},
		{"", tokenBlueprint, http.StatusOK},
		{"", "not-a-credential", http.StatusUnauthorized},
	} {
		s := &rpcSession{t: t, url: f.base + "/mcp", token: tc.token, header: map[string]string{}}
		if tc.origin != "" {
			s.header["Origin"] = tc.origin
		}
		status, m, hdr := s.post(init)
		if status != tc.want {
			t.Errorf("origin %q token %q: status %d, want %d (%s)", tc.origin, tc.token, status, tc.want, m["error"])
		}
		if status == http.StatusOK && tc.origin != "" && hdr.Get("Access-Control-Allow-Origin") != tc.origin {
			t.Errorf("origin %q: Access-Control-Allow-Origin %q", tc.origin, hdr.Get("Access-Control-Allow-Origin"))
		}
		if status != http.StatusOK && len(m["error"]) == 0 {
			t.Errorf("origin %q token %q: refusal is no JSON-RPC error", tc.origin, tc.token)
		}
	}
	s := f.initHTTP(t, "2025-11-25", "")
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_documentation","arguments":{"query":"` + strings.Repeat("x", 70<<10) + `"}}}`
	if status, _, _ := s.post(big); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: status %d, want 413", status)
	}
}

// syncBuf is a bytes.Buffer safe for one writer and one reader.
type syncBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuf) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}
