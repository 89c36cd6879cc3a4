package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestIngestLinkTargetsWithSpaces: page paths holding a space or a
// parenthesis get angle-bracket link targets in the composed index and
// outline, which Markdown reads back as the route; the page is served at
// that route, whether the caller sends the target read from the index or
// the route without the base path.
func TestIngestLinkTargetsWithSpaces(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docs.json":          `{"navigation":{"pages":["index","guides/my page","notes (old)"]}}`,
		"index.mdx":          "# Home\n",
		"guides/my page.mdx": "---\ntitle: My page\n---\n# My page\n\n## Set up\n\nwords\n",
		"notes (old).md":     "# Notes\n",
	})
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--version", "v", "--activate")
	srv := startServer(t, data, testConfig(0))

	index := mustRead(t, srv.base, map[string]any{"tree": "tzdocs"}).Text
	for _, want := range []string{"- [My page](</tzdocs/guides/my page/>)\n", "- [Notes (old)](</tzdocs/notes (old)/>)\n"} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
	outline := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "part": "outline"}).Text
	// The outline takes the index's line for the page (matched through the
	// bracketed target), then the heading with its anchor.
	for _, want := range []string{"- [My page](</tzdocs/guides/my page/>)\n  - [Set up](</tzdocs/guides/my page/#set-up>)\n", "- [Notes (old)](</tzdocs/notes (old)/>)\n"} {
		if !strings.Contains(outline, want) {
			t.Errorf("outline lacks %q:\n%s", want, outline)
		}
	}
	if strings.Count(outline, "my page/>)\n") != 1 {
		t.Errorf("the outline lists the page more than once:\n%s", outline)
	}
	// A Markdown reader takes the destination without the brackets: the
	// route, which a page read accepts as the index prints it.
	m := regexp.MustCompile(`\[My page\]\(<([^>]*)>\)`).FindStringSubmatch(index)
	if m == nil {
		t.Fatalf("no bracketed link to My page in the index:\n%s", index)
	}
	// A search answer's line links the page in the same form.
	if got := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "query": "words"}).Text; got != "- [My page](</tzdocs/guides/my page/>): words\n" {
		t.Errorf("search answer = %q, want the bracketed target", got)
	}
	for _, page := range []string{m[1], "guides/my page"} {
		a := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": page})
		if !strings.HasPrefix(a.Text, "# My page\n") || a.ID != "docs:tzdocs:page:guides/my page" {
			t.Errorf("page %q: id %q, text %q", page, a.ID, a.Text)
		}
	}
}

// TestIngestSameRouteServedOnce: with two paths naming one route refused,
// the page that stays after fixing the manifest is served with its own
// words, and the index lists the route once.
func TestIngestSameRouteServedOnce(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "cloud")
	testkit.WriteFiles(t, tree, map[string]string{
		"docs.json":        `{"navigation":{"pages":["index","guides","guides/index"]}}`,
		"index.mdx":        "# Home\n",
		"guides.mdx":       "# Guides page\n\nfirstword\n",
		"guides/index.mdx": "# Guides index\n\nsecondword\n",
	})
	data := t.TempDir()
	r := runCLI(t, data, "ingest", "--tree", "cloud="+tree)
	if r.err == nil || !strings.Contains(r.err.Error(), "both name the route /cloud/guides/") {
		t.Fatalf("ingest with two paths for /cloud/guides/: %v", r.err)
	}
	nothingVisible(t, data)
	testkit.WriteFiles(t, tree, map[string]string{"docs.json": `{"navigation":{"pages":["index","guides","guides"]}}`})
	mustCLI(t, data, "ingest", "--tree", "cloud="+tree, "--version", "v", "--activate")
	srv := startServer(t, data, testConfig(0))
	if idx := mustRead(t, srv.base, map[string]any{"tree": "cloud"}).Text; strings.Count(idx, "(/cloud/guides/)") != 1 {
		t.Errorf("index lists /cloud/guides/ other than once:\n%s", idx)
	}
	if a := mustRead(t, srv.base, map[string]any{"tree": "cloud", "query": "firstword"}); !strings.Contains(a.Text, "/cloud/guides/") {
		t.Errorf("search misses the page's words: %q", a.Text)
	}
}
