package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/mcp"
)

// rawStdio is a client of ServeStdio that writes lines as given and reads
// the answers.
type rawStdio struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

// rawStdio serves s over pipes to an anonymous caller, initialized at
// protocol version 2025-06-18, and stops at the test's end.
func newRawStdio(t *testing.T, s *mcp.Server) *rawStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawStdio{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		r.done <- s.ServeStdio(context.Background(), inR, outW, "", anonymous)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		select {
		case err := <-r.done:
			if err != nil {
				t.Errorf("ServeStdio = %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("ServeStdio did not return within 20 s of its input closing")
		}
	})
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	return r
}

// send writes one line and returns the next answer (a message with an
// id), skipping notifications.
func (r *rawStdio) send(line string) map[string]json.RawMessage {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
	for {
		b, err := r.out.ReadBytes('\n')
		if err != nil {
			r.t.Fatalf("reading the answer: %v", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			r.t.Fatalf("an answer that is not JSON: %.200q", b)
		}
		if _, ok := m["id"]; ok {
			return m
		}
	}
}

// rpcErrorOf is an answer's JSON-RPC error; it fails the test where the
// answer is none.
func rpcErrorOf(t *testing.T, what string, m map[string]json.RawMessage) rpcError {
	t.Helper()
	var e rpcError
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("%s: answered %.300s, not an error", what, m["result"])
	}
	return e
}

// TestMethodsAreEchoedBounded: a request whose method is long, or has a
// step that is no plain name, is answered -32601 naming the method by its
// length, on both transports; mcp-go echoed the whole method.
func TestMethodsAreEchoedBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdio := newRawStdio(t, f.s)
	web := f.initHTTP(t, "2025-06-18", "")
	for _, method := range []string{
		strings.Repeat("m", 50_000),
		strings.Repeat("a/", 25_000),
		"tools/" + strings.Repeat("x", 41),
		"what secret words",
	} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q}`, method)
		for name, m := range map[string]map[string]json.RawMessage{"stdio": stdio.send(msg), "http": func() map[string]json.RawMessage { _, m, _ := web.post(msg); return m }()} {
			e := rpcErrorOf(t, name, m)
			want := fmt.Sprintf("Method (a name of %d bytes) not found", len(method))
			if e.Code != -32601 || e.Message != want || string(m["id"]) != "7" {
				t.Errorf("%s, a method of %d bytes: answered id %s %d %.200q, want id 7 -32601 %q", name, len(method), m["id"], e.Code, e.Message, want)
			}
		}
	}
	// A short plain method is mcp-go's to answer, as before.
	e := rpcErrorOf(t, "stdio", stdio.send(`{"jsonrpc":"2.0","id":8,"method":"tools/nothing"}`))
	if e.Code != -32601 || !strings.Contains(e.Message, "tools/nothing") {
		t.Errorf("an unknown plain method: %d %q", e.Code, e.Message)
	}
	// The session still answers.
	if m := stdio.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`); len(m["result"]) == 0 {
		t.Errorf("ping after the refusals: %s", m["error"])
	}
}

// TestInvalidUTF8IsAParseError: bytes that are not UTF-8 anywhere in a
// message are -32700 with a null id on both transports
// (contracts/choices/callers.md#ch-malformed-requests, "Over MCP too"),
// and a call carrying them is recorded refused; mcp-go
// answered them in a method -32601.
func TestInvalidUTF8IsAParseError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdio := newRawStdio(t, f.s)
	web := f.initHTTP(t, "2025-11-25", "")
	for _, c := range []struct {
		msg, action string
	}{
		{"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/\xffcall\",\"params\":{}}", ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"\xc0\xaf\"}", ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"read_documentation\",\"arguments\":{\"tree\":\"cloud\",\"query\":\"a\xff\xfeb\"}}}", "read_documentation"},
		{"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":{\"uri\":\"tzctx://context/over\xffview\"}}", "read_context"},
	} {
		for _, name := range []string{"stdio", "http"} {
			before := len(f.rec.all())
			var m map[string]json.RawMessage
			if name == "stdio" {
				m = stdio.send(c.msg)
			} else {
				_, m, _ = web.post(c.msg)
			}
			e := rpcErrorOf(t, name, m)
			if e.Code != -32700 || !strings.Contains(e.Message, "not UTF-8") || string(m["id"]) != "null" {
				t.Errorf("%s %.60q: answered id %s %d %q, want id null -32700 naming UTF-8", name, c.msg, m["id"], e.Code, e.Message)
			}
			recs := f.rec.all()[before:]
			if c.action == "" && len(recs) != 0 {
				t.Errorf("%s %.60q: recorded %+v, want no record: it calls no action", name, c.msg, recs)
			}
			if c.action != "" && (len(recs) != 1 || recs[0].Action != c.action || recs[0].Code != string(tzctx.InvalidRequest) || recs[0].Subject != "") {
				t.Errorf("%s %.60q: recorded %+v, want one invalid_request of %s without subject", name, c.msg, recs, c.action)
			}
		}
	}
}

