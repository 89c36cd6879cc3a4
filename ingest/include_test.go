package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncludesServed ingests a small site of each generator whose include
// forms ingest expands: the served copy holds the included text, nested
// includes expanded, and a missing file stays as written with a warning
// of the tree naming the page, the line and the path.
func TestIncludesServed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		files       map[string]string
		page, want  string
		missingLine string
	}{
		{"mdbook", map[string]string{
			"book.toml":        "[book]\ntitle = \"B\"\n",
			"src/SUMMARY.md":   "# Summary\n\n- [A](a.md)\n",
			"src/a.md":         "# A\n\n```rust\n{{#rustdoc_include ../listings/main.rs:body}}\n```\n{{#include part.md}}\n{{#include gone.rs}}\n",
			"src/part.md":      "Part: {{#include ../listings/main.rs:2}}",
			"listings/main.rs": "fn main() {\n    // ANCHOR: body\n    let x = 1;\n    // ANCHOR_END: body\n}\n",
		}, "src/a.md", "```rust\n    let x = 1;\n```\nPart:     // ANCHOR: body\n{{#include gone.rs}}", "src/a.md:7"},
		{"vitepress", map[string]string{
			".vitepress/config.mts": "export default { title: 'V' }\n",
			"index.md":              "# V\n\n<<< @/snippets/a.ts\n<!--@include: ./parts/p.md-->\n<<< @/snippets/gone.ts\n",
			"parts/p.md":            "part <!--@include: ./q.md{2,2}-->",
			"parts/q.md":            "q1\nq2\nq3\n",
			"snippets/a.ts":         "export const a = 1\n",
		}, "index.md", "```ts\nexport const a = 1\n```\npart q2\n<<< @/snippets/gone.ts", "index.md:5"},
		{"mkdocs", map[string]string{
			"mkdocs.yml":    "site_name: M\nnav:\n  - index.md\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [inc]\n",
			"docs/index.md": "# M\n\n--8<-- \"a.md\"\n--8<-- \"gone.md\"\n",
			"inc/a.md":      "alpha --8<--\n--8<-- \"b.md\"\n",
			"inc/b.md":      "beta\n",
		}, "docs/index.md", "alpha --8<--\nbeta\n--8<-- \"gone.md\"", "docs/index.md:4"},
		{"docusaurus", map[string]string{
			"docusaurus.config.js": "module.exports = {title: 'D'}\n",
			"docs/a.mdx":           "# A\n\nimport Ex from '!!raw-loader!./ex.py';\nimport Gone from '!!raw-loader!./gone.py';\n\n<CodeBlock language=\"python\">{Ex}</CodeBlock>\n<CodeBlock>{Gone}</CodeBlock>\n",
			"docs/ex.py":           "print(1)\n",
		}, "docs/a.mdx", "```python\nprint(1)\n```\n<CodeBlock>{Gone}</CodeBlock>", "docs/a.mdx:7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
			}
			trees, err := loadTrees(context.Background(), Options{Trees: []TreeSource{{Name: "docs", Dir: dir}}, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
			if err != nil {
				t.Fatal(err)
			}
			var copy string
			for _, p := range trees[0].pages {
				if p.file == c.page {
					copy = p.copy
				}
			}
			if !strings.Contains(copy, c.want) {
				t.Errorf("%s serves\n%s\nwant it to hold\n%s", c.page, copy, c.want)
			}
			n := 0
			for _, w := range trees[0].warnings {
				if strings.HasPrefix(w, c.missingLine+": missing file") && strings.Contains(w, "gone.") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("warnings %q, want one naming %s and the missing file", trees[0].warnings, c.missingLine)
			}
		})
	}
}

// TestIncludeBoundFlags: the include bounds are ingest's flags, each with
// its default, and a bound set through Options reaches the expansion.
func TestIncludeBoundFlags(t *testing.T) {
	t.Parallel()
	o := Options{}
	flags := map[string]int64{}
	for _, b := range o.Bounds() {
		flags[b.Flag] = b.Default
	}
	for flag, want := range map[string]int64{"max-include-depth": 10, "max-include-bytes": 16 << 20, "max-version-include-bytes": 256 << 20} {
		if flags[flag] != want {
			t.Errorf("--%s defaults to %d, want %d", flag, flags[flag], want)
		}
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "book.toml"), "[book]\n")
	writeFile(t, filepath.Join(dir, "src", "SUMMARY.md"), "- [A](a.md)\n")
	writeFile(t, filepath.Join(dir, "src", "a.md"), "# A\n{{#include b.md}}\n")
	writeFile(t, filepath.Join(dir, "src", "b.md"), "{{#include c.md}}")
	writeFile(t, filepath.Join(dir, "src", "c.md"), "c")
	trees, err := loadTrees(context.Background(), Options{Trees: []TreeSource{{Name: "docs", Dir: dir}}, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes, MaxIncludeDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := trees[0].pages[0].copy; got != "# A\n{{#include c.md}}\n" {
		t.Errorf("depth 1 serves %q, want the nested directive as written", got)
	}
	if len(trees[0].warnings) != 1 || !strings.Contains(trees[0].warnings[0], "--max-include-depth") {
		t.Errorf("warnings %q, want one naming --max-include-depth", trees[0].warnings)
	}
}

// writeFile writes text to the file p, making its folders.
func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
