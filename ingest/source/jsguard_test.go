package source

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"

	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// jsHostileN repeats a nesting unit to about 1 MB: esbuild's parser
// ended the process with a stack overflow on half a million of most of
// these, beyond any recover.
func jsHostile(unit string) string {
	return strings.Repeat(unit, (1<<20)/len(unit))
}

// jsHostileModules are the shapes the parsers nest on, each about 1 MB,
// by file name: expressions in a sidebar, statements before the export,
// and TypeScript types.
func jsHostileModules() map[string]string {
	expr := map[string]string{
		"unary-minus":     jsHostile("- ") + "1",
		"unary-plus":      jsHostile("+ ") + "1",
		"not":             jsHostile("!") + "1",
		"bitnot":          jsHostile("~") + "1",
		"typeof":          jsHostile("typeof ") + "1",
		"void":            jsHostile("void ") + "1",
		"delete":          jsHostile("delete ") + "1",
		"new":             jsHostile("new ") + "X",
		"await":           jsHostile("await ") + "1",
		"arrow":           jsHostile("a=>") + "1",
		"paren-arrow":     jsHostile("(a)=>") + "1",
		"assign":          jsHostile("a=") + "1",
		"assign-op":       jsHostile("a+=") + "1",
		"ternary-else":    jsHostile("1?1:") + "1",
		"ternary-then":    jsHostile("1?") + "1" + strings.Repeat(":1", (1<<20)/2),
		"member":          "a" + jsHostile(".a"),
		"optional-member": "a" + jsHostile("?.a"),
		"call":            "a" + jsHostile("()"),
		"index":           "a" + jsHostile("[0]"),
		"tagged-template": "a" + jsHostile("`x`"),
		"binary":          jsHostile("1+") + "1",
		"spread":          jsHostile("[...") + "[]",
		"brackets":        jsHostile("["),
		"objects":         jsHostile("{a:"),
		"template":        jsHostile("`${"),
		"minus-lines":     jsHostile("-\n") + "1",
		"minus-comments":  jsHostile("-/**/") + "1",
		"division-regexp": "function(){} /" + jsHostile(" -") + " 1/g",
		"async-division":  "async /" + jsHostile(" -") + " 1/1",
		"module-division": "module /" + jsHostile(" -") + " 1/1",
	}
	m := map[string]string{}
	for name, e := range expr {
		m[name+".js"] = "module.exports = {s: " + e + "};\n"
	}
	m["if.js"] = jsHostile("if(1)") + ";\nmodule.exports = {};\n"
	m["else-if.js"] = "if(1);" + jsHostile("else if(1);") + "\nmodule.exports = {};\n"
	m["label.js"] = jsHostile("a:") + ";\nmodule.exports = {};\n"
	m["yield.js"] = "function*g(){" + jsHostile("yield ") + "1}\nmodule.exports = {};\n"
	m["type-args.ts"] = "let x: " + jsHostile("A<") + "B;\nexport default {};\n"
	m["type-args-commas.ts"] = "let x: " + jsHostile("A<x,") + "B;\nexport default {};\n"
	m["keyof.ts"] = "let x: " + jsHostile("keyof ") + "T;\nexport default {};\n"
	m["keyof-lines.ts"] = "let x: " + jsHostile("keyof\n") + "T;\nexport default {};\n"
	m["conditional.ts"] = "type X = " + jsHostile("A extends B ? C : ") + "D;\nexport default {};\n"
	m["function-type.ts"] = "type X = " + jsHostile("()=>") + "D;\nexport default {};\n"
	m["non-null.ts"] = "export default {s: a" + jsHostile("!") + "};\n"
	return m
}

// TestJSGuardHostileShapes: each shape a parser nests on, about 1 MB of
// it, is refused before any parser meets it, with an error naming the
// file, the line, the bound and the flag, rather than ending the process.
func TestJSGuardHostileShapes(t *testing.T) {
	for name, src := range jsHostileModules() {
		_, err := jslit.ParseModule(context.Background(), name, []byte(src), jsLimits(Options{}))
		if !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), name+" line ") || !strings.Contains(err.Error(), "deeper than 1024") || !strings.Contains(err.Error(), "--max-nav-depth") {
			t.Errorf("%s: %v, want a refusal naming the file, the line, the bound and --max-nav-depth", name, err)
		}
	}
}