// TestLongResourceURIs: a resources/read URI over the bound (64 + 12 ×
// id_max_length bytes) is refused without mcp-go's template matching: one
// that a template's prefix names as the HTTP API refuses its ID or page,
// any other naming the bound, each recorded under read_context, on both
// transports. mcp-go matched the templates at about 2 µs a byte and
// answered a URI no template matched by echoing it whole.
func TestLongResourceURIs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdio := newRawStdio(t, f.s)
	web := f.initHTTP(t, "2025-06-18", "")
	long := strings.Repeat("a", 60_000) // within the fixture's 64 KiB body limit
	apiDetail := func(action string, args map[string]any) string {
		var env struct {
			Error struct{ Code, Detail string }
		}
		if err := json.Unmarshal(f.postAPI(t, action, args, ""), &env); err != nil || env.Error.Code != "invalid_request" {
			t.Fatalf("the HTTP API answered %s %v with %+v", action, args, env)
		}
		return "invalid_request: " + env.Error.Detail
	}
	for _, c := range []struct {
		uri, action, want string
	}{
		{mcp.ContextPrefix + long, "read_context", apiDetail("read_context", map[string]any{"id": long})},
		{mcp.DocsPrefix + "cloud/page/" + long, "read_documentation", apiDetail("read_documentation", map[string]any{"tree": "cloud", "page": "/cloud/" + long})},
		{"tzctx://elsewhere/" + long, "read_context", "invalid_request: the resource URI is 60018 bytes long, over the bound of 1984 (an ID or page route holds at most 160 characters); resources/list and resources/templates/list give the URIs"},
		{mcp.DocsPrefix + "cloud/" + long, "read_context", "invalid_request: the resource URI is 60019 bytes long, over the bound of 1984 (an ID or page route holds at most 160 characters); resources/list and resources/templates/list give the URIs"},
	} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":%q}}`, c.uri)
		for _, name := range []string{"stdio", "http"} {
			before := len(f.rec.all())
			var m map[string]json.RawMessage
			if name == "stdio" {
				m = stdio.send(msg)
			} else {
				_, m, _ = web.post(msg)
			}
			e := rpcErrorOf(t, name, m)
			if e.Code != -32603 || e.Message != c.want || string(m["id"]) != `"r"` {
				t.Errorf("%s %.40s…: answered id %s %d %.300q, want -32603 %q", name, c.uri, m["id"], e.Code, e.Message, c.want)
			}
			recs := f.rec.all()[before:]
			if len(recs) != 1 || recs[0].Action != c.action || recs[0].Code != string(tzctx.InvalidRequest) {
				t.Errorf("%s %.40s…: recorded %+v, want one invalid_request of %s", name, c.uri, recs, c.action)
			}
		}
	}
	// A URI within the bound is read as before.
	m := stdio.send(`{"jsonrpc":"2.0","id":"ok","method":"resources/read","params":{"uri":"` + mcp.ContextURI("overview") + `"}}`)
	if len(m["result"]) == 0 || !strings.Contains(string(m["result"]), "Turn Zero Cloud") {
		t.Errorf("reading the overview: %.300s %s", m["result"], m["error"])
	}
}

// TestStdioRefusesLongLinesWhileReading: a stdio line over the bound is
// answered -32600 naming the bound, with the id its first bytes give, and
// recorded under the action they name; the session then reads the next
// line. (The process-level test, with peak memory, is cmd/tzctx's.)
func TestStdioRefusesLongLinesWhileReading(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, err := mcp.New(f.d, mcp.Options{LineLimit: 4096, Trees: f.trees})
	if err != nil {
		t.Fatal(err)
	}
	stdio := newRawStdio(t, s)
	big := strings.Repeat("q", 1<<20)
	const detail = "the message is over the size bound of 4096 bytes; send a smaller message"
	for _, c := range []struct {
		line, id, action string
	}{
		{`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"read_documentation","arguments":{"query":"` + big + `"}}}`, `"big"`, "read_documentation"},
		{`{"jsonrpc":"2.0","method":"resources/read","id":12,"params":{"uri":"` + big + `"}}`, "12", "read_context"},
		{`{"jsonrpc":"2.0","params":{"arguments":{"query":"` + big + `"},"name":"read_documentation"},"id":3}`, "null", "(unknown action)"},
		{strings.Repeat(" ", 5000) + `{"id":4}`, "null", "(unknown action)"},
		{"[" + big + "]", "null", "(unknown action)"},
	} {
		before := len(f.rec.all())
		m := stdio.send(c.line)
		e := rpcErrorOf(t, "stdio", m)
		if e.Code != -32600 || e.Message != detail || string(m["id"]) != c.id {
			t.Errorf("%.60s…: answered id %s %d %q, want id %s -32600 %q", c.line, m["id"], e.Code, e.Message, c.id, detail)
		}
		recs := f.rec.all()[before:]
		if len(recs) != 1 || recs[0].Action != c.action || recs[0].Code != string(tzctx.InvalidRequest) || recs[0].Status != 413 {
			t.Errorf("%.60s…: recorded %+v, want one invalid_request (413) of %s", c.line, recs, c.action)
		}
	}
	// A line at the bound is read, and the session goes on.
	pad := strings.Repeat(" ", 4096-len(`{"jsonrpc":"2.0","id":"at","method":"ping"}`))
	if m := stdio.send(`{"jsonrpc":"2.0","id":"at","method":"ping"}` + pad); len(m["result"]) == 0 {
		t.Errorf("a line of exactly 4096 bytes: %s", m["error"])
	}
	res := stdio.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","limit":50}}}`)
	if len(res["result"]) == 0 || strings.Contains(string(res["result"]), `"isError":true`) {
		t.Errorf("a call after the refusals: %.300s %s", res["result"], res["error"])
	}
}
