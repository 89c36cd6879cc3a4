package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// severalTrees is a configuration serving three trees, none of them the
// contract's, in an order that is neither their names' nor the store's.
const severalTrees = `{"site": {"name": "Acme Docs"}, "trees": [
  {"name": "mintlify", "title": "Mintlify documentation", "description": "How to build documentation sites with Mintlify.", "access": "anonymous"},
  {"name": "powershell", "title": "PowerShell documentation", "access": "product_profile:powershell"},
  {"name": "mcp", "title": "MCP documentation", "description": "The Model Context Protocol.", "access": "anonymous"}
]}`

// TestSeveralConfiguredTreesServeRealCorpora serves three real
// documentation sets under their own names, one gated behind a product
// profile, and drives HTTP and MCP: the catalog, the tree schema, a page
// read by route, a tree-less search across the readable trees in the
// configured order, the gated tree refused to an anonymous caller, and the
// resource templates naming the trees the caller may read; under the configured
// site name, no served text names Turn Zero Cloud.
func TestSeveralConfiguredTreesServeRealCorpora(t *testing.T) {
	srcs := []ingest.TreeSource{
		{Name: "mcp", Dir: testkit.Corpus(t, "mcp-docs")},
		{Name: "mintlify", Dir: testkit.Corpus(t, "mintlify-docs")},
		{Name: "powershell", Dir: testkit.Corpus(t, "powershell-docs")},
	}
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(severalTrees), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Trees.Names(); !slices.Equal(got, []string{"mintlify", "powershell", "mcp"}) {
		t.Fatalf("configured trees %v", got)
	}
	cfg.WatchInterval = Duration(50 * time.Millisecond)
	cfg.Credentials = []identity.Credential{{TokenSHA256: identity.SHA256("tok-ps"), Account: "acme", Application: "agent", Profiles: []string{"powershell"}}}
	data := t.TempDir()
	testkit.IngestInto(t, data, "docs-1", true, srcs...)
	s := startServer(t, data, cfg)
	const gated = "Bearer tok-ps"

	// The catalog: each readable tree's two entries, in the configured
	// order, titled as configured; the gated tree only to its holder.
	docEntries := func(header ...string) []string {
		t.Helper()
		code, raw, err := postRaw(s.base, "list_context", map[string]any{}, header...)
		if err != nil || code != 200 {
			t.Fatalf("list_context: %d %v %s", code, err, raw)
		}
		var a struct {
			Entries []struct{ ID, Title, Tree, Auth string }
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range a.Entries {
			if strings.HasPrefix(e.ID, "docs:") {
				out = append(out, e.ID+"|"+e.Title+"|"+e.Auth)
			}
		}
		return out
	}
	if got, want := docEntries(), []string{
		"docs:mintlify|Mintlify documentation: index|anonymous", "docs:mintlify:full|Mintlify documentation: whole text|anonymous",
		"docs:mcp|MCP documentation: index|anonymous", "docs:mcp:full|MCP documentation: whole text|anonymous",
	}; !slices.Equal(got, want) {
		t.Errorf("anonymous catalog's documentation entries\n got %q\nwant %q", got, want)
	}
	if got := docEntries("Authorization", gated); len(got) != 6 || !strings.HasPrefix(got[2], "docs:powershell|PowerShell documentation: index|product_profile") {
		t.Errorf("the holder's catalog's documentation entries %q", got)
	}

	// A page read by its route alone: the route's first segment names
	// the tree.
	index := mustRead(t, s.base, map[string]any{"tree": "mcp"})
	route := regexp.MustCompile(`\]\((/mcp/[^)]+)\)`).FindStringSubmatch(index.Text)
	if route == nil {
		t.Fatalf("the mcp index links no page:\n%.500s", index.Text)
	}
	page := mustRead(t, s.base, map[string]any{"page": route[1]})
	if !strings.HasPrefix(page.ID, "docs:mcp:page:") || page.Text == "" {
		t.Errorf("page %s read as %q", route[1], page.ID)
	}

	// A tree-less search reads the readable trees, not the gated one.
	search := mustRead(t, s.base, map[string]any{"query": "install"})
	if !strings.HasPrefix(search.ID, "docs::search:") || !strings.Contains(search.Text, "](/mintlify/") || !strings.Contains(search.Text, "](/mcp/") || strings.Contains(search.Text, "](/powershell/") {
		t.Errorf("tree-less search %s:\n%.800s", search.ID, search.Text)
	}

	// The gated tree is refused to an anonymous caller, the refusal
	// naming why and the readable trees in the configured order; its
	// holder reads it.
	code, a, raw, err := post(s.base, "read_documentation", map[string]any{"tree": "powershell"})
	if err != nil || code != 400 || a.Error == nil || a.Error.Code != "invalid_request" ||
		!strings.Contains(a.Error.Detail, "product profile powershell") || !strings.HasSuffix(a.Error.Detail, "it may read mintlify and mcp") {
		t.Errorf("anonymous read of the gated tree: %d %v %s", code, err, raw)
	}
	if code, _, raw, _ := post(s.base, "read_documentation", map[string]any{"tree": "powershell"}, "Authorization", gated); code != 200 {
		t.Errorf("the holder's read of the gated tree: %d %s", code, raw)
	}
	// A tree the configuration does not name is not a tree, whatever a
	// version holds; its refusal names the trees the caller may read
	// alone, the gated one to its holder.
	const refused = "member tree must be one of %s; see the action's request schema"
	if code, a, raw, _ := post(s.base, "read_documentation", map[string]any{"tree": "cloud"}); code != 400 || a.Error == nil || a.Error.Code != "invalid_request" || a.Error.Detail != fmt.Sprintf(refused, "mintlify, mcp") {
		t.Errorf("read of an unconfigured tree: %d %s", code, raw)
	}
	if code, a, raw, _ := post(s.base, "read_documentation", map[string]any{"tree": "cloud"}, "Authorization", gated); code != 400 || a.Error == nil || a.Error.Detail != fmt.Sprintf(refused, "mintlify, powershell, mcp") {
		t.Errorf("the holder's read of an unconfigured tree: %d %s", code, raw)
	}

	// MCP: the tree member's enumeration and the templates list the
	// trees the caller can read, in the configured order.
	treeEnum := func(token string) []any {
		t.Helper()
		c := mcpSession(t, s.base, token)
		res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name != "read_documentation" {
				continue
			}
			raw := tool.RawInputSchema
			if len(raw) == 0 {
				if raw, err = json.Marshal(tool.InputSchema); err != nil {
					t.Fatal(err)
				}
			}
			var schema struct {
				Properties struct {
					Tree struct{ Enum []any } `json:"tree"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			return schema.Properties.Tree.Enum
		}
		t.Fatal("no read_documentation tool")
		return nil
	}
	if got := treeEnum(""); !slices.Equal(got, []any{"mintlify", "mcp"}) {
		t.Errorf("anonymous tree enumeration %v", got)
	}
	if got := treeEnum("tok-ps"); !slices.Equal(got, []any{"mintlify", "powershell", "mcp"}) {
		t.Errorf("the holder's tree enumeration %v", got)
	}
	c := mcpSession(t, s.base, "")
	res := mcpCall(t, c, "read_documentation", map[string]any{"page": route[1]})
	if res.IsError || !strings.Contains(toolText(res), page.Text[:min(len(page.Text), 200)]) {
		t.Errorf("MCP page read: %+v", res)
	}
	res = mcpCall(t, c, "read_documentation", map[string]any{"tree": "powershell"})
	if !res.IsError || !strings.Contains(toolText(res), "not readable by this connection") {
		t.Errorf("MCP anonymous read of the gated tree: %+v", res)
	}
	tpl, err := c.ListResourceTemplates(context.Background(), mcpgo.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range tpl.ResourceTemplates {
		if strings.Contains(tp.Description, "documentation tree") && !strings.Contains(tp.Description, "(mintlify or mcp)") || strings.Contains(tp.Description, "powershell") {
			t.Errorf("template %s: %s", tp.Name, tp.Description)
		}
	}

	// Under site.name "Acme Docs", what an agent reads of the server names
	// Acme Docs and never Turn Zero Cloud: the catalog, its overview, the
	// MCP server's instructions and title, the tools, prompts, resources
	// and templates, for the holder, who sees the most.
	ctx := context.Background()
	served := map[string]string{}
	_, catalogRaw, err := postRaw(s.base, "list_context", map[string]any{}, "Authorization", gated)
	if err != nil {
		t.Fatal(err)
	}
	served["list_context"] = string(catalogRaw)
	served["read_context overview"] = mustReadContext(t, s.base, "overview")
	hc := mcpSession(t, s.base, "tok-ps")
	if code, _, raw := mcpInitialize(t, s.base, "tok-ps"); code != 200 {
		t.Fatalf("initialize: %d %.300s", code, raw)
	} else {
		served["initialize"] = string(raw)
	}
	for what, list := range map[string]func() (any, error){
		"tools/list":     func() (any, error) { return hc.ListTools(ctx, mcpgo.ListToolsRequest{}) },
		"prompts/list":   func() (any, error) { return hc.ListPrompts(ctx, mcpgo.ListPromptsRequest{}) },
		"resources/list": func() (any, error) { return hc.ListResources(ctx, mcpgo.ListResourcesRequest{}) },
		"templates":      func() (any, error) { return hc.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{}) },
	} {
		v, err := list()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		raw, _ := json.Marshal(v)
		served[what] = string(raw)
	}
	for what, text := range served {
		if strings.Contains(text, "Turn Zero Cloud") {
			i := strings.Index(text, "Turn Zero Cloud")
			t.Errorf("%s names Turn Zero Cloud under site.name Acme Docs: …%s…", what, text[max(0, i-80):min(len(text), i+80)])
		}
	}
	for _, what := range []string{"read_context overview", "initialize", "tools/list"} {
		if !strings.Contains(served[what], "Acme Docs") {
			t.Errorf("%s does not name Acme Docs: %.300s", what, served[what])
		}
	}
}

// mustReadContext is the HTTP answer to a read_context of a catalog
// entry's first chunk.
func mustReadContext(t *testing.T, base, id string) string {
	t.Helper()
	code, raw, err := postRaw(base, "read_context", map[string]any{"id": id})
	if err != nil || code != 200 {
		t.Fatalf("read_context %s: %d %v %.300s", id, code, err, raw)
	}
	return string(raw)
}

// toolText is the text of a tool result's text contents.
func toolText(res *mcpgo.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestConfigTreesRefused: each odd or hostile trees member is refused at
// start-up with its member named and what to do.
func TestConfigTreesRefused(t *testing.T) {
	t.Parallel()
	tree := func(name, title, access string) string {
		return `{"name": "` + name + `", "title": "` + title + `", "access": "` + access + `"}`
	}
	many := make([]string, 257)
	for i := range many {
		many[i] = tree("t"+strings.Repeat("x", i%20)+string(rune('a'+i%26))+strings.Repeat("y", i/26), "T", "anonymous")
	}
	cases := []struct{ name, json, want string }{
		{"null", `{"trees": null}`, "trees: is null"},
		{"empty list", `{"trees": []}`, "trees: is empty"},
		{"not a list", `{"trees": "cloud"}`, "trees: is neither a list of trees nor a map"},
		{"map form, other name", `{"trees": {"mcp": "anonymous"}}`, `trees: "mcp" is not a tree name the map form takes (cloud, blueprint, tzdocs); to serve other trees, list them`},
		{"upper case", `{"trees": [` + tree("MCP", "M", "anonymous") + `]}`, `trees[0].name: "MCP" is not a tree name: it does not start with a lower-case letter`},
		{"colliding once lower-cased", `{"trees": [` + tree("mcp", "M", "anonymous") + `, ` + tree("Mcp", "M", "anonymous") + `]}`, `trees[1].name: "Mcp" is not a tree name`},
		{"colon", `{"trees": [` + tree("a:b", "M", "anonymous") + `]}`, `trees[0].name: "a:b" is not a tree name: it holds ":"`},
		{"slash", `{"trees": [` + tree("a/b", "M", "anonymous") + `]}`, `trees[0].name: "a/b" is not a tree name: it holds "/"`},
		{"starts with a digit", `{"trees": [` + tree("1docs", "M", "anonymous") + `]}`, `trees[0].name: "1docs" is not a tree name: it does not start with a lower-case letter`},
		{"too long", `{"trees": [` + tree(strings.Repeat("a", 33), "M", "anonymous") + `]}`, `is longer than 32 characters`},
		{"ID part", `{"trees": [` + tree("search", "M", "anonymous") + `]}`, `trees[0].name: "search" is not a tree name: it is reserved`},
		{"ID kind", `{"trees": [` + tree("page", "M", "anonymous") + `]}`, `trees[0].name: "page" is not a tree name: it is reserved`},
		{"store table", `{"trees": [` + tree("meta", "M", "anonymous") + `]}`, `trees[0].name: "meta" is not a tree name: it is reserved`},
		{"twice", `{"trees": [` + tree("mcp", "M", "anonymous") + `, ` + tree("mcp", "N", "anonymous") + `]}`, `trees[1].name: "mcp" is given twice, also as trees[0].name`},
		{"no name", `{"trees": [{"title": "M", "access": "anonymous"}]}`, `trees[0].name: is missing`},
		{"empty title", `{"trees": [` + tree("mcp", "  ", "anonymous") + `]}`, `trees[0].title: is empty; give the tree's title as the catalog shows it, such as "MCP documentation", or leave title out`},
		{"two-line title", `{"trees": [` + tree("mcp", `a\nb`, "anonymous") + `]}`, `trees[0].title: holds a line break`},
		{"long description", `{"trees": [{"name": "mcp", "title": "M", "description": "` + strings.Repeat("d", 501) + `", "access": "anonymous"}]}`, `trees[0].description: is 501 characters long, more than the bound of 500`},
		{"no access", `{"trees": [{"name": "mcp", "title": "M"}]}`, `trees[0].access: is missing`},
		{"bad access", `{"trees": [` + tree("mcp", "M", "everyone") + `]}`, `trees[0].access: "everyone" must be anonymous, signed_in or product_profile:<name>`},
		{"unknown member", `{"trees": [{"name": "mcp", "title": "M", "access": "anonymous", "acess": "x"}]}`, `trees[0]: json: unknown field "acess"`},
		{"hundreds", `{"trees": [` + strings.Join(many, ", ") + `]}`, "trees: lists 257 trees, more than the bound of 256"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
			if err := os.WriteFile(f, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfig(f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LoadConfig: %v\nwant an error holding %q", err, c.want)
			}
		})
	}
	// The bound itself is served: 256 trees load, in order.
	f := filepath.Join(dir, "256.json")
	if err := os.WriteFile(f, []byte(`{"trees": [`+strings.Join(many[:256], ", ")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil || len(c.Trees.List) != 256 || c.Trees.List[0].Name != "ta" {
		t.Errorf("256 trees: %v, %d", err, len(c.Trees.List))
	}
}

// TestUnconfiguredTreeNotServed: a served version's tree the
// configuration does not name is not served to anyone, and activation
// logs a warning naming it and the fix.
func TestUnconfiguredTreeNotServed(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	site := testkit.SampleSite(t)
	testkit.IngestInto(t, data, "v1", true, ingest.TreeSource{Name: "cloud", Dir: filepath.Join(site, "cloud")}, ingest.TreeSource{Name: "secret", Dir: filepath.Join(site, "blueprint")})
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(`{"trees": [{"name": "cloud", "title": "Cloud", "access": "anonymous"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	var logged lockedBuilder
	srv, err := New(context.Background(), cfg, data, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "a tree of the version is not served") || !strings.Contains(logged.String(), "tree=secret") {
		t.Errorf("no warning naming the unconfigured tree:\n%s", logged.String())
	}
	s := startServer(t, data, cfg)
	for _, req := range []map[string]any{{"tree": "secret"}, {"page": "/secret/"}, {"query": "blueprint"}} {
		code, raw, err := postRaw(s.base, "read_documentation", req)
		if err != nil || strings.Contains(string(raw), "/secret/") || (code == 200 && req["query"] == nil) {
			t.Errorf("%v: %d %v %s", req, code, err, raw)
		}
	}
	code, raw, _ := postRaw(s.base, "list_context", map[string]any{})
	if code != 200 || strings.Contains(string(raw), "secret") {
		t.Errorf("catalog: %d %s", code, raw)
	}
}

// lockedBuilder is a strings.Builder a logger may write from several
// goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
