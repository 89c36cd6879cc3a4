package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
)

// fuzzVersions are the protocol versions a fuzzed session negotiates:
// before and from the one that answers schema violations as tool errors.
var fuzzVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// rpcMessage is one message the server wrote, as JSON-RPC 2.0 defines it.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	} `json:"error"`
}

// idKey is a JSON-RPC id in one spelling: its value as encoding/json
// reads and writes it, so that "&" and "\u0026", or 1 and 1.0, match.
func idKey(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// contractCodes are the codes a refused tool call may carry; internal is
// not among them, since a fuzzed message is never the server's fault.
var contractCodes = []tzctx.Code{tzctx.InvalidRequest, tzctx.ContextNotFound, tzctx.ContextChanged, tzctx.ContextUnavailable, tzctx.Unauthenticated}

// FuzzStdioMessage serves a stdio session whose client initializes at a
// fuzzed protocol version and then sends fuzzed bytes (one or more lines)
// followed by a ping. The session ends when its input ends, within a
// bound, and without error; everything it writes is a JSON-RPC 2.0
// message, a response holding exactly one of result and error, an error
// a code and a message; every request (a JSON object with a method and an
// id) gets a response; a line that is not JSON gets a parse error; a tool
// call's error result holds a text and, where it carries the envelope, a
// contract code; and the ping is still answered.
func FuzzStdioMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":50}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":0}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_documentation","arguments":{"page":"/cloud/nope/","offset":5}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_context","arguments":{"id":"overview","offset":3,"stamp":"x"}}}`,
		`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"list_context","arguments":"nope"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"tzctx://docs/cloud/page/guides/reading"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"tzctx://context/%ZZ"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"skill:nope","arguments":{"query":"x"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":11,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
		`{"jsonrpc":"1.0","id":13,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":14,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"read_documentation","arguments":{"query":"stamp","tree":"cloud","page":"/cloud/"}}}` + "\n" + `{"jsonrpc":"2.0","id":16,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"read_documentation","arguments":{"offset":-1,"limit":1e99,"stamp":null}}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":19,"method":"tools/call"`,
		`"just a string"`,
		`{}`,
		`{"id":0,"method":""}`,
	} {
		for v := range fuzzVersions {
			f.Add([]byte(s), uint8(v))
		}
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, msg []byte, version uint8) {
		v := fuzzVersions[int(version)%len(fuzzVersions)]
		var in bytes.Buffer
		in.WriteString(`{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		in.Write(msg)
		in.WriteString("\n" + `{"jsonrpc":"2.0","id":"fuzz-sentinel","method":"ping"}` + "\n")

		var out bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- fx.s.ServeStdio(ctx, &in, &out, "", anonymous) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("ServeStdio = %v", err)
			}
		case <-time.After(20 * time.Second):
			cancel()
			t.Fatalf("the session did not end within 20 s of its input ending")
		}

		responses := map[string][]rpcMessage{} // by compact id
		var parseErrors int
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			var m rpcMessage
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("the server wrote %q, not a JSON-RPC 2.0 message", line)
			}
			if m.Method != "" && m.ID == nil {
				continue // a notification
			}
			hasResult := len(m.Result) > 0 && string(m.Result) != "null"
			if hasResult == (m.Error != nil) {
				t.Fatalf("response %s holds not exactly one of result and error", line)
			}
			if m.Error != nil && (m.Error.Code == nil || m.Error.Message == nil) {
				t.Fatalf("error response %s lacks a code or a message", line)
			}
			if m.Error != nil && *m.Error.Code == mcpgo.PARSE_ERROR {
				parseErrors++
			}
			responses[idKey(m.ID)] = append(responses[idKey(m.ID)], m)
		}
		if r := responses[`"fuzz-sentinel"`]; len(r) != 1 || r[0].Error != nil {
			t.Fatalf("the ping after the fuzzed message was answered %d times (%+v)", len(r), r)
		}
		if r := responses[`"fuzz-init"`]; len(r) != 1 || r[0].Error != nil {
			t.Fatalf("initialize was answered %d times (%+v)", len(r), r)
		}

		wantParse := 0
		for _, line := range bytes.Split(msg, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			// The server answers -32700 with a null id to a line that is not
			// JSON, holds bytes that are not UTF-8, or whose envelope does
			// not decode (a "jsonrpc" or "method" member, in any case, that
			// is not a string), as mcp-go decodes it.
			var env struct {
				JSONRPC string `json:"jsonrpc"`
				Method  string `json:"method"`
			}
			if !json.Valid(line) || !utf8.Valid(line) || json.Unmarshal(line, &env) != nil {
				wantParse++
				continue
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method *string         `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &req) != nil || req.Method == nil || len(req.ID) == 0 || string(req.ID) == "null" {
				continue
			}
			if s := idKey(req.ID); strings.HasPrefix(s, `"fuzz-`) {
				continue
			}
			rs := responses[idKey(req.ID)]
			if len(rs) == 0 {
				var idv any
				if json.Unmarshal(req.ID, &idv) == nil {
					switch idv.(type) {
					case string, float64:
					default:
						continue // an id JSON-RPC does not allow; mcp-go may drop it
					}
				}
				t.Fatalf("request %s got no response", line)
			}
			if *req.Method != string(mcpgo.MethodToolsCall) {
				continue
			}
			for _, r := range rs {
				if r.Error != nil {
					continue
				}
				var res struct {
					IsError           bool              `json:"isError"`
					Content           []json.RawMessage `json:"content"`
					StructuredContent *struct {
						Error *struct {
							Code   string `json:"code"`
							Detail string `json:"detail"`
						} `json:"error"`
					} `json:"structuredContent"`
				}
				if err := json.Unmarshal(r.Result, &res); err != nil {
					t.Fatalf("tools/call result %s: %v", r.Result, err)
				}
				if len(res.Content) == 0 {
					t.Fatalf("tools/call result %s holds no content", r.Result)
				}
				if !res.IsError {
					continue
				}
				var text struct {
					Type, Text string
				}
				if json.Unmarshal(res.Content[0], &text) != nil || text.Type != "text" || text.Text == "" {
					t.Fatalf("tool error result %s does not hold a text", r.Result)
				}
				if sc := res.StructuredContent; sc != nil {
					if sc.Error == nil || !slices.Contains(contractCodes, tzctx.Code(sc.Error.Code)) || sc.Error.Detail != text.Text {
						t.Fatalf("tool error result %s does not carry a contract code and its detail", r.Result)
					}
				}
			}
		}
		if parseErrors < wantParse {
			t.Fatalf("%d lines are not JSON, %d parse errors answered:\n%s", wantParse, parseErrors, out.Bytes())
		}
	})
}

