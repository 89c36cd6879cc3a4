package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// paths returns the page paths, titles and groups of a tree as one line
// each: "PATH|TITLE|GROUP/GROUP|FILE".
func paths(t *Tree) []string {
	var out []string
	for _, p := range t.Pages {
		out = append(out, p.Path+"|"+p.Title+"|"+strings.Join(p.Group, "/")+"|"+p.File)
	}
	return out
}

func read(t *testing.T, s Source, files map[string]string) (*Tree, error) {
	t.Helper()
	dir := folder(t, files)
	if got := Detect(dir); got.Format() != s.Format() {
		t.Errorf("Detect = %s, want %s", got.Format(), s.Format())
	}
	return s.Read(context.Background(), dir, Options{})
}

func mustRead(t *testing.T, s Source, files map[string]string) *Tree {
	t.Helper()
	tree, err := read(t, s, files)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func wantPages(t *testing.T, tree *Tree, want ...string) {
	t.Helper()
	if got := paths(tree); !reflect.DeepEqual(got, want) {
		t.Errorf("pages =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func wantError(t *testing.T, err error, file string, line int, words ...string) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want a *source.Error", err)
	}
	if se.File != file || se.Line != line {
		t.Errorf("error at %s:%d, want %s:%d (%v)", se.File, se.Line, file, line, err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if se.Fix == "" {
		t.Errorf("error %q names no fix", err)
	}
}

func TestMkDocsNav(t *testing.T) {
	tree := mustRead(t, MkDocs{}, map[string]string{
		"mkdocs.yml": `site_name: Acme
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
  - toc:
      permalink: !ENV [PERMALINK, true]
nav:
  - Home: index.md
  - guide/setup.md
  - Guide:
      - guide/index.md
      - Config: guide/config.md
      - Deep:
          - guide/deep/a.md
  - "":
      - api/index.md
      - api/x.md
  - GitHub: https://github.com/acme
`,
		"docs/index.md":        "# Home\n",
		"docs/guide/setup.md":  "# Setup\n",
		"docs/guide/index.md":  "# Guide\n",
		"docs/guide/config.md": "# Config\n",
		"docs/guide/deep/a.md": "# A\n",
		"docs/api/index.md":    "---\ntitle: API reference\n---\n# API\n",
		"docs/api/x.md":        "# X\n",
	})
	if got := skipsText(tree); got != "1 nav link skipped (external URL)" {
		t.Errorf("skipped entries: %q, want %q", got, "1 nav link skipped (external URL)")
	}
	if tree.Name != "Acme" || tree.Navigation != "mkdocs.yml" || !tree.HeadingTitles || tree.Skipped != 1 {
		t.Errorf("tree %+v", tree)
	}
	wantPages(t, tree,
		"index|Home||docs/index.md",
		"guide/setup|||docs/guide/setup.md",
		"guide||Guide|docs/guide/index.md",
		"guide/config|Config|Guide|docs/guide/config.md",
		"guide/deep/a||Guide/Deep|docs/guide/deep/a.md",
		"api||API reference|docs/api/index.md",
		"api/x||API reference|docs/api/x.md",
	)
	if p := tree.Pages[3]; p.ListedIn != "mkdocs.yml" || p.Pointer != "12" {
		t.Errorf("Config listed at %s:%s, want mkdocs.yml:12", p.ListedIn, p.Pointer)
	}
}

func TestMkDocsWithoutNav(t *testing.T) {
	tree := mustRead(t, MkDocs{}, map[string]string{
		"mkdocs.yml":        "site_name: X\ndocs_dir: site\n",
		"site/b.md":         "# B\n",
		"site/README.md":    "# Readme\n",
		"site/a/z.md":       "# Z\n",
		"site/a/index.md":   "# A\n",
		"site/.hidden/x.md": "# hidden\n",
		"site/img.png":      "png",
	})
	wantPages(t, tree,
		"index|||site/README.md",
		"a||A|site/a/index.md",
		"a/z||A|site/a/z.md",
		"b|||site/b.md",
	)
}

func TestMkDocsHostile(t *testing.T) {
	// A page outside docs_dir, or outside the folder.
	for _, target := range []string{"../secret.md", "../../etc/passwd.md", "/../x.md"} {
		_, err := read(t, MkDocs{}, map[string]string{"mkdocs.yml": "nav:\n  - Home: index.md\n  - Out: " + target + "\n", "docs/index.md": "# H\n"})
		wantError(t, err, "mkdocs.yml", 3, "outside")
	}
	// A nav listing a page twice keeps the first, with a warning naming both lines.
	tree := mustRead(t, MkDocs{}, map[string]string{"mkdocs.yml": "nav:\n  - index.md\n  - Again: index.md\n", "docs/index.md": "# H\n"})
	if len(tree.Pages) != 1 || len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], "mkdocs.yml:3") || !strings.Contains(tree.Warnings[0], "mkdocs.yml:2") {
		t.Errorf("pages %v, warnings %q", paths(tree), tree.Warnings)
	}
	// A missing page is a page without a file, for ingest to refuse by line.
	tree = mustRead(t, MkDocs{}, map[string]string{"mkdocs.yml": "nav:\n  - index.md\n  - gone.md\n", "docs/index.md": "# H\n"})
	if p := tree.Pages[1]; p.File != "" || p.Tried != "docs/gone.md" || p.Pointer != "3" {
		t.Errorf("missing page %+v", p)
	}
	// A YAML alias that holds itself: a cycle, refused within the bounds.
	_, err := read(t, MkDocs{}, map[string]string{"mkdocs.yml": "nav: &a\n  - index.md\n  - Loop: *a\n", "docs/index.md": "# H\n"})
	wantError(t, err, "mkdocs.yml", 3, "deeper than the bound of 64", "alias")
	// Invalid YAML names its line.
	_, err = read(t, MkDocs{}, map[string]string{"mkdocs.yml": "nav:\n  - index.md\n - [\n", "docs/index.md": "# H\n"})
	wantError(t, err, "mkdocs.yml", 2, "not valid YAML")
}

func TestSummary(t *testing.T) {
	tree := mustRead(t, MdBook{}, map[string]string{
		"book.toml": "[book]\ntitle = \"The Book\"\n\n[output.html.redirect]\n\"old.html\" = \"intro.html\"\n",
		"src/SUMMARY.md": `# Summary

[Preface](README.md)

---

- [Intro](intro.md)
  - [Nested \` + "`code`" + `](intro/nested.md)
- [Draft]()

# Part Two

* [Second](part2/index.md)

<!-- - [Commented](commented.md) -->
---

[Appendix](appendix.md)
`,
		"src/README.md":        "# Preface\n",
		"src/intro.md":         "# Intro\n",
		"src/intro/nested.md":  "# Nested\n",
		"src/part2/index.md":   "# Second\n",
		"src/appendix.md":      "# Appendix\n",
		"src/commented.md":     "# C\n",
		"README.md":            "# Repository readme\n",
		"src/img/diagram.md.x": "",
	})
	if got := skipsText(tree); got != "1 SUMMARY.md chapter skipped (a draft, with no file)" {
		t.Errorf("skipped entries: %q, want %q", got, "1 SUMMARY.md chapter skipped (a draft, with no file)")
	}
	if tree.Name != "The Book" || tree.Skipped != 1 || tree.Navigation != "src/SUMMARY.md" {
		t.Errorf("tree name %q, skipped %d, navigation %q", tree.Name, tree.Skipped, tree.Navigation)
	}
	wantPages(t, tree,
		"index|Preface||src/README.md",
		"intro|Intro||src/intro.md",
		"intro/nested|Nested `code`||src/intro/nested.md",
		"part2|Second|Part Two|src/part2/index.md",
		"appendix|Appendix|Part Two|src/appendix.md",
	)
	if !reflect.DeepEqual(tree.Redirects, []Redirect{{Source: "/old", Destination: "intro"}}) {
		t.Errorf("redirects %v", tree.Redirects)
	}
}

func TestGitBookSummary(t *testing.T) {
	tree := mustRead(t, GitBook{}, map[string]string{
		".gitbook.yaml":        "root: ./docs/\n",
		"docs/SUMMARY.md":      "# Table of contents\n\n* [Welcome](README.md)\n\n## Guides\n\n* [Setup](guides/setup.md)\n  * [Deep](guides/deep.md)\n",
		"docs/README.md":       "# Welcome\n",
		"docs/guides/setup.md": "# Setup\n",
		"docs/guides/deep.md":  "# Deep\n",
	})
	wantPages(t, tree,
		"index|Welcome||docs/README.md",
		"guides/setup|Setup|Guides|docs/guides/setup.md",
		"guides/deep|Deep|Guides|docs/guides/deep.md",
	)
}

func TestSummaryHostile(t *testing.T) {
	// A page listed twice: the second entry is left out, with a warning.
	tree := mustRead(t, GitBook{}, map[string]string{"SUMMARY.md": "- [A](a.md)\n- [A again](./a.md)\n", "a.md": "# A\n"})
	if len(tree.Pages) != 1 || len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], "SUMMARY.md:2") {
		t.Errorf("pages %v, warnings %q", paths(tree), tree.Warnings)
	}
	// A path outside the folder.
	_, err := read(t, MdBook{}, map[string]string{"book.toml": "", "src/SUMMARY.md": "- [A](a.md)\n- [Out](../../etc/passwd.md)\n", "src/a.md": "# A\n"})
	wantError(t, err, "src/SUMMARY.md", 2, "outside")
	_, err = read(t, MdBook{}, map[string]string{"book.toml": "[book]\nsrc = \"../\"\n"})
	wantError(t, err, "book.toml", 0, "leaves the folder")
	// A summary over the bound.
	dir := folder(t, map[string]string{"SUMMARY.md": strings.Repeat("- [A](a.md)\n", 200), "a.md": "# A\n"})
	_, err = GitBook{}.Read(context.Background(), dir, Options{MaxFileBytes: 1000})
	wantError(t, err, "SUMMARY.md", 0, "over the bound of 1000 bytes", "--max-manifest-bytes")
	if !errors.Is(err, sitefs.ErrTooLarge) {
		t.Errorf("%v is not sitefs.ErrTooLarge", err)
	}
	// Nesting deeper than the bound.
	_, err = GitBook{}.Read(context.Background(), folder(t, map[string]string{"SUMMARY.md": "- [A](a.md)\n" + strings.Repeat(" ", 40) + "- [B](b.md)\n"}), Options{MaxDepth: 4})
	wantError(t, err, "SUMMARY.md", 2, "deeper than the bound of 4")
	// A missing page is a page without a file.
	tree = mustRead(t, GitBook{}, map[string]string{"SUMMARY.md": "- [Gone](gone.md)\n"})
	if p := tree.Pages[0]; p.File != "" || p.Tried != "gone.md" || p.Pointer != "1" {
		t.Errorf("missing page %+v", p)
	}
}

func TestNextraMeta(t *testing.T) {
	tree := mustRead(t, Nextra{}, map[string]string{
		"pages/_meta.json":       `{"index": "Introduction", "guide": {"title": "The Guide"}, "---": {"type": "separator"}, "about": "About us", "gh": {"title": "GitHub", "href": "https://github.com"}, "secret": {"display": "hidden"}}`,
		"pages/index.mdx":        "# Intro\n",
		"pages/about.md":         "# About\n",
		"pages/secret.md":        "# Secret\n",
		"pages/zeta.md":          "# Zeta\n",
		"pages/guide/_meta.ts":   "import type { MetaRecord } from 'nextra'\n// order\nexport default {\n  'second': 'Second page',\n  first: { title: `First` },\n} satisfies MetaRecord\n",
		"pages/guide/first.mdx":  "# First\n",
		"pages/guide/second.mdx": "# Second\n",
		"pages/guide/third.mdx":  "# Third\n",
		"pages/api/_meta.js":     "import { helper } from '../x'\nexport default {\n  ...helper(),\n}\n",
		"pages/api/b.md":         "# B\n",
		"pages/api/a.md":         "# A\n",
		"pages/_app.mdx":         "app",
	})
	wantPages(t, tree,
		"index|Introduction||pages/index.mdx",
		"guide/second|Second page|The Guide|pages/guide/second.mdx",
		"guide/first|First|The Guide|pages/guide/first.mdx",
		"guide/third||The Guide|pages/guide/third.mdx",
		"about|About us||pages/about.md",
		"api/a||Api|pages/api/a.md",
		"api/b||Api|pages/api/b.md",
		"zeta|||pages/zeta.md",
	)
	if len(tree.Warnings) != 1 || !strings.HasPrefix(tree.Warnings[0], "pages/api/_meta.js:3:") || !strings.Contains(tree.Warnings[0], "ordered by name") {
		t.Errorf("warnings %q, want one naming pages/api/_meta.js:3", tree.Warnings)
	}
	// A _meta.json listing a page twice (two keys naming one file cannot
	// be written in JSON, but a key naming no page can).
	tree = mustRead(t, Nextra{}, map[string]string{"_meta.json": `{"a": "A", "gone": "Gone"}`, "a.md": "# A\n"})
	if len(tree.Pages) != 1 || len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], `"gone"`) {
		t.Errorf("pages %v, warnings %q", paths(tree), tree.Warnings)
	}
	// An invalid _meta.json is refused by line.
	_, err := read(t, Nextra{}, map[string]string{"_meta.json": "{\n  \"a\": \"A\",\n  \"b\": oops\n}", "a.md": "# A\n"})
	wantError(t, err, "_meta.json", 3, "code, not data")
}

// TestNextraMetaThroughJSLit: Nextra's _meta modules are read by the one
// reader of navigation code (jslit), where the base read them with a
// parser of its own: a module whose titles name its own constants and
// spread one of its objects (as the other formats' modules may) is read
// in its order and titles, and its values count against --max-nav-nodes
// as the other formats' do, refused naming the flag.
func TestNextraMetaThroughJSLit(t *testing.T) {
	tree := mustRead(t, Nextra{}, map[string]string{
		"pages/_meta.js": "const guide = 'The Guide'\nconst more = { about: { title: 'About us' } }\nexport default {\n  guide: { title: guide },\n  ...more,\n}\n",
		"pages/about.md": "# About\n",
		"pages/guide.md": "# Guide\n",
		"pages/index.md": "# Home\n",
	})
	wantPages(t, tree, "index|||pages/index.md", "guide|The Guide||pages/guide.md", "about|About us||pages/about.md")
	if len(tree.Warnings) != 0 {
		t.Errorf("warnings %q, want none", tree.Warnings)
	}
	var b strings.Builder
	b.WriteString("export default {\n")
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, "  p%d: 'P',\n", i)
	}
	b.WriteString("}\n")
	dir := folder(t, map[string]string{"pages/_meta.js": b.String(), "pages/a.md": "# A\n"})
	if _, err := (Nextra{}).Read(context.Background(), dir, Options{MaxNodes: 500}); err == nil || !strings.Contains(err.Error(), "more than 500 values") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Errorf("a _meta.js of 600 values within 500: %v, want the node bound named", err)
	}
	// Constants shared among many places: 2^20 values met from 21 lines,
	// refused at the bound where a walk would not end.
	b.Reset()
	b.WriteString("const c0 = { title: 'T' }\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "const c%d = [c%d, c%d]\n", i, i-1, i-1)
	}
	b.WriteString("export default { a: { title: 'A', theme: c20 } }\n")
	dir = folder(t, map[string]string{"pages/_meta.js": b.String(), "pages/a.md": "# A\n"})
	if _, err := (Nextra{}).Read(context.Background(), dir, Options{MaxNodes: 5000}); err == nil || !strings.Contains(err.Error(), "more than 5000 values") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Errorf("a _meta.js sharing its constants 2^20 times: %v, want the node bound named", err)
	}
}

func TestLLMSTxt(t *testing.T) {
	tree := mustRead(t, LLMSTxt{}, map[string]string{
		"llms.txt":       "# Acme\n\n> About Acme.\n\n## Docs\n\n- [Quick start](https://acme.dev/docs/start.md): begin\n- [Guide](/docs/guide/)\n\n## Optional\n\n- [Gone](https://acme.dev/gone.md)\n- [Start again](start.md)\n",
		"start.md":       "# Start\n",
		"guide/index.md": "# Guide\n",
		"llms-full.txt":  "all\n",
	})
	if got := skipsText(tree); got != "1 llms.txt link skipped (names no file of the folder)" {
		t.Errorf("skipped entries: %q, want %q", got, "1 llms.txt link skipped (names no file of the folder)")
	}
	if tree.Name != "Acme" || tree.Skipped != 1 || len(tree.Warnings) != 2 {
		t.Errorf("tree %q skipped %d warnings %q", tree.Name, tree.Skipped, tree.Warnings)
	}
	wantPages(t, tree,
		"start|Quick start|Docs|start.md",
		"guide|Guide|Docs|guide/index.md",
	)
}

func TestMarkdownOrder(t *testing.T) {
	tree := mustRead(t, Markdown{}, map[string]string{
		"README.md":         "# Project\n",
		"b.md":              "---\nnav_order: 1\n---\n# B\n",
		"a.md":              "---\nnav_order: 3\n---\n# A\n",
		"c.md":              "# C\n",
		"guide/index.md":    "---\nnav_order: 2\n---\n# Guide\n",
		"guide/README.md":   "# Guide readme\n",
		"guide/x.mdx":       "# X\n",
		"node_modules/m.md": "# M\n",
		".github/ISSUE.md":  "# I\n",
	})
	wantPages(t, tree,
		"index|||README.md",
		"b|||b.md",
		"guide||Guide|guide/index.md",
		"guide/x||Guide|guide/x.mdx",
		"a|||a.md",
		"c|||c.md",
	)
	if len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], "guide/README.md") {
		t.Errorf("warnings %q", tree.Warnings)
	}
}

func TestByName(t *testing.T) {
	for _, s := range Formats {
		if got, err := ByName(s.Format()); err != nil || got.Format() != s.Format() {
			t.Errorf("ByName(%s) = %v, %v", s.Format(), got, err)
		}
	}
	_, err := ByName("sphinx")
	if err == nil || !strings.Contains(err.Error(), "mkdocs, mdbook") || !strings.Contains(err.Error(), `"sphinx"`) {
		t.Errorf("ByName(sphinx) = %v, want a refusal naming the formats", err)
	}
}

func TestFolderBounds(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".md"] = "# " + n + "\n"
	}
	_, err := Markdown{}.Read(context.Background(), folder(t, files), Options{MaxNodes: 3})
	wantError(t, err, ".", 0, "more than 3 entries", "--max-nav-nodes")
	_, err = Markdown{}.Read(context.Background(), folder(t, map[string]string{"a/b/c/d/e.md": "# E\n"}), Options{MaxDepth: 2})
	wantError(t, err, "a/b/c", 0, "deeper than the bound of 2", "--max-nav-depth")
}

// TestMarkdownNamesConfigBelow: a folder read as plain Markdown that holds
// a generator's configuration in a subfolder says which folder to ingest.
func TestMarkdownNamesConfigBelow(t *testing.T) {
	tree := mustRead(t, Markdown{}, map[string]string{"README.md": "# R\n", "docs/en/mkdocs.yml": "nav: []\n", "docs/en/docs/index.md": "# I\n"})
	if len(tree.Warnings) != 1 || !strings.HasPrefix(tree.Warnings[0], "docs/en/mkdocs.yml: ") || !strings.Contains(tree.Warnings[0], "--tree NAME=") {
		t.Errorf("warnings %q", tree.Warnings)
	}
}

// TestFolderWalkLinks: a folder walk lists no folder through a symbolic
// link, so a link cycle cannot loop, and ListDir refuses a folder that
// leads out of the tree folder.
func TestFolderWalkLinks(t *testing.T) {
	dir := folder(t, map[string]string{"index.md": "# H\n", "guide/a.md": "# A\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# S\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"guide/loop": "..", "out": outside} {
		if err := os.Symlink(target, filepath.Join(dir.Dir(), filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := Markdown{}.Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantPages(t, tree, "index|||index.md", "guide/a||Guide|guide/a.md")
	if _, err := dir.ListDir(context.Background(), "out", 100); !errors.Is(err, sitefs.ErrOutside) {
		t.Errorf("ListDir through a link out of the folder: %v, want sitefs.ErrOutside", err)
	}
}

// skipsText names a tree's skipped entries by kind, as ingest prints
// them, joined with "; ".
func skipsText(tree *Tree) string {
	var out []string
	for _, c := range SkipCounts(tree.Skips) {
		out = append(out, c.String())
	}
	return strings.Join(out, "; ")
}
