package source

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
)

// jsFuzzSeeds are modules every JavaScript navigation fuzz target starts
// from: real shapes of each format, and hostile ones (small: the fuzzer
// grows them).
var jsFuzzSeeds = []string{
	"module.exports = {docs: ['a', {type: 'category', label: 'C', items: ['b']}]}",
	"export default {themeConfig: {sidebar: [{text: 'A', link: '/a'}, {text: 'G', items: [{text: 'B', link: '/b'}]}]}}",
	"import starlight from '@astrojs/starlight';\nexport default {integrations: [starlight({title: 'D', sidebar: ['a', {label: 'G', autogenerate: {directory: 'g'}}]})]}",
	"export default {index: 'Home', about: {title: 'About', display: 'hidden'}, '---': {type: 'separator'}}",
	"import {defineConfig} from 'vitepress'\nconst s = [{text: 'A', link: '/a'}]\nexport default defineConfig({themeConfig: {sidebar: {'/': [...s]}}})",
	"const x: Record<string, Array<{a: number}>> = {}\nexport default {a: x as const, b: /re/g, c: `t${1}`, d: a!.b?.c}",
	"if (a) /re/.test(b)\nmodule.exports = {s: (a) / (b) / 2, t: f() /'/ + 1}",
	"module.exports = {s: - - - - typeof void new new X, t: a => b => c, u: a = b = c, v: 1 ? 2 : 3 ? 4 : 5}",
	"module.exports = {s: a.b.c.d()()()[0][0]`x``y`, t: [[[[{a: {b: [1]}}]]]]}",
	"label: for (;;) if (a) ; else if (b) ; else while (c) do ; while (d)\nmodule.exports = {}",
	"let x: keyof readonly A<B<C<D>>> = 1; type T = A extends B ? C : D\nexport default {}",
	"#!/usr/bin/env node\n<!-- html\n--> comment\nmodule.exports = {a: '\\\n'}",
	"export default {title: <b>JSX</b>}",
	"x = async / - - - - 1/1; y = of / - - 1 / 2; z = (a) / - - b / c; w = a\n/ - - 1/g",
	"x = {} / - - 1 / 2; y = function(){} / - 1/ 3; z = a++ / - 1 / 2; q = a! / - 1 / 2",
}

// jsFuzzOracle holds the scan to what it promises: where it counts a
// nesting of peak, the syntax tree of the module as esbuild prints it
// (tdewolff's, which the evaluator walks) is no deeper than a small
// multiple of it. A scan that undercounts some construct fails here long
// before a module could nest the parsers to a crash.
func jsFuzzOracle(t *testing.T, name string, src []byte) {
	ext := strings.ToLower(path.Ext(name))
	peak, err := jslit.Scan(context.Background(), name, src, ext == ".jsx" || ext == ".tsx", 1<<30, 1<<30)
	if err != nil {
		return
	}
	// tdewolff's parser reads JavaScript by its grammar, as esbuild does,
	// without esbuild's folding of constants (- - 1 is 1): the source's
	// own tree.
	if ext == ".js" {
		if ast, err := js.Parse(parse.NewInputBytes(append([]byte(nil), src...)), js.Options{}); err == nil {
			d := &jsDepthVisitor{}
			js.Walk(d, ast)
			if d.max > 8*peak+16 {
				t.Fatalf("the scan counted a nesting of %d, and the module's syntax tree is %d deep (more than 8 × %d + 16):\n%s", peak, d.max, peak, src)
			}
		}
	}
	loader := map[string]api.Loader{".ts": api.LoaderTS, ".mts": api.LoaderTS, ".tsx": api.LoaderTSX, ".jsx": api.LoaderJSX}[ext]
	if loader == api.LoaderNone {
		loader = api.LoaderJS
	}
	res := api.Transform(string(src), api.TransformOptions{Loader: loader, Target: api.ESNext, LogLevel: api.LogLevelSilent})
	if len(res.Errors) > 0 {
		return
	}
	ast, err := js.Parse(parse.NewInputBytes(res.Code), js.Options{})
	if err != nil {
		return
	}
	d := &jsDepthVisitor{}
	js.Walk(d, ast)
	if d.max > 8*peak+16 {
		t.Fatalf("the scan counted a nesting of %d, and the module's syntax tree is %d deep (more than 8 × %d + 16):\n%s", peak, d.max, peak, src)
	}
}

// jsDepthVisitor measures a syntax tree's depth.
type jsDepthVisitor struct{ depth, max int }

