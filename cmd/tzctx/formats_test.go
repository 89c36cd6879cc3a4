package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// TestIngestFormatFlag: --format names the folder's format over the
// detection, for every tree or for one; an unknown name is refused naming
// the formats there are.
func TestIngestFormatFlag(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"mkdocs.yml":    "site_name: Acme\nnav:\n  - Home: index.md\n",
		"docs/index.md": "# Home\n",
		"docs/more.md":  "# More\n",
	})
	data := t.TempDir()
	r := runCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--format", "sphinx")
	if r.err == nil || !strings.Contains(r.err.Error(), `"sphinx"`) || !strings.Contains(r.err.Error(), "mkdocs, mdbook, gitbook") {
		t.Errorf("--format sphinx: %v, want a refusal naming the formats", r.err)
	}
	r = runCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--format", "cloud=markdown")
	if r.err == nil || !strings.Contains(r.err.Error(), "no tree cloud") {
		t.Errorf("--format for a tree not given: %v", r.err)
	}
	// Detected: MkDocs lists one page.
	r = mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree)
	if !strings.Contains(r.stdout, "tree tzdocs        1 pages") {
		t.Errorf("detected ingest:\n%s", r.stdout)
	}
	// As plain Markdown, the folder's two pages.
	for _, f := range []string{"markdown", "tzdocs=markdown"} {
		r = mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--format", f)
		if !strings.Contains(r.stdout, "tree tzdocs        2 pages") {
			t.Errorf("--format %s:\n%s", f, r.stdout)
		}
	}
}

// TestIngestFormatFaults: what a reader warns about is printed with the
// ingest, and the faults of other formats' navigation are refused naming
// the file, the line and the fix.
func TestIngestFormatFaults(t *testing.T) {
	data := t.TempDir()
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"SUMMARY.md": "# Summary\n\n- [A](a.md)\n- [A again](a.md)\n- [Draft]()\n",
		"a.md":       "# A\n",
	})
	r := mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree)
	if !strings.Contains(r.stderr, "warning: tree tzdocs: SUMMARY.md:4: the page a is listed again (first at SUMMARY.md:3)") {
		t.Errorf("stderr lacks the warning:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "1 pages") || !strings.Contains(r.stdout, "\n    1 SUMMARY.md chapter skipped (a draft, with no file)\n") || !strings.Contains(r.stdout, "1 navigation entry skipped") {
		t.Errorf("stdout:\n%s", r.stdout)
	}

	for _, c := range []struct {
		name  string
		files map[string]string
		says  []string
	}{
		{"a missing page", map[string]string{"SUMMARY.md": "- [A](a.md)\n- [Gone](gone.md)\n", "a.md": "# A\n"},
			[]string{"SUMMARY.md (listed at line 2)", `page "gone" has no file gone.md`, "remove the entry from SUMMARY.md"}},
		{"a path outside the folder", map[string]string{"SUMMARY.md": "- [Out](../outside.md)\n"},
			[]string{"SUMMARY.md", "line 1", "outside the folder", "move the page into it"}},
		{"two routes that collide", map[string]string{"guide.md": "# G\n", "guide/index.md": "# G too\n"},
			[]string{"both name the route /tzdocs/guide/"}},
		{"a Docusaurus doc listed but missing", map[string]string{"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: 'sidebars.json'}}]]}", "sidebars.json": `{"docs": ["a", "gone"]}`, "docs/a.md": "# A\n"},
			[]string{"sidebars.json", `"gone"`}},
		{"a VitePress page listed but missing", map[string]string{"docs/.vitepress/config.mts": "export default { themeConfig: { sidebar: [{text: 'A', link: '/a'}, {text: 'Gone', link: '/gone'}] } }\n", "docs/a.md": "# A\n"},
			[]string{"docs/.vitepress/config.mts", "docs/gone.md"}},
		{"a Starlight page listed but missing", map[string]string{"astro.config.mjs": "import starlight from '@astrojs/starlight';\nexport default { integrations: [starlight({ title: 'D', sidebar: ['a', 'gone'] })] };\n", "src/content/docs/a.md": "---\ntitle: A\n---\n"},
			[]string{"astro.config.mjs", `slug "gone"`}},
		{"two Docusaurus routes that collide", map[string]string{"docusaurus.config.js": "module.exports = {}", "docs/a.md": "---\nslug: /b\n---\n# A\n", "docs/b.md": "# B\n"},
			[]string{"both name the route /tzdocs/b/"}},
		{"two VitePress routes that collide", map[string]string{"docs/.vitepress/config.mts": "export default {}\n", "docs/guide.md": "# G\n", "docs/guide/index.md": "# G too\n"},
			[]string{"both name the route /tzdocs/guide/"}},
		{"a folder with no page", map[string]string{"notes.txt": "x"},
			[]string{"holds no documentation", "--format"}},
		{"invalid mkdocs.yml", map[string]string{"mkdocs.yml": "nav:\n  - a.md\n - [\n"},
			[]string{"mkdocs.yml", "line 2", "not valid YAML"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tzdocs")
			testkit.WriteFiles(t, dir, c.files)
			r := runCLI(t, data, "ingest", "--tree", "tzdocs="+dir)
			if r.err == nil {
				t.Fatal("ingested")
			}
			for _, s := range c.says {
				if !strings.Contains(r.err.Error(), s) {
					t.Errorf("error %q does not say %q", r.err, s)
				}
			}
		})
	}
}

