package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// includeFolder writes files into a new folder, each name relative to it,
// and a file outside it that "outside.txt" inside links to; it returns
// the folder open.
func includeFolder(t *testing.T, files map[string]string) *sitefs.Folder {
	t.Helper()
	top := t.TempDir()
	root := filepath.Join(top, "site")
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(top, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "outside.txt")); err != nil {
		t.Fatal(err)
	}
	dir, err := sitefs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return dir
}

// expand expands page's text with the rules and bounds given.
func expand(t *testing.T, dir *sitefs.Folder, rules Includes, b IncludeBounds, page, text string) (string, *Expander) {
	t.Helper()
	x := &Expander{Dir: dir, Rules: rules, Bounds: b}
	out, err := x.Page(context.Background(), page, 1, text)
	if err != nil {
		t.Fatal(err)
	}
	return out, x
}

// expandLines expands the page of the lines given and fails unless it
// serves the lines want.
func expandLines(t *testing.T, dir *sitefs.Folder, rules Includes, page string, lines, want []string) *Expander {
	t.Helper()
	out, x := expand(t, dir, rules, IncludeBounds{}, page, strings.Join(lines, "\n"))
	if w := strings.Join(want, "\n"); out != w {
		t.Errorf("expanded to\n%s\nwant\n%s", out, w)
	}
	return x
}

// wantWarning fails unless exactly one warning holds every part.
func wantWarning(t *testing.T, ws []string, parts ...string) {
	t.Helper()
	n := 0
	for _, w := range ws {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings hold %q, want 1; warnings: %q", n, parts, ws)
	}
}

func TestMdBookIncludeForms(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"listings/a.rs":      "// ANCHOR: all\nuse std::io;\n// ANCHOR: body\nfn main() {\n    # hidden();\n    ## shown();\n}\n// ANCHOR_END: body\n// ANCHOR_END: all\n",
		"listings/lines.txt": "one\ntwo\nthree\nfour\nfive\n",
		"src/part.md":        "Part says {{#include ../listings/lines.txt:2}}.\n",
		"src/loop.md":        "{{#include loop.md}}",
	})
	rules := Includes{Form: IncludeMdBook}
	page := []string{
		"```rust",
		"{{#rustdoc_include ../listings/a.rs:body}}",
		"```",
		"{{#include ../listings/lines.txt:2:3}}|{{#include ../listings/lines.txt::2}}|{{#include ../listings/lines.txt:4:}}|{{#include ../listings/lines.txt:5}}",
		"{{#include part.md}}",
		`\{{#include escaped.rs}}`,
		"{{#include ../listings/gone.rs}}",
		"{{#include ../listings/a.rs:nowhere}}",
		"{{#include ../listings/lines.txt:9:10}}",
		"{{#include ../../etc/passwd}}",
		"{{#include ../outside.txt}}",
		"{{#playground ../listings/lines.txt editable}}",
		"{{#title Kept}}",
	}
	x := expandLines(t, dir, rules, "src/page.md", page, []string{
		"```rust",
		"fn main() {",
		"    # shown();",
		"}",
		"```",
		"two\nthree|one\ntwo|four\nfive|five",
		"Part says two.",
		`{{#include escaped.rs}}`,
		"{{#include ../listings/gone.rs}}",
		"{{#include ../listings/a.rs:nowhere}}",
		"{{#include ../listings/lines.txt:9:10}}",
		"{{#include ../../etc/passwd}}",
		"{{#include ../outside.txt}}",
		"```rust,editable\none\ntwo\nthree\nfour\nfive\n```\n",
		"{{#title Kept}}",
	})
	if x.Expanded != 8 {
		t.Errorf("%d directives expanded, want 8", x.Expanded)
	}
	wantWarning(t, x.Warnings, "src/page.md:7:", "missing file", "listings/gone.rs")
	wantWarning(t, x.Warnings, "src/page.md:8:", "missing anchor", `"nowhere"`, "listings/a.rs")
	wantWarning(t, x.Warnings, "src/page.md:9:", "missing range", "line 9", "listings/lines.txt")
	wantWarning(t, x.Warnings, "src/page.md:10:", "outside the folder", "../../etc/passwd")
	wantWarning(t, x.Warnings, "src/page.md:11:", "outside.txt", "outside the folder")
	if len(x.Warnings) != 5 {
		t.Errorf("warnings %q, want 5", x.Warnings)
	}

	// A file that includes itself stops at the depth bound, named.
	out, x := expand(t, dir, rules, IncludeBounds{MaxDepth: 3}, "src/page.md", "{{#include loop.md}}")
	if out != "{{#include loop.md}}" || x.Expanded != 3 {
		t.Errorf("a loop expanded to %q after %d expansions, want the directive after 3", out, x.Expanded)
	}
	wantWarning(t, x.Warnings, "src/page.md:1 > src/loop.md:1 > src/loop.md:1 > src/loop.md:1:", "deeper than the bound of 3", "--max-include-depth")
}