// TestJSGuardHostileReaders: the shape of the report (a sidebar of half
// a million unary minus) is refused by each reader of navigation code,
// through the file it reads.
func TestJSGuardHostileReaders(t *testing.T) {
	deep := jsHostile("- ") + "1"
	for _, c := range []struct {
		src   Source
		files map[string]string
	}{
		{Docusaurus{}, map[string]string{"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]]}",
			"sidebars.js": "module.exports = {s: " + deep + "};", "docs/a.md": "# A\n"}},
		{VitePress{}, map[string]string{".vitepress/config.ts": "export default {themeConfig: {sidebar: " + deep + "}}", "a.md": "# A\n"}},
		{Starlight{}, map[string]string{"astro.config.mjs": "import starlight from '@astrojs/starlight';\nexport default {integrations: [starlight({title: 'D', sidebar: " + deep + "})]}",
			"src/content/docs/a.md": "---\ntitle: A\n---\n"}},
		{Nextra{}, map[string]string{"pages/_meta.js": "export default {a: " + deep + "}", "pages/a.md": "# A\n"}},
	} {
		dir := folder(t, c.files)
		_, err := c.src.Read(context.Background(), dir, Options{})
		if !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), "--max-nav-depth") {
			t.Errorf("%s: %v, want the depth bound", c.src.Format(), err)
		}
	}
}

// TestJSGuardBounds: the bounds scale with their flags, and a module
// within them reads; the token bound holds a module's size to what its
// values need, so the parsers' memory is linear in a bounded file.
func TestJSGuardBounds(t *testing.T) {
	ctx := context.Background()
	src := []byte("module.exports = {s: " + strings.Repeat("- ", 100) + "1}")
	if _, err := jslit.ParseModule(ctx, "a.js", src, jsLimits(Options{MaxDepth: 64})); err != nil {
		t.Fatalf("100 operators within 1024: %v", err)
	}
	if _, err := jslit.ParseModule(ctx, "a.js", src, jsLimits(Options{MaxDepth: 4})); !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), "deeper than 64") {
		t.Fatalf("100 operators with --max-nav-depth 4: %v, want the bound of 64", err)
	}
	many := []byte("module.exports = [" + strings.Repeat("0,", 7000) + "]")
	if _, err := jslit.ParseModule(ctx, "many.js", many, jsLimits(Options{MaxNodes: 1000})); !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), "more than 12096 tokens") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Fatalf("14,000 tokens with --max-nav-nodes 1000: %v, want the token bound", err)
	}
	// A chain of constants, each naming the one before, nests the
	// evaluator as brackets would.
	var b strings.Builder
	b.WriteString("const a0 = 1\n")
	for i := 1; i <= 100; i++ {
		b.WriteString("const a" + strconv.Itoa(i) + " = a" + strconv.Itoa(i-1) + "\n")
	}
	b.WriteString("module.exports = {s: a100}\n")
	if _, err := jslit.ParseModule(ctx, "chain.js", []byte(b.String()), jsLimits(Options{})); !errors.Is(err, jslit.ErrBound) || !strings.Contains(err.Error(), "deeper than 64") {
		t.Fatalf("a chain of 100 constants: %v, want the depth bound", err)
	}
}

