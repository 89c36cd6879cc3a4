package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestToolsSnapshot: tools/list is the golden file testdata/tools.json,
// and each tool is its action as the contract defines it: the contract
// description quoted, the request schema as input (its tree enumeration
// narrowed to the caller's trees), an object output schema admitting the
// response and the error envelope, the enumeration's annotations.
func TestToolsSnapshot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp := f.s.MCPServer().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list answered %s (%v)", raw, err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	got := indented.Bytes()
	golden := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./mcp -run TestToolsSnapshot -update)", err)
	}
	if string(want) != string(got)+"\n" {
		t.Errorf("tools/list differs from %s; regenerate with -update if the change is meant:\n%s", golden, got)
	}

	contract, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rawTool := range list.Result.Tools {
		var tool struct {
			Name         string              `json:"name"`
			Description  string              `json:"description"`
			InputSchema  map[string]any      `json:"inputSchema"`
			OutputSchema map[string]any      `json:"outputSchema"`
			Annotations  schemas.Annotations `json:"annotations"`
		}
		if err := json.Unmarshal(rawTool, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		a, err := contract.Action(tool.Name)
		if err != nil {
			t.Fatalf("tool %s: %v", tool.Name, err)
		}
		if tool.Description != a.Description {
			t.Errorf("tool %s: description %q, want the contract's %q", tool.Name, tool.Description, a.Description)
		}
		in, out := tool.InputSchema, tool.OutputSchema
		// The tree enumeration lists the trees this caller (anonymous)
		// can read in the served version, not the contract's three.
		wantIn := roundTripMap(t, a.Request)
		if tree, ok := wantIn["properties"].(map[string]any)["tree"].(map[string]any); ok {
			tree["enum"] = []any{"cloud", "tzdocs"}
		}
		if !reflect.DeepEqual(in, wantIn) {
			t.Errorf("tool %s: input schema is not the request schema with the caller's trees", tool.Name)
		}
		if in["type"] != "object" || out["type"] != "object" {
			t.Errorf("tool %s: schemas' roots are %v and %v, want object", tool.Name, in["type"], out["type"])
		}
		anyOf, _ := out["anyOf"].([]any)
		if len(anyOf) != 2 || !reflect.DeepEqual(anyOf[0], roundTripMap(t, a.Response)) {
			t.Errorf("tool %s: output schema's first branch is not the response schema", tool.Name)
		}
		if tool.Annotations != a.Annotations {
			t.Errorf("tool %s: annotations %+v, want the enumeration's %+v", tool.Name, tool.Annotations, a.Annotations)
		}
	}
	if strings.Join(names, ",") != "list_context,list_library,read_context,read_documentation,read_library_entry,search_documentation" {
		t.Errorf("tools %v, want the six registered actions", names)
	}
}