// TestHideRustLines: in a Rust block "# " lines and a lone "#" go, "##"
// is served as "#"; other blocks keep theirs.
func TestHideRustLines(t *testing.T) {
	in := "# Title\n```rust,ignore\n# use x;\n#\nfn f() {}\n##[attr]\n#[derive(Debug)]\n```\n```text\n# kept\n```\n~~~rust\n  # gone\n~~~\n"
	want := "# Title\n```rust,ignore\nfn f() {}\n#[attr]\n#[derive(Debug)]\n```\n```text\n# kept\n```\n~~~rust\n~~~\n"
	if got := hideRustLines(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestVitePressIncludeForms(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"docs/snippets/code.ts": "const a = 1\n// #region part\n  const b = 2\n  const c = 3\n// #endregion part\n",
		"docs/parts/basics.md":  "---\ntitle: x\n---\nBasics <!--@include: ./nested.md-->\n",
		"docs/parts/nested.md":  "nested one\nnested two\nnested three\n",
		"docs/parts/regions.md": "a\n<!-- #region r -->\ninside\n<!-- #endregion r -->\nb\n",
		"docs/guide/local.yaml": "key: 1\n",
		"docs/parts/loop.md":    "<!--@include: ./loop.md-->",
	})
	rules := Includes{Form: IncludeVitePress, Root: "docs"}
	// left are the lines served as written.
	left := []string{
		"<<< @/snippets/gone.ts",
		"<!--@include: ../parts/regions.md#none-->",
		"<!--@include: ../parts/nested.md{9,}-->",
		"<<< ../../outside.txt",
		"<!--@include: ../../../x.md-->",
	}
	page := append([]string{
		"<<< @/snippets/code.ts{2-4}",
		"<<< @/snippets/code.ts#part{1 js} [Label]",
		"   <<< ./local.yaml",
		"```md",
		"<<< @/snippets/code.ts",
		"```",
		"<!--@include: ../parts/basics.md-->",
		"<!--@include: ../parts/nested.md{2,}-->",
		"<!--@include: @/parts/regions.md#r-->",
	}, left...)
	x := expandLines(t, dir, rules, "docs/guide/page.md", page, append([]string{
		"```ts{2-4}\nconst a = 1\n// #region part\n  const b = 2\n  const c = 3\n// #endregion part\n```",
		"```js{1} [Label]\nconst b = 2\nconst c = 3\n```",
		"   ```yaml\n   key: 1\n   ```",
		"```md",
		"<<< @/snippets/code.ts",
		"```",
		"Basics nested one\nnested two\nnested three\n\n",
		"nested two\nnested three\n",
		"inside",
	}, left...))
	wantWarning(t, x.Warnings, "docs/guide/page.md:10:", "missing file", "docs/snippets/gone.ts")
	wantWarning(t, x.Warnings, "docs/guide/page.md:11:", "missing region", `"none"`)
	wantWarning(t, x.Warnings, "docs/guide/page.md:12:", "missing range", "{9,}")
	wantWarning(t, x.Warnings, "docs/guide/page.md:13:", "outside.txt", "outside the folder")
	wantWarning(t, x.Warnings, "docs/guide/page.md:14:", "outside the folder", "../../../x.md")
	if len(x.Warnings) != 5 || x.Expanded != 7 {
		t.Errorf("%d expanded, warnings %q; want 7 and 5 warnings", x.Expanded, x.Warnings)
	}
	_, x = expand(t, dir, rules, IncludeBounds{MaxDepth: 2}, "docs/parts/page.md", "<!--@include: ./loop.md-->")
	wantWarning(t, x.Warnings, "docs/parts/page.md:1 > docs/parts/loop.md:1 > docs/parts/loop.md:1:", "bound of 2 levels", "--max-include-depth")
}