// TestJSGuardReadings: a / after ) or } reads as a division or a regular
// expression; the scan reads it the way that counts more where both
// readings meet again on the line, and refuses the module where they do
// not (a quote in the regular expression would open a string in the
// other reading and hide what follows).
func TestJSGuardReadings(t *testing.T) {
	ctx := context.Background()
	opts := jsLimits(Options{})
	for _, ok := range []string{
		"if (a) /re/.test(b)\nmodule.exports = {}",
		"if (!/^-/.test(a)) {}\nmodule.exports = {}",
		"const x = (a) / (b) / 2\nmodule.exports = {}",
		"const x = f() / 2\nmodule.exports = {}",
		"const x = a++ / 2, y = a! / 2\nmodule.exports = {}",
		"module.exports = {test: /\\.mdx?$/, s: `a${b}c`, t: '/x/'}",
	} {
		if err := jslit.Guard(ctx, "ok.ts", []byte(ok), false, opts); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"module.exports = {s: (0) /`/, t: 1}",
		"module.exports = {s: function(){} /'/ + 1}",
		"module.exports = {s: (0) /a,b/g}",
	} {
		if err := jslit.Guard(ctx, "bad.js", []byte(bad), false, opts); !errors.Is(err, jslit.ErrUnread) || !strings.Contains(err.Error(), "reads both") {
			t.Errorf("%q: %v, want a refusal of the two readings", bad, err)
		}
	}
	if err := jslit.Guard(ctx, "a.tsx", []byte("export default {title: <b>A</b>}"), true, opts); !errors.Is(err, jslit.ErrUnread) || !strings.Contains(err.Error(), "JSX") {
		t.Errorf("JSX: %v", err)
	}
	if err := jslit.Guard(ctx, "a.js", []byte("module.exports = {a: [1}"), false, opts); !errors.Is(err, jslit.ErrUnread) || !strings.Contains(err.Error(), "closes no bracket") {
		t.Errorf("a mismatched bracket: %v", err)
	}
}

// TestJSGuardCancelled: the scan checks its context as it reads the
// module's tokens, so a stop lands inside a long module's scan.
func TestJSGuardCancelled(t *testing.T) {
	ctx := &countedCtx{Context: context.Background(), after: 1}
	src := []byte("module.exports = [" + strings.Repeat("0,", 10000) + "]")
	if err := jslit.Guard(ctx, "a.js", src, false, jsLimits(Options{})); !errors.Is(err, context.Canceled) || ctx.n.Load() != 2 {
		t.Fatalf("a scan of 20,000 tokens stopped at its second check: %v after %d checks, want context.Canceled after 2", err, ctx.n.Load())
	}
}

// TestJSGuardCorpora: every JavaScript and TypeScript file of the
// corpora that esbuild parses (the navigation modules among them) passes
// the scan at the default bounds; the corpora's readers' tests check
// that what is read from them is unchanged.
func TestJSGuardCorpora(t *testing.T) {
	tier.Long(t, "needs the real corpora")
	root := os.Getenv("TZCTX_CORPORA")
	if root == "" {
		t.Skip("TZCTX_CORPORA is not set")
	}
	// make test sets TZCTX_CORPORA to ../shared/corpora whether or not a
	// clone has it beside it: absent, the test skips, saying why.
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Skipf("real corpora folder %s is absent: this test scans the corpora's navigation modules and needs it (set TZCTX_CORPORA)", root)
	}
	n := 0
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		ext := filepath.Ext(p)
		loader, ok := map[string]api.Loader{".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS}[ext]
		if !ok {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if res := api.Transform(string(src), api.TransformOptions{Loader: loader, LogLevel: api.LogLevelSilent}); len(res.Errors) > 0 {
			return nil
		}
		n++
		if err := jslit.Guard(context.Background(), p, src, false, jsLimits(Options{})); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("%d files scanned under %s, want the corpora's navigation modules among them", n, root)
	}
}

// autoSite writes n folders of one page each, and the reader's config.
func autoSite(format string, n int) map[string]string {
	files := map[string]string{}
	switch format {
	case "docusaurus":
		files["docusaurus.config.js"] = "module.exports = {}"
		for i := 0; i < n; i++ {
			files["docs/f"+strconv.Itoa(i)+"/p.md"] = "# P\n"
		}
	case "starlight":
		files["astro.config.mjs"] = "import starlight from '@astrojs/starlight';\nexport default {integrations: [starlight({title: 'D'})]}"
		for i := 0; i < n; i++ {
			files["src/content/docs/f"+strconv.Itoa(i)+"/p.md"] = "---\ntitle: P\n---\n"
		}
	}
	return files
}

