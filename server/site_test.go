package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/schemas"
)

// servedTexts returns, by a label naming where each was served, every
// text a real server at base serves about itself, to an anonymous caller:
// list_context's entries (each entry whole, as JSON), read_context's
// text of every entry of the contract set (the overview, the contracts,
// the guides, the skills, the wire shapes; a documentation entry's text
// is the operator's own documentation, so only its catalog entry counts),
// a rule-code search's preface, and over MCP the initialize result, every
// tool, resource, resource template and prompt as listed, every prompt as
// got, and every contract-set resource as read.
func servedTexts(t *testing.T, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var ids []string
	stamp, off := "", 0
	for {
		body := map[string]any{}
		if off > 0 {
			body["offset"], body["stamp"] = off, stamp
		}
		code, raw, err := postRaw(base, "list_context", body)
		if err != nil || code != http.StatusOK {
			t.Fatalf("list_context %v: %d %v %s", body, code, err, raw)
		}
		var page struct {
			Stamp      string            `json:"stamp"`
			NextOffset *int              `json:"next_offset"`
			Entries    []json.RawMessage `json:"entries"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			var id struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(e, &id)
			out["list_context "+id.ID] = string(e)
			ids = append(ids, id.ID)
		}
		if page.NextOffset == nil {
			break
		}
		stamp, off = page.Stamp, *page.NextOffset
	}
	if len(ids) < 10 {
		t.Fatalf("list_context listed %d entries: %v", len(ids), ids)
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "docs:") {
			continue
		}
		out["read_context "+id] = readContextWhole(t, base, id)
	}
	// A rule code's preface is the reader's own sentence; the pages it
	// lists are the documentation's.
	a := mustRead(t, base, map[string]any{"query": "CTX-08"})
	first, _, _ := strings.Cut(a.Text, "\n")
	if !strings.Contains(first, "rule code") {
		t.Fatalf("a search for CTX-08 answers no rule-code preface: %q", first)
	}
	out["read_documentation CTX-08 preface"] = first

	ctx := context.Background()
	tr, err := transport.NewStreamableHTTP(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	out["mcp initialize instructions"] = res.Instructions
	out["mcp initialize serverInfo"] = mustJSON(t, res.ServerInfo)
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		out["mcp tools/list "+tool.Name] = mustJSON(t, tool)
	}
	prompts, err := c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		out["mcp prompts/list "+p.Name] = mustJSON(t, p)
		req := mcpgo.GetPromptRequest{}
		req.Params.Name = p.Name
		got, err := c.GetPrompt(ctx, req)
		if err != nil {
			t.Fatalf("prompts/get %s: %v", p.Name, err)
		}
		out["mcp prompts/get "+p.Name] = mustJSON(t, got)
	}
	resources, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources.Resources {
		out["mcp resources/list "+r.URI] = mustJSON(t, r)
		if strings.Contains(r.URI, "docs%3A") || strings.Contains(r.URI, "docs:") {
			continue
		}
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = r.URI
		got, err := c.ReadResource(ctx, req)
		if err != nil {
			t.Fatalf("resources/read %s: %v", r.URI, err)
		}
		out["mcp resources/read "+r.URI] = mustJSON(t, got)
	}
	templates, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range templates.ResourceTemplates {
		out["mcp resources/templates/list "+rt.Name] = mustJSON(t, rt)
	}
	return out
}

// readContextWhole reads one catalog entry over HTTP from offset 0 to its
// end.
func readContextWhole(t *testing.T, base, id string) string {
	t.Helper()
	var b strings.Builder
	stamp, off := "", 0
	for i := 0; i < 1000; i++ {
		body := map[string]any{"id": id}
		if off > 0 {
			body["offset"], body["stamp"] = off, stamp
		}
		code, a, raw, err := post(base, "read_context", body)
		if err != nil || code != http.StatusOK || a.Error != nil {
			t.Fatalf("read_context %v: %d %v %s", body, code, err, raw)
		}
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			return b.String()
		}
		stamp, off = a.Stamp, *a.NextOffset
	}
	t.Fatalf("read_context %s: more than 1000 chunks", id)
	return ""
}

// sizesAndStamps are what differ between two texts that differ only in
// the name they hold: SHA-256 stamps and byte or code-point counts.
var sizesAndStamps = regexp.MustCompile(`[0-9a-f]{64}|\d+ bytes|(?:size|bytes|code_points|total)\\?"?: ?\d+`)

// unsized returns text with its stamps and sizes blanked.
func unsized(text string) string { return sizesAndStamps.ReplaceAllString(text, "#") }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestSiteNameServed serves the sample site twice, once without
// configuration and once as "Acme Docs", and holds every text the server
// serves about itself, over HTTP and MCP, to the configured name: none
// names Turn Zero Cloud, and each that named it by default names Acme Docs
// in its place, and is otherwise the same text.
func TestSiteNameServed(t *testing.T) {
	t.Parallel()
	const acme = "Acme Docs"
	serve := func(name string) map[string]string {
		dataDir := t.TempDir()
		ingestSample(t, dataDir, "v1")
		cfg := testConfig(time.Hour)
		if name != "" {
			cfg.Site.Name = name
		}
		s := startServer(t, dataDir, cfg)
		return servedTexts(t, s.base)
	}
	def, named := serve(""), serve(acme)

	var labels []string
	for l := range def {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	if len(named) != len(def) {
		t.Errorf("as %s the server serves %d texts, by default %d", acme, len(named), len(def))
	}
	// A documentation entry's title is the tree's, from the operator's
	// own documentation (here the sample site, Turn Zero Cloud's manual).
	docs := func(l string) bool {
		return strings.HasPrefix(l, "list_context docs:") || strings.HasPrefix(l, "mcp resources/list tzctx://context/docs:")
	}
	// The instructions name each tree by its title, the documentation's
	// own (issue 31): their tree lines are left out of the comparison.
	withoutTreeLines := func(text string) string {
		var keep []string
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "- ") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	naming := 0
	for _, l := range labels {
		d, n := def[l], named[l]
		if docs(l) {
			continue
		}
		if l == "mcp initialize instructions" {
			d, n = withoutTreeLines(d), withoutTreeLines(n)
		}
		if strings.Contains(n, schemas.DefaultSiteName) {
			t.Errorf("%s names %s when the site is %s:\n%.400s", l, schemas.DefaultSiteName, acme, n)
		}
		if strings.Contains(n, schemas.SiteNamePlaceholder) || strings.Contains(d, schemas.SiteNamePlaceholder) {
			t.Errorf("%s serves the placeholder %s", l, schemas.SiteNamePlaceholder)
		}
		if !strings.Contains(d, schemas.DefaultSiteName) {
			continue
		}
		naming++
		// Sizes and stamps (the bundle's, a resource's size) follow the
		// text, so they differ; nothing else does.
		// The name takes its own article: "a Turn Zero Cloud", "an Acme
		// Docs" (issue 31).
		named := strings.NewReplacer("a "+schemas.DefaultSiteName, schemas.WithArticle(acme), schemas.DefaultSiteName, acme)
		if want := named.Replace(d); unsized(n) != unsized(want) {
			t.Errorf("%s: not the default text with %s for %s:\n%.600s\nwant\n%.600s", l, acme, schemas.DefaultSiteName, n, want)
		}
		if !strings.Contains(n, acme) {
			t.Errorf("%s names %s by default but not %s when so configured:\n%.400s", l, schemas.DefaultSiteName, acme, n)
		}
	}
	// The texts that must follow the name are among those that do.
	for _, l := range []string{
		"list_context overview", "list_context guide:reading", "list_context skill:discover-context",
		"read_context overview", "read_context guide:reading", "read_context guide:operating",
		"read_context skill:discover-context", "read_context bundle",
		"read_documentation CTX-08 preface", "mcp initialize instructions", "mcp initialize serverInfo",
		"mcp tools/list list_context", "mcp tools/list read_documentation",
		"mcp prompts/list discover-context", "mcp prompts/get discover-context",
	} {
		if !strings.Contains(named[l], acme) {
			t.Errorf("%s does not name %s: %.300q", l, acme, named[l])
		}
	}
	if naming < 20 {
		t.Errorf("only %d served texts name the product by default; the collection misses some", naming)
	}
}

// TestSiteNameConfig loads site.name from a configuration file: a name
// is taken as given, the default is the contract's, and a name the served
// texts cannot carry is refused naming the member and the fix.
func TestSiteNameConfig(t *testing.T) {
	t.Parallel()
	load := func(body string) (Config, error) {
		p := filepath.Join(t.TempDir(), "tzctx.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	if c, err := load(`{}`); err != nil || c.Site.Name != schemas.DefaultSiteName {
		t.Fatalf("no site member: name %q, %v; want %q", c.Site.Name, err, schemas.DefaultSiteName)
	}
	if c, err := load(`{"site": {"name": "Acme \"Docs\" \\ Ünïcode"}}`); err != nil || c.Site.Name != `Acme "Docs" \ Ünïcode` {
		t.Fatalf("site.name: %q, %v", c.Site.Name, err)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"empty", `""`, "empty"},
		{"blank", `"   "`, "empty"},
		{"padded", `" Acme"`, "white space"},
		{"two lines", `"Acme\nDocs"`, "one line"},
		{"control", `"Acme\u0007Docs"`, "control character"},
		{"too long", `"` + strings.Repeat("é", schemas.SiteNameMaxLength+1) + `"`, "at most 100"},
		{"placeholder", `"{{site.name}}"`, "placeholder"},
		{"not a string", `7`, "site.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(`{"site": {"name": ` + tc.value + `}}`)
			if err == nil || !strings.Contains(err.Error(), "site.name") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("site.name %s: %v; want an error naming site.name and %q", tc.value, err, tc.want)
			}
		})
	}
	if _, err := load(`{"site": {"title": "Acme"}}`); err == nil || !strings.Contains(err.Error(), "title") {
		t.Fatalf("site.title: %v; want the unknown member refused", err)
	}
}

// TestOperatorNamesRefuseHiddenCharacters: site.name and a tree's title
// and description refuse, by one rule (schemas.CheckOneLine), every
// character a reader would not see or would see reordered, and control
// characters, each refusal naming the member, the character as U+XXXX
// and what to do.
func TestOperatorNamesRefuseHiddenCharacters(t *testing.T) {
	t.Parallel()
	load := func(body string) error {
		p := filepath.Join(t.TempDir(), "tzctx.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(p)
		return err
	}
	tree := func(title, description string) string {
		return `{"trees": [{"name": "docs", "title": "` + title + `", "description": "` + description + `", "access": "anonymous"}]}`
	}
	for _, c := range []struct{ name, config, want string }{
		{"site.name right-to-left override", `{"site": {"name": "Acme\u202eDocs"}}`, "site.name: \"Acme\\u202eDocs\": it holds a bidirectional control character, U+202E (character 5); remove it"},
		{"site.name isolate", `{"site": {"name": "Acme\u2066Docs\u2069"}}`, "site.name: \"Acme\\u2066Docs\\u2069\": it holds a bidirectional control character, U+2066"},
		{"site.name pop isolate", `{"site": {"name": "Acme\u2069Docs"}}`, "U+2069"},
		{"site.name zero-width space", `{"site": {"name": "Acme\u200bDocs"}}`, "site.name: \"Acme\\u200bDocs\": it holds a zero-width character, U+200B (character 5); remove it"},
		{"site.name byte order mark", `{"site": {"name": "\ufeffAcme"}}`, "it holds a zero-width character, U+FEFF (character 1)"},
		{"site.name C1", `{"site": {"name": "Acme\u009bDocs"}}`, "it holds a control character, U+009B"},
		{"title ESC", tree(`Acme\u001b[31mDocs`, ""), "trees[0].title: holds a control character, U+001B (character 5); remove it"},
		{"title bidi", tree(`Acme\u202eDocs`, ""), "trees[0].title: holds a bidirectional control character, U+202E"},
		{"title zero-width joiner", tree(`Acme\u200dDocs`, ""), "trees[0].title: holds a zero-width character, U+200D"},
		{"description NUL", tree("Acme", `The docs\u0000.`), "trees[0].description: holds a control character, U+0000 (character 9); remove it"},
		{"description isolate", tree("Acme", `The \u2067docs`), "trees[0].description: holds a bidirectional control character, U+2067"},
		{"description line separator", tree("Acme", `The\u2028docs`), "trees[0].description: holds a line break, U+2028 (character 4); give it on one line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := load(c.config)
			var ce *schemas.CharacterError
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ce) {
				t.Errorf("LoadConfig: %v\nwant a *schemas.CharacterError holding %q", err, c.want)
			}
		})
	}
	if err := load(tree("Acme Ünïcode — 日本語", "Docs in Ελληνικά and عربي.")); err != nil {
		t.Errorf("a title and description in several scripts: %v", err)
	}
}