func TestMkDocsSnippetForms(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"snippets/a.md":    "alpha\n--8<-- \"b.md\"\n",
		"snippets/b.md":    "beta one\nbeta two\nbeta three\n",
		"snippets/code.py": "x = 0\n# --8<-- [start:func]\ndef f():\n    return 1\n# --8<-- [end:func]\n",
		"snippets/loop.md": "--8<-- \"loop.md\"\n",
		"docs/private.md":  "not under the base path\n",
	})
	rules := Includes{Form: IncludeMkDocs, Snippets: true, BasePaths: []string{"snippets"}}
	// left are the lines served as written.
	left := []string{
		`--8<-- "gone.md"`,
		`--8<-- "code.py:nothing"`,
		`--8<-- "b.md:7:9"`,
		`--8<-- "../docs/private.md"`,
		`--8<-- "loop.md"`,
		`{* ../../docs_src/app.py hl[2] *}`,
	}
	page := append([]string{
		`  --8<-- "a.md"`,
		`--8<-- "b.md:2:3"`,
		`--8<-- 'code.py:func'`,
		`;--8<-- "a.md"`,
		"--8<--",
		"b.md:1:1",
		"",
		"; b.md",
		"--8<--",
	}, left...)
	x := expandLines(t, dir, rules, "docs/page.md", page, append([]string{
		"  alpha",
		"  beta one",
		"  beta two",
		"  beta three",
		"beta two",
		"beta three",
		"def f():",
		"    return 1",
		`--8<-- "a.md"`,
		"beta one",
		"",
	}, left...))
	wantWarning(t, x.Warnings, "docs/page.md:10:", "missing file", "gone.md", "snippets")
	wantWarning(t, x.Warnings, "docs/page.md:11:", "missing section", `"nothing"`)
	wantWarning(t, x.Warnings, "docs/page.md:12:", "missing range", "snippets/b.md")
	wantWarning(t, x.Warnings, "docs/page.md:13:", "missing file", "../docs/private.md")
	wantWarning(t, x.Warnings, "docs/page.md:14 > snippets/loop.md:1:", "snippet cycle", "snippets/loop.md")
	wantWarning(t, x.Warnings, "docs/page.md:15:", "FastAPI hook", "../../docs_src/app.py", "served as written")
	if len(x.Warnings) != 6 || x.Expanded != 6 {
		t.Errorf("%d expanded, warnings %q; want 6 and 6 warnings", x.Expanded, x.Warnings)
	}

	// Without pymdownx.snippets enabled, --8<-- is text; the hook is still named.
	out, x := expand(t, dir, Includes{Form: IncludeMkDocs}, IncludeBounds{}, "docs/page.md", strings.Join(page, "\n"))
	if out != strings.Join(page, "\n") || len(x.Warnings) != 1 {
		t.Errorf("snippets off: expanded to %q, warnings %q", out, x.Warnings)
	}
}