func (v *jsDepthVisitor) Enter(js.INode) js.IVisitor {
	v.depth++
	v.max = max(v.max, v.depth)
	return v
}

func (v *jsDepthVisitor) Exit(js.INode) { v.depth-- }

// jsFuzzRead writes the fuzzed module as the reader's navigation file
// beside files in a folder of its own, and reads the folder within small
// bounds: it must not panic or crash, a refusal must say what is wrong,
// and a read tree lists each page file once.
func jsFuzzRead(t *testing.T, src Source, files map[string]string, nav string, data []byte) {
	all := map[string]string{nav: string(data)}
	for name, body := range files {
		all[name] = body
	}
	dir := folder(t, all)
	tree, err := src.Read(context.Background(), dir, Options{MaxNodes: 10000, MaxDepth: 16})
	if err != nil {
		if strings.TrimSpace(err.Error()) == "" {
			t.Fatalf("a refusal with no message: %#v", err)
		}
		if errors.Is(err, jslit.ErrBound) && !strings.Contains(err.Error(), "--max-nav-") {
			t.Fatalf("a bound's refusal names no flag: %v", err)
		}
		return
	}
	seen := map[string]bool{}
	for _, pg := range tree.Pages {
		if pg.File != "" && seen[pg.File] {
			t.Fatalf("%s listed twice:\n%s", pg.File, pagesOf(tree.Pages))
		}
		seen[pg.File] = true
	}
	jsFuzzOracle(t, nav, data)
}

func jsFuzzAdd(f *testing.F, extra ...string) {
	for _, s := range append(jsFuzzSeeds, extra...) {
		f.Add([]byte(s))
	}
}

// FuzzDocusaurusSidebars fuzzes a Docusaurus site's sidebars.js.
func FuzzDocusaurusSidebars(f *testing.F) {
	jsFuzzAdd(f)
	files := map[string]string{"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]]}",
		"docs/a.md": "# A\n", "docs/b.md": "---\nid: b\nsidebar_position: 2\n---\n# B\n", "docs/g/c.md": "# C\n"}
	f.Fuzz(func(t *testing.T, data []byte) {
		jsFuzzRead(t, Docusaurus{}, files, "sidebars.js", data)
	})
}

// FuzzVitePressConfig fuzzes a VitePress site's .vitepress/config.ts.
func FuzzVitePressConfig(f *testing.F) {
	jsFuzzAdd(f)
	files := map[string]string{"a.md": "# A\n", "b.md": "# B\n", "g/index.md": "# G\n", "g/c.md": "# C\n"}
	f.Fuzz(func(t *testing.T, data []byte) {
		jsFuzzRead(t, VitePress{}, files, ".vitepress/config.ts", data)
	})
}

// FuzzStarlightConfig fuzzes a Starlight site's astro.config.mjs.
func FuzzStarlightConfig(f *testing.F) {
	jsFuzzAdd(f)
	files := map[string]string{"src/content/docs/a.md": "---\ntitle: A\n---\n", "src/content/docs/g/b.md": "---\ntitle: B\nsidebar:\n  order: 1\n---\n",
		"src/content/docs/g/c.md": "---\ntitle: C\n---\n"}
	f.Fuzz(func(t *testing.T, data []byte) {
		jsFuzzRead(t, Starlight{}, files, "astro.config.mjs", data)
	})
}

// FuzzNextraMeta fuzzes a Nextra folder's pages/_meta.js.
func FuzzNextraMeta(f *testing.F) {
	jsFuzzAdd(f, `{"index": "Home", "about": {"title": "About"}}`)
	files := map[string]string{"pages/index.md": "# Home\n", "pages/about.md": "# About\n", "pages/g/c.md": "# C\n"}
	f.Fuzz(func(t *testing.T, data []byte) {
		jsFuzzRead(t, Nextra{}, files, "pages/_meta.js", data)
	})
}

// FuzzJSModuleScan holds the scan to the syntax tree's depth
// (jsFuzzOracle) without a reader around it, many times faster, as
// JavaScript and as TypeScript, and parses what it lets through.
func FuzzJSModuleScan(f *testing.F) {
	jsFuzzAdd(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"m.js", "m.ts"} {
			jsFuzzOracle(t, name, data)
			_, err := jslit.ParseModule(context.Background(), name, data, jsLimits(Options{MaxNodes: 10000, MaxDepth: 16}))
			if err != nil && strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("a refusal with no message: %#v", err)
			}
		}
	})
}