func roundTripMap(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAnswersMatchHTTP: for the same calls, the structured content of the
// MCP result is the HTTP body byte for byte (both as they cross the
// wire), answers and refusals alike, over both transports and for
// anonymous and signed-in callers, and recorded alike; a refusal is isError with its detail
// as text, an answer carries its chunk, stamp and next offset as text.
func TestAnswersMatchHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	type tc struct {
		action string
		args   map[string]any
	}
	calls := []tc{
		{"read_documentation", map[string]any{"tree": "cloud"}},
		{"read_documentation", map[string]any{"tree": "cloud", "part": "full", "limit": 3000}},
		{"read_documentation", map[string]any{"tree": "tzdocs", "part": "outline"}},
		{"read_documentation", map[string]any{"page": "/cloud/reference/http/", "limit": 1500}},
		{"read_documentation", map[string]any{"tree": "cloud", "query": "stamp <offset> & limit"}},
		{"read_documentation", map[string]any{"query": "CTX-07"}},
		{"read_documentation", map[string]any{"tree": "blueprint"}},
		{"read_documentation", map[string]any{"page": "/cloud/no-such-page/"}},
		{"read_documentation", map[string]any{"tree": "cloud", "offset": 10}},
		{"read_context", map[string]any{"id": "overview", "limit": 500}},
		{"read_context", map[string]any{"id": "docs:tzdocs:full"}},
		{"read_context", map[string]any{"id": "payload:read_context"}},
		{"read_context", map[string]any{"id": "docs:blueprint"}},
		{"read_context", map[string]any{"id": "no-such-entry"}},
		{"list_context", map[string]any{}},
	}
	for _, token := range []string{"", tokenBlueprint} {
		for name, c := range f.transports(t, token) {
			for _, call := range calls {
				httpBody := f.postAPI(t, call.action, call.args, token)
				httpRec := lastRecord(t, f)
				res := callTool(t, c, call.action, call.args)
				mcpRec := lastRecord(t, f)
				if httpRec.Transport != "http" || mcpRec.Transport != "mcp-"+name {
					t.Errorf("%s %s: transports recorded %q and %q", name, call.action, httpRec.Transport, mcpRec.Transport)
				}
				// The records differ in their transport alone.
				mcpRec.Transport = httpRec.Transport
				if mcpRec != httpRec {
					t.Errorf("%s %s %v: MCP recorded %+v, HTTP %+v", name, call.action, call.args, mcpRec, httpRec)
				}
				if len(res.RawStructuredContent) == 0 {
					t.Errorf("%s %s %v: no structured content", name, call.action, call.args)
					continue
				}
				if got, want := wire(t, res.RawStructuredContent), wire(t, httpBody); got != want {
					t.Errorf("%s token %q %s %v:\nMCP  %.300s\nHTTP %.300s", name, token, call.action, call.args, got, want)
				}
				var env struct {
					Error *struct{ Code, Detail string } `json:"error"`
					Text  *string                        `json:"text"`
					Stamp string                         `json:"stamp"`
				}
				if err := json.Unmarshal(httpBody, &env); err != nil {
					t.Fatal(err)
				}
				switch {
				case env.Error != nil:
					if !res.IsError || textOf(t, res) != env.Error.Detail {
						t.Errorf("%s %s %v: refusal isError=%v text %q, want isError and the detail", name, call.action, call.args, res.IsError, textOf(t, res))
					}
				case res.IsError:
					t.Errorf("%s %s %v: an answer marked isError", name, call.action, call.args)
				case env.Text != nil:
					text := textOf(t, res)
					if !strings.HasPrefix(text, *env.Text) || !strings.Contains(text, "stamp: "+env.Stamp) || !strings.Contains(text, "next_offset: ") {
						t.Errorf("%s %s %v: text content %.200q lacks the chunk, stamp or next offset", name, call.action, call.args, text)
					}
				}
			}
		}
	}
}

// TestURIs: the URI forms escape what a content ID or route holds.
func TestURIs(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]string{
		mcp.ContextURI("overview"):                     "tzctx://context/overview",
		mcp.ContextURI("docs:cloud:full"):              "tzctx://context/docs:cloud:full",
		mcp.ContextURI("source:contracts/overview.md"): "tzctx://context/source:contracts%2Foverview.md",
		mcp.PageURI("cloud", "/guides/my page/"):       "tzctx://docs/cloud/page/guides/my%20page",
		mcp.PageURI("cloud", ""):                       "tzctx://docs/cloud/page/",
		mcp.OutlineURI("tzdocs"):                       "tzctx://docs/tzdocs/outline",
	} {
		if got != want {
			t.Errorf("URI %q, want %q", got, want)
		}
	}
}

// lastRecord is the dispatcher's last record, less its time and duration.
func lastRecord(t *testing.T, f *fixture) tzctx.Record {
	t.Helper()
	recs := f.rec.all()
	if len(recs) == 0 {
		t.Fatal("no record")
	}
	r := recs[len(recs)-1]
	r.Time, r.Duration = time.Time{}, 0
	return r
}