func TestDocusaurusRawLoader(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"website/src/example.js": "console.log(1)\n",
		"docs/sub/local.ts":      "```\nlet x = 1\n",
	})
	rules := Includes{Form: IncludeDocusaurus, Root: "website"}
	// left are the lines served as written.
	left := []string{
		"<CodeBlock>{Gone}</CodeBlock>",
		"<CodeBlock>{Out}</CodeBlock>",
		"<CodeBlock>{Other}</CodeBlock>",
	}
	page := append([]string{
		"import CodeBlock from '@theme/CodeBlock';",
		"import Example from '!!raw-loader!@site/src/example.js';",
		`import Local from "!!raw-loader!./sub/local.ts";`,
		"import Gone from '!!raw-loader!./gone.js';",
		"import Out from '!!raw-loader!../../outside.txt';",
		"",
		`<CodeBlock language="jsx" title="src/example.js">{Example}</CodeBlock>`,
		"  <CodeBlock language='ts'>",
		"    {Local}",
		"  </CodeBlock>",
	}, left...)
	x := expandLines(t, dir, rules, "docs/page.mdx", page, append([]string{
		"import CodeBlock from '@theme/CodeBlock';",
		"import Example from '!!raw-loader!@site/src/example.js';",
		`import Local from "!!raw-loader!./sub/local.ts";`,
		"import Gone from '!!raw-loader!./gone.js';",
		"import Out from '!!raw-loader!../../outside.txt';",
		"",
		"```jsx title=\"src/example.js\"\nconsole.log(1)\n```",
		"  ````ts\n  ```\n  let x = 1\n  ````",
	}, left...))
	wantWarning(t, x.Warnings, "docs/page.mdx:11:", "missing file", "docs/gone.js")
	wantWarning(t, x.Warnings, "docs/page.mdx:12:", "outside the folder", "../../outside.txt")
	if len(x.Warnings) != 2 || x.Expanded != 2 {
		t.Errorf("%d expanded, warnings %q; want 2 and 2 warnings", x.Expanded, x.Warnings)
	}
}

// TestIncludeByteBounds: a page's includes stop at the page's bound and a
// version's at the version's, each named with its flag once, and what is
// left stays as written; the count of bytes is the files' whole sizes.
func TestIncludeByteBounds(t *testing.T) {
	dir := includeFolder(t, map[string]string{"src/ten.txt": "123456789\n"})
	rules := Includes{Form: IncludeMdBook}
	page := "{{#include ten.txt:1}} {{#include ten.txt:1}} {{#include ten.txt:1}}"
	out, x := expand(t, dir, rules, IncludeBounds{MaxPageBytes: 25}, "src/p.md", page)
	if out != "123456789 123456789 {{#include ten.txt:1}}" || *x.Used != 20 || x.Reads != 1 {
		t.Errorf("page bound: %q, %d bytes counted, %d reads", out, *x.Used, x.Reads)
	}
	wantWarning(t, x.Warnings, "src/p.md:1:", "bound of 25 bytes", "--max-include-bytes")

	used := int64(0)
	x = &Expander{Dir: dir, Rules: rules, Bounds: IncludeBounds{MaxVersionBytes: 30}, Used: &used}
	for _, want := range []string{"123456789 123456789 123456789", "{{#include ten.txt:1}} {{#include ten.txt:1}} {{#include ten.txt:1}}"} {
		if out, err := x.Page(context.Background(), "src/p.md", 1, page); err != nil || out != want {
			t.Errorf("version bound: %q, %v; want %q", out, err, want)
		}
	}
	if len(x.Warnings) != 1 || !strings.Contains(x.Warnings[0], "bound of 30 bytes") || !strings.Contains(x.Warnings[0], "--max-version-include-bytes") {
		t.Errorf("version bound warnings %q", x.Warnings)
	}

	// A file over the file bound is refused by the folder reader, named.
	_, x = expand(t, dir, rules, IncludeBounds{MaxFileBytes: 5}, "src/p.md", "{{#include ten.txt}}")
	wantWarning(t, x.Warnings, "over the bound of 5 bytes", "--max-page-bytes")
}

