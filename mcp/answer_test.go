package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestHTTPToolAnswerAsWritten: a tools/call answered over streamable
// HTTP in a session carries the answer's text as written, as the HTTP
// API's body does (no \u003c for <), in a reply whose length is stated,
// and is the same result the in-process server answers: the structured
// content equal to the HTTP API's body, the text content equal member for
// member. A request of protocol version 2026-07-28, which has no session,
// is answered whole as well.
func TestHTTPToolAnswerAsWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url := f.base + "/mcp"
	code, sid, _, raw := initialize(t, url, "", 0)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", code, raw)
	}
	if st := status(t, http.MethodPost, url, "", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", st)
	}
	const page = "tzdocs/markdown/code-fences"
	args := map[string]any{"page": page, "limit": 16000}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_documentation","arguments":{"page":"` + page + `","limit":16000}}}`
	modernCall := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"read_documentation","arguments":{"page":"` + page + `","limit":16000}}}`

	// The in-process answer: mcp-go's own encoding of the result.
	want, ok := f.s.MCPServer().HandleMessage(t.Context(), []byte(call)).(mcpgo.JSONRPCResponse)
	if !ok {
		t.Fatal("in process, the call was refused")
	}
	wantRes := want.Result.(*mcpgo.CallToolResult)

	for _, tc := range []struct {
		name    string
		sid     string
		call    string
		headers []string
	}{
		{"session 2025-06-18", sid, call, nil},
		{"no session 2026-07-28", "", modernCall, []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "read_documentation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawMCP(t, http.MethodPost, url, "", tc.sid, tc.call, tc.headers...)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("tools/call: %d %v: %.300s", resp.StatusCode, err, body)
			}
			if strings.Contains(string(body), "tzctx-answer-") {
				t.Fatalf("the reply holds the placeholder: %.300s", body)
			}
			var got struct {
				ID     int                  `json:"id"`
				Result mcpgo.CallToolResult `json:"result"`
			}
			if err := json.Unmarshal(body, &got); err != nil || got.ID != 7 {
				t.Fatalf("not the call's JSON-RPC answer (%v): %.300s", err, body)
			}
			if got.Result.IsError || textOf(t, &got.Result) != textOf(t, wantRes) {
				t.Errorf("text content differs from the in-process answer:\n%.300q\nwant\n%.300q", textOf(t, &got.Result), textOf(t, wantRes))
			}
			api := f.postAPI(t, "read_documentation", args, "")
			var apiBody any
			if err := json.Unmarshal(api, &apiBody); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Result.StructuredContent, apiBody) {
				t.Errorf("structured content differs from the HTTP API's body:\n%.300v\nwant\n%.300s", got.Result.StructuredContent, api)
			}
			if tc.sid == "" {
				return // encoded by mcp-go whole, with the members it adds
			}
			for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if bytes.Contains(body, []byte(esc)) {
					t.Errorf("the reply escapes HTML (%s), where the HTTP API writes the text as written", esc)
				}
			}
			if !bytes.Contains(body, []byte("<Warning>")) {
				t.Errorf("the reply does not hold the page's <Warning> as written: %.300s", body)
			}
			if resp.ContentLength != int64(len(body)) {
				t.Errorf("Content-Length %d for a reply of %d bytes; the reply is whole before it is written", resp.ContentLength, len(body))
			}
		})
	}
}
