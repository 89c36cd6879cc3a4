package jslit

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestJSLiterals(t *testing.T) {
	src := `import type { Config } from '@docusaurus/types'
import helper from './helper'
const base = 'guide'
const shared = { c: 3 }
const list = ['x', ...['y']]
const config: Config = {
  a: 'one', 'b': "two\u0021", n: -4, t: ` + "`tpl`" + `, ok: true, nothing: null,
  ref: base, ...shared, arr: [...list, base],
  call: defineThing({ k: 1 }),
  imp: helper,
  env: process.env.SECRET,
} satisfies Config
export default config
`
	m, err := ParseModule(context.Background(), "x.ts", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Default.(*Object)
	if got := strings.Join(o.Keys, ","); got != "a,b,n,t,ok,nothing,ref,c,arr,call,imp,env" {
		t.Fatalf("keys %s", got)
	}
	want := map[string]any{"a": "one", "b": "two!", "n": -4.0, "t": "tpl", "ok": true, "nothing": nil, "ref": "guide", "c": 3.0, "arr": []any{"x", "y", "guide"}}
	for k, w := range want {
		if !reflect.DeepEqual(o.Values[k], w) {
			t.Errorf("%s = %#v, want %#v", k, o.Values[k], w)
		}
	}
	if c, ok := o.Values["call"].(*Call); !ok || c.Callee != "defineThing" || c.Line != 9 {
		t.Errorf("call = %#v, want defineThing on line 9", o.Values["call"])
	}
	if x, ok := o.Values["imp"].(*Opaque); !ok || !strings.Contains(x.What, "./helper") || x.Line != 10 {
		t.Errorf("imp = %#v, want opaque import on line 10", o.Values["imp"])
	}
	if x, ok := o.Values["env"].(*Opaque); !ok || x.What != "process.env.SECRET" {
		t.Errorf("env = %#v, want opaque process.env.SECRET", o.Values["env"])
	}
	if o.Lines["a"] != 7 || o.Lines["arr"] != 8 {
		t.Errorf("lines %v, want a on 7, arr on 8", o.Lines)
	}
	if m, err := ParseModule(context.Background(), "_meta.js", []byte(`module.exports = {index: 'Home', about: {title: 'About'}}`), Limits{}); err != nil || m.Default.(*Object).Values["index"] != "Home" {
		t.Fatalf("a _meta module = %#v, %v", m, err)
	}
}

// TestJSHostileModules: code is never run, so a module that reads files,
// the environment, imports from outside the folder or loops for ever
// reads as opaque values at once; size and nesting are refused with a
// message naming the file and the fix.
func TestJSHostileModules(t *testing.T) {
	t.Setenv("TZCTX_JS_SECRET", "leaked")
	ctx := context.Background()
	for name, src := range map[string]string{
		"fs":       `const fs = require('fs'); module.exports = { docs: JSON.parse(fs.readFileSync('/etc/passwd', 'utf8')) }`,
		"env":      `export default { docs: [process.env.TZCTX_JS_SECRET] }`,
		"outside":  `import side from '../../outside.js'; export default { docs: side }`,
		"loop":     `while (true) {}; for (;;) {}; export default { docs: (() => { for(;;){} })() }`,
		"allocate": `const a = []; for (;;) a.push(new Array(1e9)); export default { docs: a }`,
	} {
		m, err := ParseModule(ctx, name+".js", []byte(src), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs := m.Default.(*Object).Values["docs"]
		if strings.Contains(strings.ToLower(Describe(docs)+Describe(jsFirst(docs))), "leaked") {
			t.Fatalf("%s: the environment was read: %#v", name, docs)
		}
		switch v := docs.(type) {
		case *Opaque, *Call:
		case []any:
			if len(v) > 0 && !isOpaque(v[0]) {
				t.Fatalf("%s: docs = %#v, want opaque", name, docs)
			}
		default:
			t.Fatalf("%s: docs = %#v, want opaque", name, docs)
		}
	}

	big := append([]byte("module.exports = {a: '"), make([]byte, 50<<20)...)
	for i := 22; i < len(big); i++ {
		big[i] = 'x'
	}
	big = append(big, "'}"...)
	if _, err := ParseModule(ctx, "big.js", big, Limits{}); err == nil || !strings.Contains(err.Error(), "big.js") || !strings.Contains(err.Error(), "bound") {
		t.Fatalf("50 MB module: %v, want a refusal naming the file and the bound", err)
	}
	deep := "module.exports = " + strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	if _, err := ParseModule(ctx, "deep.js", []byte(deep), Limits{}); err == nil || !strings.Contains(err.Error(), "deep.js line 1") || !strings.Contains(err.Error(), "--max-nav-depth") {
		t.Fatalf("deep module: %v, want a refusal naming the file, line and flag", err)
	}
	deep = "module.exports = " + strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := ParseModule(ctx, "deep.js", []byte(deep), Limits{}); err == nil || !strings.Contains(err.Error(), "nest deeper than 64") {
		t.Fatalf("values nested 100 deep: %v, want the depth bound", err)
	}
	many := "module.exports = [" + strings.Repeat("1,", 5000) + "]"
	if _, err := ParseModule(ctx, "many.js", []byte(many), Limits{MaxNodes: 1000}); err == nil || !strings.Contains(err.Error(), "more than 1000 values") {
		t.Fatalf("5000 values: %v, want the node bound", err)
	}
}

func isOpaque(v any) bool {
	_, ok := v.(*Opaque)
	return ok
}

func jsFirst(v any) any {
	if a, ok := v.([]any); ok && len(a) > 0 {
		return a[0]
	}
	return nil
}

// TestJSSpreadsCount: the elements and keys a spread copies count against
// --max-nav-nodes, so a small module of spreads of spreads (each level
// ten times the one below) is refused, naming the file, the line and the
// flag, instead of growing into millions of values.
func TestJSSpreadsCount(t *testing.T) {
	var b strings.Builder
	b.WriteString("const a0 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "const a%d = [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("...a%d, ", i-1), 10), ", "))
	}
	b.WriteString("module.exports = { docs: a5 }\n")
	_, err := ParseModule(context.Background(), "sidebars.js", []byte(b.String()), Limits{MaxNodes: 1000})
	if err == nil || !strings.Contains(err.Error(), "sidebars.js line ") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Fatalf("arrays spread 10× over 5 levels (100,000 values): %v, want a refusal naming the file, line and flag", err)
	}

	keys := "const o0 = {"
	for i := 0; i < 10; i++ {
		keys += fmt.Sprintf("k%d: %d, ", i, i)
	}
	src := keys + "}\nmodule.exports = {" + strings.Repeat("...o0, ", 200) + "}\n"
	_, err = ParseModule(context.Background(), "config.js", []byte(src), Limits{MaxNodes: 1000})
	if err == nil || !strings.Contains(err.Error(), "config.js line 2") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Fatalf("an object spread 200 times (2,000 keys copied): %v, want a refusal naming the file, line 2 and the flag", err)
	}

	// Within the bound, spreads read as before.
	m, err := ParseModule(context.Background(), "ok.js", []byte("const a = [1, 2]\nconst o = {x: 1}\nmodule.exports = {...o, y: [...a, ...a, 3]}\n"), Limits{MaxNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if o := m.Default.(*Object); strings.Join(o.Keys, ",") != "x,y" || len(o.Get("y").([]any)) != 5 {
		t.Fatalf("spreads within the bound: %#v", o)
	}
}

// jsLinesModule is a module of n keys, key k<i> on line i+2.
func jsLinesModule(n int) []byte {
	var b strings.Builder
	b.WriteString("// navigation\nmodule.exports = {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  k%d: 'page-%d',\n", i, i)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// TestJSLinesLinear: on a large module every key keeps its author's line,
// and finding the lines costs a bounded number of steps per value (a
// search of a line table built once), not a count of the newlines from
// the module's start on each value, which grew with the square of the
// module's size.
func TestJSLinesLinear(t *testing.T) {
	const n = 20000
	src := jsLinesModule(n)
	probes := 0
	old := jsParsed
	jsParsed = func(e *jsEval) { probes += e.lineProbes }
	defer func() { jsParsed = old }()
	m, err := ParseModule(context.Background(), "big.js", src, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Default.(*Object)
	if len(o.Keys) != n {
		t.Fatalf("%d keys, want %d", len(o.Keys), n)
	}
	for i := 0; i < n; i += 997 {
		if k := fmt.Sprintf("k%d", i); o.Lines[k] != i+3 {
			t.Fatalf("%s on line %d, want %d", k, o.Lines[k], i+3)
		}
	}
	if max := 10 * len(src); probes == 0 || probes > max {
		t.Fatalf("line lookups took %d steps for a %d-byte module, want between 1 and %d", probes, len(src), max)
	}
}

// BenchmarkJSModuleLines reads a module of 300,000 keys, each on its own
// line: its cost should grow with the module, not its square.
func BenchmarkJSModuleLines(b *testing.B) {
	src := jsLinesModule(300000)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		if _, err := ParseModule(context.Background(), "big.js", src, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestQuotedNumericKeys: a quoted key that looks like a number is the
// string as written ('2.0' stays "2.0", as in JavaScript), where an
// unquoted number is the number's own name (2.0 is "2").
func TestQuotedNumericKeys(t *testing.T) {
	src := "export default {versions: {'2.0': 'a', \"1.10\": 'b', 3.0: 'c', '07': 'd'}}"
	m, err := ParseModule(context.Background(), "docusaurus.config.js", []byte(src), Limits{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	o, _ := m.Default.(*Object)
	if o == nil {
		t.Fatalf("default export %#v is not an object", m.Default)
	}
	v, _ := o.Get("versions").(*Object)
	if v == nil {
		t.Fatal("no versions object")
	}
	for key, want := range map[string]string{"2.0": "a", "1.10": "b", "3": "c", "07": "d"} {
		if got, _ := Str(v.Get(key)); got != want {
			t.Errorf("versions[%q] = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"2", "1.1", "3.0"} {
		if v.Get(key) != nil {
			t.Errorf("versions[%q] is set; a quoted key must keep its form", key)
		}
	}
}
