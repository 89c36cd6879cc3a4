package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanPages: what ingest serves of a page of another format than
// Mintlify is its text, not its markup. A Docusaurus page's leading MDX
// imports are left out and its copy begins further down the file (so
// tzctx check's lines stay the file's); an MkDocs heading's attribute
// list is left out of the text and its id names the heading in the
// outline; a VitePress title and heading lose their tags; a Mintlify
// page with all of these is served byte for byte.
func TestCleanPages(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTestFiles(t, root, map[string]string{
		"docu/docusaurus.config.js": "module.exports = {}\n",
		"docu/docs/intro.mdx":       "---\ntitle: Intro\n---\n\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n# Intro\n\n<Tabs>x</Tabs>\n",
		"mk/mkdocs.yml":             "site_name: Mk\nnav:\n  - Types: types.md\n",
		"mk/docs/types.md":          "# Python Types Intro { #python-types-intro }\n\n## Motivation and more { #motivation }\n\ntext\n",
		"vp/.vitepress/config.mts":  "export default { themeConfig: { sidebar: [{ text: 'MPA Mode <Badge type=\"warning\" text=\"experimental\" />', link: '/mpa' }] } }\n",
		"vp/mpa.md":                 "# MPA\n\n## Build <Badge text=\"NRV\" />\n\ntext\n",
		"mint/docs.json":            `{"name": "M", "navigation": {"pages": ["a"]}}`,
		"mint/a.mdx":                "---\ntitle: A <Badge text=\"x\" />\n---\n\nimport X from '/snippets/x.mdx';\n\n## Install { #install }\n\n## Build <Badge text=\"NRV\" />\n",
	})
	var trees []TreeSource
	for _, n := range []string{"docu", "mk", "vp", "mint"} {
		trees = append(trees, TreeSource{Name: n, Dir: filepath.Join(root, n)})
	}
	rep, err := Check(context.Background(), Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]PageReport{}
	for _, tr := range rep.Trees {
		for _, p := range tr.Pages {
			got[tr.Name] = p
		}
	}
	if p := got["docu"]; p.Copy != "# Intro\n\n<Tabs>x</Tabs>\n" || p.CopyLine != 8 {
		t.Errorf("docusaurus copy %q from line %d, want the page from its heading on line 8", p.Copy, p.CopyLine)
	}
	if p := got["mk"]; p.Copy != "# Python Types Intro\n\n## Motivation and more\n\ntext\n" || p.Title != "Types" {
		t.Errorf("mkdocs copy %q, title %q", p.Copy, p.Title)
	}
	if p := got["vp"]; p.Title != "MPA Mode" || p.Copy != "# MPA\n\n## Build\n\ntext\n" {
		t.Errorf("vitepress title %q, copy %q", p.Title, p.Copy)
	}
	mint := "\nimport X from '/snippets/x.mdx';\n\n## Install { #install }\n\n## Build <Badge text=\"NRV\" />\n"
	if p := got["mint"]; p.Copy != mint || p.Title != `A <Badge text="x" />` {
		t.Errorf("mintlify copy %q, title %q: want the file as it is", p.Copy, p.Title)
	}
	loaded, err := loadTrees(context.Background(), Options{Trees: trees[1:2], MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
	if err != nil {
		t.Fatal(err)
	}
	if o := loaded[0].outline; !strings.Contains(o, "  - [Motivation and more](/mk/types/#motivation)\n") {
		t.Errorf("outline without the attribute list's anchor:\n%s", o)
	}
}

// writeTestFiles writes files (slash-separated names) below root.
func writeTestFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