// postMCP POSTs body to the fixture's /mcp in session sid ("" for none)
// and answers the status and the JSON-RPC messages of the answer, read
// from a JSON body or from an event stream's data lines.
func postMCP(t *testing.T, fx *fixture, sid, version string, body []byte) (int, http.Header, []rpcMessage) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, fx.base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var payloads [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if d, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
				payloads = append(payloads, bytes.TrimSpace(d))
			}
		}
	} else if len(bytes.TrimSpace(raw)) > 0 {
		payloads = append(payloads, raw)
	}
	var out []rpcMessage
	for _, p := range payloads {
		var m rpcMessage
		if err := json.Unmarshal(p, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("POST /mcp answered %d with %q, not a JSON-RPC 2.0 message", resp.StatusCode, p)
		}
		out = append(out, m)
	}
	return resp.StatusCode, resp.Header, out
}

// FuzzHTTPMessage POSTs a fuzzed body to /mcp in a fresh session at a
// fuzzed protocol version. The server never answers 5xx; what it answers
// is JSON-RPC 2.0, each response holding exactly one of result and error
// (an error with a code and a message); a JSON request object with an id
// and a method is answered with that id; a body that is not JSON is
// refused with a parse error; and the session still answers a ping.
func FuzzHTTPMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":50}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":0}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_context","arguments":{"id":"nope"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"tzctx://docs/cloud/outline"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`not json`,
		``,
	} {
		for v := range fuzzVersions {
			f.Add([]byte(s), uint8(v))
		}
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, version uint8) {
		v := fuzzVersions[int(version)%len(fuzzVersions)]
		status, h, msgs := postMCP(t, fx, "", "", []byte(`{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`))
		sid := h.Get("Mcp-Session-Id")
		if status != http.StatusOK || sid == "" || len(msgs) != 1 || msgs[0].Error != nil {
			t.Fatalf("initialize answered %d, session %q, %+v", status, sid, msgs)
		}
		defer func() {
			req, _ := http.NewRequest(http.MethodDelete, fx.base+"/mcp", nil)
			req.Header.Set("Mcp-Session-Id", sid)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		status, _, msgs = postMCP(t, fx, sid, v, body)
		if status >= 500 {
			t.Fatalf("POST /mcp of %q answered %d", body, status)
		}
		for _, m := range msgs {
			if m.Method != "" && m.ID == nil {
				continue
			}
			hasResult := len(m.Result) > 0 && string(m.Result) != "null"
			if hasResult == (m.Error != nil) || (m.Error != nil && (m.Error.Code == nil || m.Error.Message == nil)) {
				t.Fatalf("response %+v is not a JSON-RPC result or error", m)
			}
		}
		var req struct {
			ID     any     `json:"id"`
			Method *string `json:"method"`
		}
		switch {
		case !json.Valid(body) || !utf8.Valid(body):
			// JSON text is UTF-8 (RFC 8259); Go's json.Valid lets invalid
			// UTF-8 in a string pass, the server answers it -32700.
			if len(msgs) != 1 || msgs[0].Error == nil || *msgs[0].Error.Code != mcpgo.PARSE_ERROR {
				t.Fatalf("a body that is not JSON answered %d with %+v, not a parse error", status, msgs)
			}
		case json.Unmarshal(body, &req) == nil && req.Method != nil && *req.Method != "":
			// mcp-go reads a message with an empty method and an id as a
			// client's response and accepts it (202) unanswered.
			switch req.ID.(type) {
			case string, float64: // the ids JSON-RPC allows, null aside
				want, _ := json.Marshal(req.ID)
				found := false
				for _, m := range msgs {
					found = found || idKey(m.ID) == string(want)
				}
				if !found {
					t.Fatalf("request %q answered %d without a response of its id: %+v", body, status, msgs)
				}
			}
		}
		status, _, msgs = postMCP(t, fx, sid, v, []byte(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`))
		if status != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
			t.Fatalf("after %q the session answered a ping %d with %+v", body, status, msgs)
		}
	})
}