// TestIncludeStops: a cancelled context stops the expansion with its error.
func TestIncludeStops(t *testing.T) {
	dir := includeFolder(t, map[string]string{"src/a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := &Expander{Dir: dir, Rules: Includes{Form: IncludeMdBook}}
	if _, err := x.Page(ctx, "src/p.md", 1, "{{#include a.txt}}"); !errors.Is(err, context.Canceled) || x.Reads != 0 {
		t.Errorf("got %v after %d reads, want context.Canceled before any read", err, x.Reads)
	}
}

// TestMkDocsSnippetsConfig reads pymdownx.snippets and its base_path from
// both forms of markdown_extensions.
func TestMkDocsSnippetsConfig(t *testing.T) {
	for _, c := range []struct {
		yml  string
		on   bool
		base []string
	}{
		{"markdown_extensions:\n  - toc\n  - pymdownx.snippets\n", true, []string{"."}},
		{"markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [docs, snippets]\n", true, []string{"docs", "snippets"}},
		{"markdown_extensions:\n  pymdownx.snippets:\n    base_path: inc\n", true, []string{"inc"}},
		{"markdown_extensions:\n  - toc\n", false, nil},
	} {
		tree := mustRead(t, MkDocs{}, map[string]string{"mkdocs.yml": "site_name: X\n" + c.yml, "docs/index.md": "# H\n"})
		inc := tree.Includes
		if inc.Form != IncludeMkDocs || inc.Snippets != c.on || strings.Join(inc.BasePaths, ",") != strings.Join(c.base, ",") {
			t.Errorf("%q: got %+v, want snippets %v base %q", c.yml, inc, c.on, c.base)
		}
	}
}

// TestGitBookIncludeForms: {% include "PATH" %} (either quote) serves the
// file's text, its front matter left out, relative to the including file
// or, with "/", to the book's root; nested ones too; one in {% raw %} is
// left as written; a missing file, a path out of the folder, another
// repository and a loop stay as written, each warned about once.
func TestGitBookIncludeForms(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"book/.gitbook/includes/note.md": "---\ntitle: Note\n---\nA shared note.\n",
		"book/guide/part.md":             "Part: {% include '../.gitbook/includes/note.md' %}\n",
		"book/guide/loop.md":             "{% include \"loop.md\" %}",
	})
	rules := Includes{Form: IncludeGitBook, Root: "book"}
	page := []string{
		`{% include "../.gitbook/includes/note.md" %}`,
		`{% include "/.gitbook/includes/note.md" %}`,
		`{% include "part.md" %}`,
		`{% raw %}{% include "part.md" %}{% endraw %}`,
		`{% include "gone.md" %}`,
		`{% include "../../../etc/passwd" %}`,
		`{% include "../../outside.txt" %}`,
		`{% include "git+https://example.com/docs.git/README.md#v1" %}`,
	}
	x := expandLines(t, dir, rules, "book/guide/page.md", page, []string{
		"A shared note.",
		"A shared note.",
		"Part: A shared note.",
		`{% raw %}{% include "part.md" %}{% endraw %}`,
		`{% include "gone.md" %}`,
		`{% include "../../../etc/passwd" %}`,
		`{% include "../../outside.txt" %}`,
		`{% include "git+https://example.com/docs.git/README.md#v1" %}`,
	})
	if x.Expanded != 4 {
		t.Errorf("%d directives expanded, want 4", x.Expanded)
	}
	wantWarning(t, x.Warnings, "book/guide/page.md:5:", "missing file", "book/guide/gone.md")
	wantWarning(t, x.Warnings, "book/guide/page.md:6:", "outside the folder", "../../../etc/passwd")
	wantWarning(t, x.Warnings, "book/guide/page.md:7:", "outside the folder", "outside.txt")
	wantWarning(t, x.Warnings, "book/guide/page.md:8:", "another repository")
	if len(x.Warnings) != 4 {
		t.Errorf("warnings %q, want 4", x.Warnings)
	}
	out, x := expand(t, dir, rules, IncludeBounds{MaxDepth: 3}, "book/guide/page.md", `{% include "loop.md" %}`)
	if out != `{% include "loop.md" %}` || x.Expanded != 3 {
		t.Errorf("a loop expanded to %q after %d expansions, want the directive after 3", out, x.Expanded)
	}
	wantWarning(t, x.Warnings, "deeper than the bound of 3", "--max-include-depth")

	// The GitBook reader asks for its form, from the book's root.
	book := includeFolder(t, map[string]string{".gitbook.yaml": "root: ./book/\n", "book/SUMMARY.md": "# Summary\n\n* [Page](page.md)\n", "book/page.md": "# Page\n"})
	tree, err := GitBook{}.Read(context.Background(), book, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Includes.Form != IncludeGitBook || tree.Includes.Root != "book" {
		t.Errorf("the GitBook reader's includes are %+v, want GitBook's from book", tree.Includes)
	}
}