// TestCheckFormatLinks: tzctx check resolves the links of other formats
// (relative file paths, .html paths, routes) and reports broken ones, and
// reports a reader's warnings.
func TestCheckFormatLinks(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"mkdocs.yml":           "nav:\n  - index.md\n  - guide/index.md\n  - guide/config.md\n  - Again: index.md\n",
		"docs/index.md":        "# Home\n\n[g](guide/index.md) [c](./guide/config.md#options) [h](guide/config.html) [r](/guide/config/) [d](guide/)\n[bad](guide/nothere.md) [badanchor](guide/config.md#nope)\n",
		"docs/guide/index.md":  "# Guide\n\n[up](../index.md) [sib](config.md) [out](../../README.md)\n",
		"docs/guide/config.md": "# Config\n\n## Options { #options }\n",
	})
	r := runCLI(t, t.TempDir(), "check", "--json", "--tree", "tzdocs="+tree)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, r.stdout, r.stderr)
	}
	var errs, warns []string
	for _, f := range rep.Errors {
		errs = append(errs, filepath.Base(f.File)+":"+f.Rule+":"+f.Message)
	}
	for _, f := range rep.Warnings {
		warns = append(warns, filepath.Base(f.File)+":"+f.Rule+":"+f.Message)
	}
	if len(errs) != 2 || !strings.Contains(errs[0], `"guide/nothere.md"`) || !strings.Contains(errs[1], "#nope") {
		t.Errorf("errors:\n%s", strings.Join(errs, "\n"))
	}
	found := false
	for _, w := range warns {
		found = found || strings.HasPrefix(w, "mkdocs.yml:navigation:the page index is listed again")
	}
	if !found {
		t.Errorf("warnings lack the reader's:\n%s", strings.Join(warns, "\n"))
	}
}

// TestCheckMdBookLinks: an mdBook's links as .html paths and relative
// file paths resolve, a link out of the book is not checked, and a broken
// one is reported with its line.
func TestCheckMdBookLinks(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"book.toml":        "[book]\ntitle = \"B\"\n",
		"src/SUMMARY.md":   "# Summary\n\n- [One](ch01.md)\n  - [Two](part/ch02.md)\n",
		"src/ch01.md":      "# One\n\n[two](part/ch02.html) [two again](./part/ch02.md#deep) [std](../std/index.html)\n[gone](ch09.html)\n",
		"src/part/ch02.md": "# Two\n\n## Deep\n\n[one](../ch01.html#one)\n",
	})
	r := runCLI(t, t.TempDir(), "check", "--json", "--tree", "tzdocs="+tree)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Line != 4 || !strings.Contains(rep.Errors[0].Message, `"ch09.html" names no page the mdbook navigation lists`) {
		t.Errorf("errors %+v, want one for ch09.html at line 4", rep.Errors)
	}
}

// TestCheckLinesAfterInclude: on a page whose includes add lines, a
// finding names the line of the page's own file: a link after an include
// its own line, a link inside included Markdown the directive's line.
func TestCheckLinesAfterInclude(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"book.toml":      "[book]\ntitle = \"B\"\n",
		"src/SUMMARY.md": "# Summary\n\n- [One](ch01.md)\n",
		"src/ch01.md": "# One\n\n```rust\n{{#include listing.rs}}\n```\n\n[gone](ch09.html)\n\n{{#include part.md}}\n\n" +
			"```rust\n# fn hidden() {}\nfn shown() {}\n```\n\n[also gone](ch10.html)\n",
		"src/listing.rs": strings.Repeat("fn line() {}\n", 10),
		"src/part.md":    "Some text.\n\n[missing](ch11.html)\n",
	})
	r := runCLI(t, t.TempDir(), "check", "--json", "--tree", "tzdocs="+tree)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, r.stdout, r.stderr)
	}
	want := map[string]int{`"ch09.html"`: 7, `"ch11.html"`: 9, `"ch10.html"`: 16}
	for _, f := range rep.Errors {
		for target, line := range want {
			if strings.Contains(f.Message, target) {
				if f.Line != line || filepath.Base(f.File) != "ch01.md" {
					t.Errorf("%s reported at %s:%d, want ch01.md:%d", target, filepath.Base(f.File), f.Line, line)
				}
				delete(want, target)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("no finding for %v in %+v", want, rep.Errors)
	}
}