// TestJSAutogeneratedLinear: listing the autogenerated sidebar of n
// folders of one page each looks at each page and folder a bounded
// number of times, not once per folder (which took 461 s for 100,000
// folders as Docusaurus): the steps are counted.
func TestJSAutogeneratedLinear(t *testing.T) {
	const n = 400
	for _, format := range []string{"docusaurus", "starlight"} {
		steps := 0
		autoSteps = func(k int) { steps += k }
		dir := folder(t, autoSite(format, n))
		tree, err := Detect(dir).Read(context.Background(), dir, Options{})
		autoSteps = func(int) {}
		if err != nil {
			t.Fatal(err)
		}
		if len(tree.Pages) != n {
			t.Fatalf("%s: %d pages, want %d", format, len(tree.Pages), n)
		}
		if steps > 4*(2*n+1) {
			t.Errorf("%s: %d steps for %d folders of one page, want at most %d", format, steps, n, 4*(2*n+1))
		}
	}
}

// TestJSAutogeneratedCancelled: the autogenerated listing checks its
// context at each folder, so a stop lands inside it: the stop is placed
// after as many checks as the same site's read makes in all, less the
// listing's.
func TestJSAutogeneratedCancelled(t *testing.T) {
	for _, format := range []string{"docusaurus", "starlight"} {
		calib := &countedCtx{Context: context.Background(), after: math.MaxInt64}
		files := autoSite(format, 50)
		dir := folder(t, files)
		if _, err := Detect(dir).Read(calib, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		// The listing checks once per folder and once at the top.
		ctx := &countedCtx{Context: context.Background(), after: calib.n.Load() - 51 + 10}
		if _, err := Detect(dir).Read(ctx, dir, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a listing of 50 folders stopped at its tenth: %v, want context.Canceled", format, err)
		}
	}
}

// TestJSGuardNotUTF8: esbuild's Transform, asked for a source map, never
// returns on a string ending in a byte that is not UTF-8 (a 22-byte
// sidebars.js ran ingest for ever); such a module is
// refused before it, naming the line, and Nextra's reader falls back to
// the order by name with a warning, as for other modules it cannot read.
func TestJSGuardNotUTF8(t *testing.T) {
	src := []byte("module.exports =\n  '\xe8'")
	if _, err := jslit.ParseModule(context.Background(), "sidebars.js", src, jsLimits(Options{})); !errors.Is(err, jslit.ErrUnread) || !strings.Contains(err.Error(), "sidebars.js line 2: the byte 0xe8 is not UTF-8") {
		t.Fatalf("a module holding the byte 0xe8: %v, want a refusal naming the line", err)
	}
	dir := folder(t, map[string]string{"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]]}",
		"sidebars.js": string(src), "docs/a.md": "# A\n"})
	if _, err := (Docusaurus{}).Read(context.Background(), dir, Options{}); !errors.Is(err, jslit.ErrUnread) {
		t.Fatalf("Docusaurus: %v, want the refusal", err)
	}
	dir = folder(t, map[string]string{"pages/_meta.js": "export default {a: '\xe8'}", "pages/a.md": "# A\n"})
	tree, err := (Nextra{}).Read(context.Background(), dir, Options{})
	if err != nil || len(tree.Warnings) != 1 || !strings.Contains(tree.Warnings[0], "not UTF-8") {
		t.Fatalf("Nextra: %v, %v, want a warning and the order by name", err, tree)
	}
}

// TestStarlightConfigNotObject: an astro.config.mjs whose default export
// is not an object the reader can follow (a number, a call of an
// imported config, none at all) is read as the content folder's
// autogenerated order with a warning; it ended the process with a nil
// dereference (found by FuzzStarlightConfig).
func TestStarlightConfigNotObject(t *testing.T) {
	for _, src := range []string{"0", "import c from './c.mjs'\nexport default defineConfig(c)", "export default 1"} {
		dir := folder(t, map[string]string{"astro.config.mjs": src, "src/content/docs/a.md": "---\ntitle: A\n---\n"})
		tree, err := (Starlight{}).Read(context.Background(), dir, Options{})
		if err != nil || len(tree.Pages) != 1 || len(tree.Warnings) != 1 {
			t.Errorf("%q: %v, %+v, want the page and one warning", src, err, tree)
		}
	}
}
