package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLibraryOverMCP: over both transports, list_library lists the gated
// entry to its holder alone, read_library_entry pages a .json file that
// joins to the HTTP API's whole read, and a gated entry is refused to a
// caller without its profile; every call is recorded under the library or
// the entry's ID, never under a name that names no entry.
func TestLibraryOverMCP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var whole struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(f.postAPI(t, "read_library_entry", map[string]any{"name": "error-codes", "path": "codes.json", "limit": 16000}, ""), &whole); err != nil || whole.Text == "" {
		t.Fatalf("HTTP read: %v", err)
	}
	for name, c := range f.transports(t, tokenPlain) {
		t.Run(name, func(t *testing.T) {
			list := callTool(t, c, "list_library", map[string]any{})
			if list.IsError || strings.Contains(wireOf(t, list.StructuredContent), "service-template") || !strings.Contains(wireOf(t, list.StructuredContent), `"total":3`) {
				t.Fatalf("list_library = %s, want the three ungated entries", wireOf(t, list.StructuredContent))
			}
			var b strings.Builder
			args := map[string]any{"name": "error-codes", "path": "codes.json", "limit": 2000}
			for {
				res := callTool(t, c, "read_library_entry", args)
				if res.IsError {
					t.Fatalf("read_library_entry %v: %s", args, textOf(t, res))
				}
				var a struct {
					Text       string `json:"text"`
					Stamp      string `json:"stamp"`
					NextOffset *int   `json:"next_offset"`
					MimeType   string `json:"mime_type"`
				}
				if err := json.Unmarshal([]byte(wireOf(t, res.StructuredContent)), &a); err != nil {
					t.Fatal(err)
				}
				if a.MimeType != "application/json" {
					t.Errorf("mime_type %q, want application/json", a.MimeType)
				}
				b.WriteString(a.Text)
				if a.NextOffset == nil {
					break
				}
				args["offset"], args["stamp"] = *a.NextOffset, a.Stamp
			}
			if b.String() != whole.Text {
				t.Errorf("the MCP chunks do not join to the file")
			}
			if res := callTool(t, c, "read_library_entry", map[string]any{"name": "service-template"}); !res.IsError || !strings.Contains(textOf(t, res), "names no library entry") {
				t.Errorf("the gated entry to a caller without its profile = %v", res.Content)
			}
		})
	}
	for _, c := range f.transports(t, tokenBlueprint) {
		if list := callTool(t, c, "list_library", map[string]any{}); !strings.Contains(wireOf(t, list.StructuredContent), "service-template") {
			t.Errorf("the holder's list_library lacks the gated entry")
		}
	}
	for _, r := range f.rec.all() {
		if (r.Action == "list_library" && r.Subject != "library") || (r.Action == "read_library_entry" && !strings.HasPrefix(r.Subject, "library")) {
			t.Errorf("record of %s names subject %q", r.Action, r.Subject)
		}
		if strings.Contains(r.Subject, "service-template") {
			t.Errorf("a refused read of the gated entry is recorded under %q", r.Subject)
		}
	}
}

func wireOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
