package ingest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestCheckReport checks what Check returns for a linter: the trees in
// tree order, each page's file, copy and the line its copy begins on, the
// headings of every depth, and Lookup matching link targets as the
// outline does.
func TestCheckReport(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"tzdocs/docs.json":       `{"name":"Docs","navigation":{"pages":["index","guides/index","guides/a",{"group":"G","pages":["GET /x","b"]}]}}`,
		"tzdocs/index.mdx":       "# Home\n",
		"tzdocs/guides/index.md": "\ufeff---\ntitle: Guides\n---\n# Guides\n## One\n",
		"tzdocs/guides/a.mdx":    "text\n",
		"tzdocs/b.md":            "b\n",
		"cloud/docs.json":        `{"navigation":{"pages":["index"]}}`,
		"cloud/index.mdx":        "# Cloud\n",
	})
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ingest.Check(context.Background(), ingest.Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trees) != 2 || r.Trees[0].Name != "cloud" || r.Trees[1].Name != "tzdocs" {
		t.Fatalf("trees %+v, want cloud then tzdocs", r.Trees)
	}
	tz := r.Trees[1]
	if tz.Dir != filepath.Join(site, "tzdocs") || tz.Title != "Docs" || tz.Skipped != 1 || len(tz.Pages) != 4 {
		t.Fatalf("tzdocs: dir %s, title %q, %d skipped, %d pages", tz.Dir, tz.Title, tz.Skipped, len(tz.Pages))
	}
	g := tz.Pages[1]
	if g.File != "guides/index.md" || g.Route != "/tzdocs/guides/" || g.CopyLine != 4 || g.Copy != "# Guides\n## One\n" {
		t.Errorf("guides/index: file %s, route %s, copy line %d, copy %q", g.File, g.Route, g.CopyLine, g.Copy)
	}
	if len(g.Scan.Headings) != 2 || g.Scan.Headings[0].Depth != 1 {
		t.Errorf("guides/index headings %+v, want both depths", g.Scan.Headings)
	}
	for target, want := range map[string]string{
		"/tzdocs/guides/":     "guides/index",
		"/guides":             "guides/index",
		"guides/index.md#one": "guides/index",
		"/guides/a.mdx":       "guides/a",
		"b":                   "b",
		"/":                   "index",
		"https://x.example/b": "b",
	} {
		p, ok := tz.Lookup(target)
		if !ok || p.Path != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", target, p, ok, want)
		}
	}
	if _, ok := tz.Lookup("/guides/c"); ok {
		t.Error("Lookup found a page for /guides/c, which is not listed")
	}
}
