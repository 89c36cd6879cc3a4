package source

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestVitePressSidebarFunctions: a VitePress config that builds each
// sidebar with a function of the same module, as VitePress's own
// documentation does (sidebar: {'/guide/': {base: '/guide/', items:
// sidebarGuide()}}, the function declared after its use), an arrow
// function and a function taking parameters (one defaulted), is read in
// the sidebar's order with the sidebar's titles and no warning.
func TestVitePressSidebarFunctions(t *testing.T) {
	dir := folder(t, map[string]string{
		"docs/.vitepress/config.mts": `import { defineConfig, type DefaultTheme } from 'vitepress'
export default defineConfig({
  title: 'Site',
  themeConfig: {
    sidebar: {
      '/guide/': { base: '/guide/', items: sidebarGuide() },
      '/reference/': { base: '/reference/', items: sidebarReference('Reference') },
      '/extra/': extra('/extra/', 'Extras'),
    }
  }
})

function sidebarGuide(): DefaultTheme.SidebarItem[] {
  return [
    { text: 'Introduction', items: [
      { text: 'What is it?', link: 'what' },
      { text: 'Getting Started', link: 'getting-started' },
    ] },
    { text: 'Writing', items: [{ text: 'Markdown', link: 'markdown' }] },
  ]
}

const sidebarReference = (label: string, first = 'site-config') => [
  { text: label, items: [{ text: 'Site Config', link: first }, { text: 'CLI', link: 'cli' }] },
]

const extra = function (base, text) { return { base, items: [{ text, link: 'z' }, { text: 'Also', link: 'a' }] } }
`,
		"docs/guide/getting-started.md": "# Start\n",
		"docs/guide/markdown.md":        "# MD\n",
		"docs/guide/what.md":            "# What\n",
		"docs/reference/cli.md":         "# CLI\n",
		"docs/reference/site-config.md": "# SC\n",
		"docs/extra/a.md":               "# A\n",
		"docs/extra/z.md":               "# Z\n",
		"docs/index.md":                 "# Home\n",
	})
	tree, err := Detect(dir).Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `guide/what|docs/guide/what.md|What is it?|Introduction
guide/getting-started|docs/guide/getting-started.md|Getting Started|Introduction
guide/markdown|docs/guide/markdown.md|Markdown|Writing
reference/site-config|docs/reference/site-config.md|Site Config|Reference
reference/cli|docs/reference/cli.md|CLI|Reference
extra/z|docs/extra/z.md|Extras|
extra/a|docs/extra/a.md|Also|
index|docs/index.md||
`
	if got := pagesOf(tree.Pages); got != want {
		t.Errorf("pages\n%swant\n%s", got, want)
	}
	if len(tree.Warnings) != 0 {
		t.Errorf("warnings %q, want none", tree.Warnings)
	}
}

// TestJSFunctionsHostile: a function that calls itself, two that call
// each other, a call the reader cannot follow (a body of statements) and
// deep parameters fall back to the folder's order with the reader's
// warning, or are refused by the depth or node bound naming it; none
// runs past the bounds.
func TestJSFunctionsHostile(t *testing.T) {
	deep := "const f = (x) => [x]\nexport default { themeConfig: { sidebar: " + strings.Repeat("f(", 40) + "[]" + strings.Repeat(")", 40) + " } }\n"
	// Each call lists its argument twice: a sidebar of 2^20 items from a
	// short module, which the reader's walk refuses at the node bound.
	wide := "const d = (x) => ({text: 'G', items: [x, x]})\nexport default { themeConfig: { sidebar: [" + strings.Repeat("d(", 20) + "{text: 'A', link: '/a'}" + strings.Repeat(")", 20) + "] } }\n"
	// Each function calls the next twice: 2^30 calls from 31 lines, which
	// the evaluator's count of values refuses.
	var calls strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&calls, "function f%d() { return [f%d(), f%d()] }\n", i, i+1, i+1)
	}
	calls.WriteString("function f30() { return {text: 'A', link: '/a'} }\nexport default { themeConfig: { sidebar: f0() } }\n")
	for _, c := range []struct {
		name, config string
		warn         string // the warning's words, "" for an error
		err          string // the error's words
		depth        int
	}{
		{"itself", "function f() { return [{ text: 'A', link: '/a' }, ...f()] }\nexport default { themeConfig: { sidebar: f() } }\n", "calls itself", "", 0},
		{"each other", "function f() { return [{ text: 'A', items: g() }] }\nfunction g() { return [{ text: 'B', items: f() }] }\nexport default { themeConfig: { sidebar: f() } }\n", "calls itself", "", 0},
		{"arrow itself", "const f = (n) => [{ text: 'A', items: f(n) }]\nexport default { themeConfig: { sidebar: f(1) } }\n", "calls itself", "", 0},
		{"statements", "function f() { const x = 1; return [{ text: 'A', link: '/a' }] }\nexport default { themeConfig: { sidebar: f() } }\n", "a call of f()", "", 0},
		{"deep", deep, "", "nest deeper than 16", 16},
		{"wide", wide, "", "more than 5000 items", 200},
		{"calls", calls.String(), "", "more than 5000 values", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := folder(t, map[string]string{"docs/.vitepress/config.mts": c.config, "docs/a.md": "# A\n", "docs/b.md": "# B\n"})
			tree, err := VitePress{}.Read(context.Background(), dir, Options{MaxDepth: max(c.depth, 16), MaxNodes: 5000})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "--max-nav-") {
					t.Fatalf("err %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], c.warn) || !strings.Contains(tree.Warnings[0], "does not run") {
				t.Errorf("warnings %q, want one naming %q", tree.Warnings, c.warn)
			}
			if got := fmt.Sprint(len(tree.Pages)); got != "2" {
				t.Errorf("%s pages, want a and b", got)
			}
		})
	}
}
