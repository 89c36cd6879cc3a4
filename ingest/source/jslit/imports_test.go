package jslit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// folder writes files (path → content) into a new folder and opens it
// through the folder reader.
func folder(t *testing.T, files map[string]string) *sitefs.Folder {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFiles(t, root, files)
	dir, err := sitefs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return dir
}

// texts returns the "text" of each item of v, an array of objects.
func texts(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%#v (%s) is not an array", v, jslit.Describe(v))
	}
	var out []string
	for _, it := range list {
		o, ok := it.(*jslit.Object)
		if !ok {
			t.Fatalf("item %#v (%s) is not an object", it, jslit.Describe(it))
		}
		s, _ := jslit.Str(o.Get("text"))
		out = append(out, s)
	}
	return out
}

// TestImportsFollowed: a config module's relative imports are read
// through the folder and their names evaluated: a named constant, a
// renamed function called with arguments (its default and its own
// constants seen from its module), a default import written with .js of
// a TypeScript module, a folder's index re-exporting a sibling's name,
// and CommonJS's require. A package's import is not read.
func TestImportsFollowed(t *testing.T) {
	dir := folder(t, map[string]string{
		".vitepress/config.mts": `import { defineConfig } from 'vitepress'
import { guide } from './sidebar/guide'
import { sidebarReference as reference } from './sidebar/reference'
import nav from './nav.js'
import { api } from './sidebar'
import { theme } from 'some-theme'
export default defineConfig({
  themeConfig: {
    nav,
    theme,
    sidebar: {
      '/guide/': guide,
      '/reference/': { base: '/reference/', items: reference('Ref') },
      '/api/': api,
      '/cjs/': require('./cjs.cjs'),
    },
  },
})
`,
		".vitepress/sidebar/guide.ts":     "export const guide = [{ text: 'Intro', link: '/guide/' }, { text: 'Setup', link: '/guide/setup' }]\n",
		".vitepress/sidebar/reference.ts": "const more = { text: 'More', link: 'more' }\nexport function sidebarReference(title: string, extra = 'Extra') {\n  return [{ text: title, link: 'ref' }, { text: extra, link: 'extra' }, more]\n}\n",
		".vitepress/nav.ts":               "export default [{ text: 'Home', link: '/' }]\n",
		".vitepress/sidebar/index.ts":     "export { api } from './api'\n",
		".vitepress/sidebar/api.ts":       "export const api = [{ text: 'API', link: '/api/' }]\n",
		".vitepress/cjs.cjs":              "module.exports = [{ text: 'CJS', link: '/cjs/' }]\n",
	})
	m, err := jslit.ReadModule(context.Background(), dir, ".vitepress/config.mts", jslit.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	conf := jslit.UnwrapCall(m.Default).(*jslit.Object)
	theme := conf.Get("themeConfig").(*jslit.Object)
	sb := theme.Get("sidebar").(*jslit.Object)
	if got := fmt.Sprint(texts(t, sb.Get("/guide/"))); got != "[Intro Setup]" {
		t.Errorf("/guide/ = %s, want [Intro Setup]", got)
	}
	if got := fmt.Sprint(texts(t, sb.Get("/reference/").(*jslit.Object).Get("items"))); got != "[Ref Extra More]" {
		t.Errorf("/reference/ = %s, want [Ref Extra More]", got)
	}
	if got := fmt.Sprint(texts(t, sb.Get("/api/"))); got != "[API]" {
		t.Errorf("/api/ = %s, want [API]", got)
	}
	if got := fmt.Sprint(texts(t, sb.Get("/cjs/"))); got != "[CJS]" {
		t.Errorf("/cjs/ = %s, want [CJS]", got)
	}
	if got := fmt.Sprint(texts(t, theme.Get("nav"))); got != "[Home]" {
		t.Errorf("nav = %s, want [Home]", got)
	}
	if d := jslit.Describe(theme.Get("theme")); d != `theme, imported from "some-theme"` {
		t.Errorf("a package's import = %q, want it unread, naming the package", d)
	}
	// jslit.ParseModule reads no folder, so it follows no import.
	src, _ := os.ReadFile(filepath.Join(dir.Dir(), ".vitepress/config.mts"))
	m, err = jslit.ParseModule(context.Background(), "config.mts", src, jslit.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sb = jslit.UnwrapCall(m.Default).(*jslit.Object).Get("themeConfig").(*jslit.Object).Get("sidebar").(*jslit.Object)
	if d := jslit.Describe(sb.Get("/guide/")); d != `guide, imported from "./sidebar/guide"` {
		t.Errorf("jslit.ParseModule's import = %q, want it unread", d)
	}
}

// TestImportsBounded: an import out of the folder, of a missing module,
// of a module that imports it back, past the module count and past the
// bytes of all the modules together is a value the reader cannot
// follow, saying why (and naming the flag where a bound is reached),
// never an error; values imported count against the one node budget.
func TestImportsBounded(t *testing.T) {
	ctx := context.Background()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.ts"), []byte("export const s = ['leaked']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chain := map[string]string{
		"config.ts": "import { a } from './m1'\nimport { up } from '../up'\nimport { gone } from './gone'\nimport { c } from './cycle'\nimport { s } from './link'\n" +
			"export default { a, up, gone, c, s }\n",
		"cycle.ts":  "import { c as back } from './cycle2'\nexport const c = back\n",
		"cycle2.ts": "import { c } from './cycle'\nexport { c }\n",
	}
	for i := 1; i <= 5; i++ {
		chain[fmt.Sprintf("m%d.ts", i)] = fmt.Sprintf("import { a as next } from './m%d'\nexport const a = ['m%d', next]\n", i+1, i)
	}
	chain["m6.ts"] = "export const a = 'end'\n"
	dir := folder(t, chain)
	if err := os.Symlink(filepath.Join(outside, "secret.ts"), filepath.Join(dir.Dir(), "link.ts")); err != nil {
		t.Fatal(err)
	}
	read := func(lim jslit.Limits) *jslit.Object {
		t.Helper()
		m, err := jslit.ReadModule(ctx, dir, "config.ts", lim)
		if err != nil {
			t.Fatal(err)
		}
		return m.Default.(*jslit.Object)
	}
	o := read(jslit.Limits{})
	for k, want := range map[string]string{"up": "outside the folder", "gone": "no module gone", "c": "imports itself", "s": "link"} {
		if d := jslit.Describe(o.Get(k)); !strings.Contains(d, want) {
			t.Errorf("%s = %q, want it unread saying %q", k, d, want)
		}
	}
	if strings.Contains(fmt.Sprint(o.Get("s")), "leaked") {
		t.Error("a link out of the folder was read")
	}
	// depth returns how many modules of the chain were read and what
	// stands for the first one that was not.
	depth := func(v any) (int, string) {
		n := 0
		for {
			a, ok := v.([]any)
			if !ok {
				return n, jslit.Describe(v)
			}
			n, v = n+1, a[1]
		}
	}
	if d, last := depth(o.Get("a")); d != 5 || last != "a string" {
		t.Errorf("the chain of imports reads %d modules deep, then %s, want 5 and the string", d, last)
	}
	// Three modules besides the config: m1, m2, m3 (cycle, cycle2 and
	// the others come after a in the order evaluated, so are refused).
	o = read(jslit.Limits{MaxModules: 3})
	if d, last := depth(o.Get("a")); d != 3 || !strings.Contains(last, "--max-nav-modules") {
		t.Errorf("MaxModules 3: the chain reads %d modules deep, then %s, want 3 and the bound named", d, last)
	}
	// All the modules together hold the bytes of one.
	size := int64(len(chain["config.ts"]) + len(chain["m1.ts"]) + len(chain["m2.ts"]) + 5)
	o = read(jslit.Limits{MaxFileBytes: size})
	if d, last := depth(o.Get("a")); d != 2 || !strings.Contains(last, "--max-manifest-bytes") {
		t.Errorf("MaxFileBytes %d: the chain reads %d modules deep, then %s, want 2 and the bound named", size, d, last)
	}
	// The imported values count against the config's budget.
	var b strings.Builder
	b.WriteString("export const big = [")
	for i := 0; i < 600; i++ {
		b.WriteString("1,")
	}
	b.WriteString("]\n")
	dir = folder(t, map[string]string{"config.ts": "import { big } from './big'\nexport default [big, big, [...big]]\n", "big.ts": b.String()})
	if _, err := jslit.ReadModule(ctx, dir, "config.ts", jslit.Limits{MaxNodes: 1000}); !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Errorf("1,200 values imported within 1,000: %v, want the node bound", err)
	}
}

// TestJSConfigOutsideNotRead: a module in a folder is read through sitefs,
// and a 50 MB navigation file is refused before it is read.
func TestJSConfigOverBound(t *testing.T) {
	dir := folder(t, map[string]string{"docusaurus.config.js": "module.exports = {}", "docs/a.md": "# A\n"})
	p := filepath.Join(dir.Dir(), "sidebars.js")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := jslit.ReadModule(context.Background(), dir, "sidebars.js", jslit.Limits{}); err == nil || !strings.Contains(err.Error(), "sidebars.js") || !strings.Contains(err.Error(), "--max-manifest-bytes") {
		t.Fatalf("50 MB sidebars.js: %v", err)
	}
}

// TestJSONAndCommonJSImports: a JSON module is read as the object it
// holds (import sidebar from './sidebar.json', require('./x.json'),
// require('./x') finding x.json, a named import of one of its keys), and
// CommonJS's forms are followed: a function bound to require('./x') and
// called (module.exports = function, an exported name, a function of
// the module assigned to module.exports), names destructured from
// require('./x') (a constant, a renamed function, exports.name).
func TestJSONAndCommonJSImports(t *testing.T) {
	dir := folder(t, map[string]string{
		"config.mjs": `import sidebar from './sidebar.json' with { type: 'json' }
import { api } from './groups.json'
const guide = require('./guide.json')
const bare = require('./bare')
const make = require('./make.cjs')
const named = require('./named.cjs')
const { sidebarRef, more: extra, fromExports } = require('./many.cjs')
export default {
  sidebar, api, guide, bare,
  made: make('Made'),
  named: named.list,
  called: named.build('Built'),
  ref: sidebarRef('Ref'),
  extra,
  fromExports: fromExports(),
}
`,
		"sidebar.json": `[{"text": "From JSON", "link": "/json/"}]`,
		"groups.json":  `{"api": [{"text": "API", "link": "/api/"}], "other": 1}`,
		"guide.json":   `[{"text": "Guide", "link": "/guide/"}]`,
		"bare.json":    `[{"text": "Bare", "link": "/bare/"}]`,
		"make.cjs":     "module.exports = function (title) {\n  return [{ text: title, link: '/made/' }]\n}\n",
		"named.cjs":    "function build(t) { return [{ text: t, link: '/built/' }] }\nmodule.exports = { list: [{ text: 'Listed', link: '/l/' }], build }\n",
		"many.cjs":     "const more = [{ text: 'More', link: '/more/' }]\nconst sidebarRef = (t) => [{ text: t, link: '/ref/' }]\nmodule.exports = { sidebarRef, more }\n",
	})
	// exports.name = … and module.exports.name = … are named exports
	// too.
	if err := os.WriteFile(filepath.Join(dir.Dir(), "many.cjs"), []byte("const more = [{ text: 'More', link: '/more/' }]\nconst sidebarRef = (t) => [{ text: t, link: '/ref/' }]\nmodule.exports.sidebarRef = sidebarRef\nexports.more = more\nexports.fromExports = () => [{ text: 'Exported', link: '/x/' }]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := jslit.ReadModule(context.Background(), dir, "config.mjs", jslit.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Default.(*jslit.Object)
	for k, want := range map[string]string{
		"sidebar": "[From JSON]", "api": "[API]", "guide": "[Guide]", "bare": "[Bare]",
		"made": "[Made]", "named": "[Listed]", "called": "[Built]",
		"ref": "[Ref]", "extra": "[More]", "fromExports": "[Exported]",
	} {
		if got := fmt.Sprint(texts(t, o.Get(k))); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
}

// TestJSONImportsBounded: a JSON module is read within the same bounds as
// any module (the bytes of all the modules together, the module count,
// the folder reader): one that cannot be read leaves the name unread,
// saying why; a JSON module that does not parse does too.
func TestJSONImportsBounded(t *testing.T) {
	big := `[{"text": "` + strings.Repeat("x", 4000) + `"}]`
	dir := folder(t, map[string]string{
		"config.js": "const a = require('./a.json')\nconst big = require('./big.json')\nconst bad = require('./bad.json')\nconst gone = require('./gone.json')\nconst up = require('../up.json')\nmodule.exports = { a, big, bad, gone, up }\n",
		"a.json":    `[{"text": "A"}]`,
		"big.json":  big,
		"bad.json":  `{"text": }`,
	})
	m, err := jslit.ReadModule(context.Background(), dir, "config.js", jslit.Limits{MaxFileBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Default.(*jslit.Object)
	if got := fmt.Sprint(texts(t, o.Get("a"))); got != "[A]" {
		t.Errorf("a = %s, want [A]", got)
	}
	for k, want := range map[string]string{"big": "--max-manifest-bytes", "bad": "bad.json", "gone": "no module gone.json", "up": "outside the folder"} {
		if d := jslit.Describe(o.Get(k)); !strings.Contains(d, want) {
			t.Errorf("%s = %q, want it unread saying %q", k, d, want)
		}
	}
	m, err = jslit.ReadModule(context.Background(), dir, "config.js", jslit.Limits{MaxModules: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := jslit.Describe(m.Default.(*jslit.Object).Get("big")); !strings.Contains(d, "--max-nav-modules") {
		t.Errorf("MaxModules 1: big = %q, want it unread naming --max-nav-modules", d)
	}
}
