package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/mcp"
)

// toolTrees is the tree enumeration of read_documentation's input schema
// in the caller's tools/list; nil where it has none.
func toolTrees(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "read_documentation" {
			continue
		}
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			InputSchema struct {
				Properties struct {
					Tree struct {
						Enum []string `json:"enum"`
					} `json:"tree"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s.InputSchema.Properties.Tree.Enum
	}
	t.Fatal("tools/list lists no read_documentation")
	return nil
}

// catalogTrees are the trees of the documentation entries of a
// list_context answer, in order, each once.
func catalogTrees(t *testing.T, raw []byte) []string {
	t.Helper()
	var a struct {
		Entries []struct {
			Tree string `json:"tree"`
		} `json:"entries"`
		NextOffset *int `json:"next_offset"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("list_context answered %s: %v", raw, err)
	}
	if a.NextOffset != nil {
		t.Fatalf("the catalog does not fit one page: %s", raw)
	}
	var out []string
	for _, e := range a.Entries {
		if e.Tree != "" && !slices.Contains(out, e.Tree) {
			out = append(out, e.Tree)
		}
	}
	return out
}

// TestTreesTheVersionLacksAreNotListed: with a served version that holds
// only tzdocs, list_context over HTTP and MCP, resources/list and the
// tree enumeration of read_documentation's tool list tzdocs alone, to
// every caller (the blueprint holder too); naming another tree still
// answers as before, and every refusal names only tzdocs as readable.
func TestTreesTheVersionLacksAreNotListed(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	f := newFixtureOn(t, testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: filepath.Join(site, "tzdocs")}))
	only := []string{"tzdocs"}
	for _, c := range []caller{{"anonymous", "", false}, {"holder", tokenBlueprint, true}} {
		t.Run(c.name, func(t *testing.T) {
			if got := catalogTrees(t, f.postAPI(t, "list_context", map[string]any{}, c.token)); !slices.Equal(got, only) {
				t.Errorf("HTTP list_context lists the trees %v, want %v", got, only)
			}
			for name, mc := range f.transports(t, c.token) {
				res := callTool(t, mc, "list_context", nil)
				if got := catalogTrees(t, res.RawStructuredContent); !slices.Equal(got, only) {
					t.Errorf("%s: MCP list_context lists the trees %v, want %v", name, got, only)
				}
				if got := toolTrees(t, mc); !slices.Equal(got, only) {
					t.Errorf("%s: read_documentation's tree enumeration is %v, want %v", name, got, only)
				}
				rl, err := mc.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				var docs []string
				for _, r := range rl.Resources {
					if strings.HasPrefix(r.URI, mcp.ContextPrefix+"docs") {
						docs = append(docs, r.Name)
					}
				}
				if !slices.Equal(docs, []string{"docs:tzdocs", "docs:tzdocs:full"}) {
					t.Errorf("%s: resources/list lists the documentation entries %v, want tzdocs's two", name, docs)
				}
			}
			// Naming a tree the version lacks still answers 503, and
			// the refusal names the tree that can be read.
			for _, args := range []map[string]any{{"tree": "cloud"}, {"tree": "cloud", "query": "stamp"}, {"page": "/cloud/guides/reading/"}} {
				a := f.api(t, "read_documentation", args, c.token)
				if a.status != 503 || a.Error == nil || !strings.HasSuffix(a.Error.Detail, "this connection may read tzdocs") {
					t.Errorf("read_documentation %v = %s, want 503 naming tzdocs as readable", args, a.refusal())
				}
			}
			if a := f.api(t, "read_context", map[string]any{"id": "docs:cloud:full"}, c.token); a.status != 503 || !strings.HasSuffix(a.Error.Detail, "this connection may read tzdocs") {
				t.Errorf("read_context docs:cloud:full = %s, want 503 naming tzdocs as readable", a.refusal())
			}
			a := f.api(t, "read_documentation", map[string]any{"page": "guides/reading"}, c.token)
			if a.status != 400 || !strings.HasSuffix(a.Error.Detail, "this connection may read tzdocs") {
				t.Errorf("a page without a tree = %s, want 400 naming tzdocs alone as readable", a.refusal())
			}
			a = f.api(t, "read_documentation", map[string]any{"tree": "blueprint"}, c.token)
			want := "Bad Request: invalid_request: tree blueprint is not readable by this connection: the access map (the trees member of the server configuration) grants it only to credentials holding the product profile blueprint, so send a bearer credential listing that profile; it may read tzdocs"
			if c.holder {
				want = "Service Unavailable: context_unavailable: the served site version has no blueprint tree; this connection may read tzdocs"
			}
			if a.refusal() != want {
				t.Errorf("read_documentation blueprint = %s, want %s", a.refusal(), want)
			}
		})
	}
}

// TestToolTreesAreTheCallers: over the full sample version the tree
// enumeration lists every tree the caller may read: the blueprint
// holder's all three, an anonymous caller's cloud and tzdocs.
func TestToolTreesAreTheCallers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range []struct {
		token string
		want  []string
	}{{"", []string{"cloud", "tzdocs"}}, {tokenBlueprint, []string{"cloud", "blueprint", "tzdocs"}}} {
		for name, mc := range f.transports(t, c.token) {
			if got := toolTrees(t, mc); !slices.Equal(got, c.want) {
				t.Errorf("%s, token %q: the tree enumeration is %v, want %v", name, c.token, got, c.want)
			}
		}
	}
}

// TestLimitDescriptionSaysWhatAChunkHolds: a chunk read from an offset
// that is no place starts earlier and holds more than the limit, so the
// limit's description an agent reads in tools/list says so rather than
// calling the limit a maximum.
func TestLimitDescriptionSaysWhatAChunkHolds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.api(t, "read_documentation", map[string]any{"tree": "cloud", "part": "full", "limit": 200}, "")
	over := false
	for off := 1; off < 400 && !over; off++ {
		a := f.api(t, "read_documentation", map[string]any{"tree": "cloud", "part": "full", "limit": 200, "offset": off, "stamp": first.Stamp}, "")
		over = a.status == 200 && len([]rune(a.Text)) > 200
	}
	if !over {
		t.Fatal("no chunk of the cloud whole text read at offsets 1 to 399 holds more than its limit of 200")
	}
	res, err := f.httpClient(t, "").ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	described := 0
	for _, tool := range res.Tools {
		raw, _ := json.Marshal(tool)
		var s struct {
			InputSchema struct {
				Properties struct {
					Limit struct {
						Ref string `json:"$ref"`
					} `json:"limit"`
				} `json:"properties"`
				Defs struct {
					Limit struct {
						Description string `json:"description"`
					} `json:"limit"`
				} `json:"$defs"`
			} `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if s.InputSchema.Properties.Limit.Ref != "#/$defs/limit" {
			continue
		}
		described++
		d := s.InputSchema.Defs.Limit.Description
		if strings.Contains(d, "Maximum") || !strings.Contains(d, "at or before `offset`") || !strings.Contains(d, "more than `limit`") {
			t.Errorf("%s: limit is described %q, which does not say a chunk starts at a place at or before the offset and can hold more than the limit", tool.Name, d)
		}
	}
	if described != 3 {
		t.Errorf("%d tools take limit as the shared shape, want read_context, read_documentation and read_library_entry", described)
	}
}
