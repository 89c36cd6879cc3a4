package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Navigation written as JavaScript or TypeScript (Docusaurus, VitePress,
// Starlight, Nextra's _meta.js) is read here without running it: the module
// is parsed (TypeScript first stripped of its types by esbuild's Transform,
// which reads no file) and only literal expressions are evaluated: objects,
// arrays, strings, numbers, booleans, null, template literals without
// expressions, references to the module's own top-level constants, and
// spreads of these. A call is kept as a JSCall (its callee's name and its
// evaluated arguments) for the reader to recognise a known wrapper such as
// defineConfig; anything else is a JSOpaque naming its line. Nothing in the
// module is executed, so require('fs'), process.env, an import of a file
// outside the folder or a loop that never ends reads nothing and costs only
// the parse.

// JSObject is an evaluated object literal: its keys in the order written.
type JSObject struct {
	Keys   []string
	Values map[string]any
	Lines  map[string]int // the line of each key in the module's source
}

// Get returns the value of key, nil where absent.
func (o *JSObject) Get(key string) any {
	if o == nil {
		return nil
	}
	return o.Values[key]
}

// Line returns the line of key, 0 where absent or o is nil.
func (o *JSObject) Line(key string) int {
	if o == nil {
		return 0
	}
	return o.Lines[key]
}

// JSCall is a call the reader did not run: the callee as written
// ("defineConfig", "require.resolve") and its evaluated arguments.
type JSCall struct {
	Callee string
	Args   []any
	Line   int
}

// JSOpaque is an expression the reader cannot follow (an import, a function,
// an operator, a global such as process.env), and the line it is on.
type JSOpaque struct {
	What string
	Line int
}

// JSModule is what a module exports: its default export (or CommonJS
// module.exports) and its named exports.
type JSModule struct {
	Default any
	Named   map[string]any
}

// readJSConfig finds the first of names in dir (jsFindConfig) and reads
// it as a module; a folder holding none is refused with missing, a format
// whose %s is the folder.
func readJSConfig(ctx context.Context, dir *sitefs.Folder, names []string, opts Options, missing string) (string, *JSModule, error) {
	name, err := jsFindConfig(ctx, dir, names, opts)
	if err != nil {
		return "", nil, err
	}
	if name == "" {
		return "", nil, fmt.Errorf(missing, dir.Dir())
	}
	mod, err := ReadJSModule(ctx, dir, name, opts)
	return name, mod, err
}

// ReadJSModule reads the module name from dir within opts' bounds and
// evaluates its literal exports. Its errors name the file and the fix.
func ReadJSModule(ctx context.Context, dir *sitefs.Folder, name string, opts Options) (*JSModule, error) {
	opts = jsDefaults(opts)
	src, err := dir.ReadFile(ctx, name, opts.MaxFileBytes)
	if err != nil {
		if errors.Is(err, sitefs.ErrTooLarge) {
			return nil, fmt.Errorf("%w: a navigation module over the bound is refused unread; shorten it or raise --max-manifest-bytes", err)
		}
		return nil, err
	}
	return ParseJSModule(ctx, name, src, opts)
}

// JSObjectLiteral evaluates the default export (or module.exports) of the
// JavaScript or TypeScript module src, named name for errors and for its
// language (.ts, .mts, .cts and .tsx are TypeScript), within the same
// scan and bounds as ParseJSModule. Nextra's _meta modules are still read
// by nextra.go's parser of data literals (after the same scan, jsGuard);
// reading them here instead is issue 34's.
func JSObjectLiteral(ctx context.Context, name string, src []byte, opts Options) (any, error) {
	m, err := ParseJSModule(ctx, name, src, jsDefaults(opts))
	if err != nil {
		return nil, err
	}
	return m.Default, nil
}

func jsDefaults(o Options) Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = manifest.DefaultMaxFileBytes
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = manifest.DefaultMaxNodes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = manifest.DefaultMaxDepth
	}
	return o
}

// ParseJSModule parses and evaluates src as ReadJSModule does.
func ParseJSModule(ctx context.Context, name string, src []byte, opts Options) (*JSModule, error) {
	opts = jsDefaults(opts)
	if int64(len(src)) > opts.MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, over the bound of %d bytes: shorten it or raise --max-manifest-bytes", name, len(src), opts.MaxFileBytes)
	}
	// esbuild's parser cannot be bounded from outside: the module is
	// scanned first (jsGuard), and refused unparsed past the bounds.
	ext := strings.ToLower(path.Ext(name))
	if err := jsGuard(ctx, name, src, ext == ".jsx" || ext == ".tsx", opts); err != nil {
		return nil, err
	}
	// Every module goes through esbuild's Transform, TypeScript stripped of
	// its types and JavaScript as it is, so that the parser meets one
	// printed form (one import a line), and the source map gives back the
	// author's lines.
	loader := api.LoaderJS
	switch ext {
	case ".ts", ".mts", ".cts":
		loader = api.LoaderTS
	case ".tsx":
		loader = api.LoaderTSX
	case ".jsx":
		loader = api.LoaderJSX
	}
	res := api.Transform(string(src), api.TransformOptions{
		Loader: loader, Target: api.ESNext,
		Sourcemap: api.SourceMapExternal, Sourcefile: name, LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		line := 0
		if e.Location != nil {
			line = e.Location.Line
		}
		return nil, fmt.Errorf("%s line %d: %s: fix the module's syntax", name, line, e.Text)
	}
	// The parser does not know import attributes (with { type: 'json' });
	// what an import brings is never read, so they are dropped.
	code := jsImportAttrs.ReplaceAll(res.Code, []byte("$1;"))
	lineMap := jsSourceMapLines(string(res.Map))
	// What esbuild printed is what tdewolff's parser and the evaluator
	// (both recursive) meet: it is held to the same bounds.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := jsGuard(ctx, name+" (as esbuild prints it)", code, false, opts); err != nil {
		return nil, err
	}
	// The parser's names and literals are slices of this buffer, which
	// gives each its offset, hence its line; one byte of room keeps the
	// parser from copying it to append its terminating NUL.
	buf := make([]byte, len(code), len(code)+1)
	copy(buf, code)
	in := parse.NewInputBytes(buf)
	ast, err := js.Parse(in, js.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: fix the module's syntax", name, jsOneLine(err.Error()))
	}
	ev := &jsEval{ctx: ctx, name: name, buf: buf, lineMap: lineMap, opts: opts,
		decls: map[string]js.IExpr{}, declLine: map[string]int{}, done: map[string]any{}, busy: map[string]bool{},
		funcs: map[string]jsFunc{}, calling: map[string]bool{}}
	m, err := ev.module(ast)
	jsParsed(ev)
	return m, err
}

// jsParsed is called with each module's evaluator once it is done; a
// test replaces it to count the evaluator's work.
var jsParsed = func(*jsEval) {}

// jsImportAttrs matches an import's attributes in esbuild's output.
var jsImportAttrs = regexp.MustCompile(`(?m)^((?:import|export)\b[^\n]*?\bfrom\s*"[^"\n]*")\s*(?:with|assert)\s*\{[^}\n]*\};?[ \t]*$`)

// jsOneLine keeps the first line of a parser's message.
func jsOneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// jsSourceMapLines maps each line of esbuild's output (0-based index) to
// its mapped columns and the 1-based source lines they came from, from the
// source map's mappings.
func jsSourceMapLines(m string) [][][2]int {
	i := strings.Index(m, `"mappings": "`)
	if i < 0 {
		return nil
	}
	rest := m[i+len(`"mappings": "`):]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		rest = rest[:j]
	}
	var out [][][2]int
	srcLine := 0
	for _, genLine := range strings.Split(rest, ";") {
		var segs [][2]int
		col := 0
		for _, seg := range strings.Split(genLine, ",") {
			f := jsVLQ(seg)
			if len(f) == 0 {
				continue
			}
			col += f[0]
			if len(f) >= 4 {
				srcLine += f[2]
				segs = append(segs, [2]int{col, srcLine + 1})
			}
		}
		out = append(out, segs)
	}
	return out
}

// jsVLQ decodes one source map segment's base64 VLQ fields.
func jsVLQ(seg string) []int {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []int
	v, shift := 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(b64, seg[i])
		if d < 0 {
			return out
		}
		v += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		if v&1 != 0 {
			out = append(out, -(v >> 1))
		} else {
			out = append(out, v>>1)
		}
		v, shift = 0, 0
	}
	return out
}

// jsEval evaluates one module's literal expressions.
type jsEval struct {
	ctx      context.Context
	name     string
	buf      []byte
	lineMap  [][][2]int
	opts     Options
	nodes    int
	decls    map[string]js.IExpr
	declLine map[string]int
	done     map[string]any
	busy     map[string]bool
	imported map[string]string
	// funcs holds the module's top-level function declarations, scope
	// the parameters of the function being followed (nil at the top
	// level), calling the functions being followed (jsfunc.go).
	funcs   map[string]jsFunc
	scope   map[string]any
	calling map[string]bool

	// lineStarts holds the offset of each line of buf, mappedAbove the
	// nearest line of lineMap at or above each that has a mapping; both
	// are built on the first line lookup. lineProbes counts the steps
	// line lookups took, for a test to see that they stay near linear.
	lineStarts  []int
	mappedAbove []int
	lineProbes  int
}

// line returns the source line of data, a slice of the parsed text, or 0.
func (e *jsEval) line(data []byte) int {
	if len(data) == 0 || len(e.buf) == 0 {
		return 0
	}
	// The parser's slices carry no offset (their capacity is cut to their
	// length), so the offset is the distance between the two arrays'
	// addresses, checked to lie inside the buffer and to hold the bytes.
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(data))) - uintptr(unsafe.Pointer(unsafe.SliceData(e.buf))))
	if off < 0 || off+len(data) > len(e.buf) || &e.buf[off] != &data[0] {
		return 0
	}
	if e.lineStarts == nil {
		e.indexLines()
	}
	// The line is the last line start at or before the offset.
	ln := sort.Search(len(e.lineStarts), func(i int) bool { return e.lineStarts[i] > off })
	e.lineProbes += bits.Len(uint(len(e.lineStarts)))
	col := off - e.lineStarts[ln-1]
	if e.lineMap == nil {
		return ln
	}
	i := ln - 1
	if i >= len(e.lineMap) {
		return 0
	}
	if segs := e.lineMap[i]; len(segs) > 0 {
		// The last mapping at or before the column, else the line's first.
		j := sort.Search(len(segs), func(k int) bool { return segs[k][0] > col })
		e.lineProbes += bits.Len(uint(len(segs)))
		return segs[max(j-1, 0)][1]
	}
	// Else the last mapping of the nearest line above that has one.
	if j := e.mappedAbove[i]; j >= 0 {
		segs := e.lineMap[j]
		return segs[len(segs)-1][1]
	}
	return 0
}

// indexLines records, once per module, where each line of the buffer
// starts and, for each line of the source map, the nearest line at or
// above it that has a mapping, so that each line lookup is a binary
// search rather than a count from the buffer's start.
func (e *jsEval) indexLines() {
	e.lineStarts = append(e.lineStarts, 0)
	for i, c := range e.buf {
		if c == '\n' {
			e.lineStarts = append(e.lineStarts, i+1)
		}
	}
	e.lineProbes += len(e.buf)
	e.mappedAbove = make([]int, len(e.lineMap))
	last := -1
	for i, segs := range e.lineMap {
		if len(segs) > 0 {
			last = i
		}
		e.mappedAbove[i] = last
	}
	e.lineProbes += len(e.lineMap)
}

func (e *jsEval) module(ast *js.AST) (*JSModule, error) {
	e.imported = map[string]string{}
	var defaultExpr js.IExpr
	var exportsExpr js.IExpr
	var defaultLine, exportsLine int
	named := map[string]js.IExpr{}
	var order []string
	for _, st := range ast.List {
		switch s := st.(type) {
		case *js.ImportStmt:
			if s.Default != nil {
				e.imported[string(s.Default)] = string(s.Module)
			}
			for _, a := range s.List {
				b := a.Binding
				if b == nil {
					b = a.Name
				}
				e.imported[string(b)] = string(s.Module)
			}
		case *js.VarDecl:
			e.declare(s)
		case *js.FuncDecl:
			e.declareFunc(s)
		case *js.ExportStmt:
			switch {
			case s.Default:
				defaultExpr = s.Decl
				// The statement carries no offset; esbuild prints one
				// default export, as "export default".
				if i := bytes.Index(e.buf, []byte("export default")); i >= 0 {
					defaultLine = e.line(e.buf[i : i+1])
				}
			case s.Decl != nil:
				if fd, ok := s.Decl.(*js.FuncDecl); ok {
					e.declareFunc(fd)
				}
				if vd, ok := s.Decl.(*js.VarDecl); ok {
					for _, n := range e.declare(vd) {
						named[n] = e.decls[n]
						order = append(order, n)
					}
				}
			case s.Module == nil:
				for _, a := range s.List {
					// export { local as exported }: Name is the local
					// name, Binding the exported one; export { x }
					// leaves Name nil.
					local, exp := string(a.Name), string(a.Binding)
					if a.Name == nil {
						local = exp
					}
					if x, ok := e.decls[local]; ok {
						if exp == "default" {
							defaultExpr = x
						} else {
							named[exp] = x
						}
					}
				}
			}
		case *js.ExprStmt:
			if b, ok := s.Value.(*js.BinaryExpr); ok && b.Op == js.EqToken {
				switch jsName(b.X) {
				case "module.exports", "exports.default", "module.exports.default":
					exportsExpr, exportsLine = b.Y, e.jsLine(b.X)
				}
			}
		}
	}
	m := &JSModule{Named: map[string]any{}}
	var err error
	if defaultExpr == nil {
		defaultExpr, defaultLine = exportsExpr, exportsLine
	}
	if defaultExpr != nil {
		if m.Default, err = e.eval(defaultExpr, 0, defaultLine); err != nil {
			return nil, err
		}
	}
	for _, n := range order {
		if m.Named[n], err = e.eval(named[n], 0, e.declLine[n]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// declare records the module's top-level bindings of a declaration and
// returns their names.
func (e *jsEval) declare(vd *js.VarDecl) []string {
	var names []string
	for _, b := range vd.List {
		if v, ok := b.Binding.(*js.Var); ok && b.Default != nil {
			n := string(v.Data)
			e.decls[n] = b.Default
			e.declLine[n] = e.line(v.Data)
			names = append(names, n)
		}
	}
	return names
}

// declareFunc records a top-level function declaration.
func (e *jsEval) declareFunc(fd *js.FuncDecl) {
	if fd.Name == nil {
		return
	}
	if f, ok := jsFuncOf(fd); ok {
		e.funcs[string(fd.Name.Data)] = f
	}
}

// jsName returns a dotted name ("module.exports") for an identifier or a
// chain of property accesses on one, else "".
func jsName(x js.IExpr) string {
	switch v := x.(type) {
	case *js.Var:
		return string(v.Data)
	case *js.DotExpr:
		left := jsName(v.X)
		if left == "" {
			return ""
		}
		if k := jsDotKey(v); k != "" {
			return left + "." + k
		}
	case *js.GroupExpr:
		return jsName(v.X)
	}
	return ""
}

// jsDotKey returns the property name of a.b ("b").
func jsDotKey(v *js.DotExpr) string {
	switch y := v.Y.(type) {
	case js.LiteralExpr:
		return string(y.Data)
	case *js.LiteralExpr:
		return string(y.Data)
	case *js.Var:
		return string(y.Data)
	}
	return ""
}

// count adds n values (one evaluated, or the elements or keys a spread
// copies) to the module's total, refusing the module past MaxNodes, and
// checks ctx each time the total passes a multiple of 1024.
func (e *jsEval) count(n, line int) error {
	before := e.nodes
	e.nodes += n
	if e.nodes > e.opts.MaxNodes {
		return fmt.Errorf("%s line %d: the module holds more than %d values (%w): simplify it or raise --max-nav-nodes", e.name, line, e.opts.MaxNodes, errJSBound)
	}
	if e.nodes/1024 != before/1024 {
		return e.ctx.Err()
	}
	return nil
}

// eval evaluates x, at nesting depth, written on line (0 where unknown).
func (e *jsEval) eval(x js.IExpr, depth, line int) (any, error) {
	if err := e.count(1, line); err != nil {
		return nil, err
	}
	if depth > e.opts.MaxDepth {
		return nil, fmt.Errorf("%s line %d: values nest deeper than %d (%w): flatten it or raise --max-nav-depth", e.name, line, e.opts.MaxDepth, errJSBound)
	}
	switch v := x.(type) {
	case nil:
		return nil, nil
	case *js.GroupExpr:
		return e.eval(v.X, depth, line)
	case *js.LiteralExpr:
		if l := e.line(v.Data); l > 0 {
			line = l
		}
		switch v.TokenType {
		case js.StringToken:
			s, ok := jsString(v.Data)
			if !ok {
				return &JSOpaque{What: "a string the reader cannot decode", Line: line}, nil
			}
			return s, nil
		case js.DecimalToken, js.IntegerToken:
			f, err := strconv.ParseFloat(strings.ReplaceAll(string(v.Data), "_", ""), 64)
			if err != nil {
				return &JSOpaque{What: "a number " + string(v.Data), Line: line}, nil
			}
			return f, nil
		case js.TrueToken:
			return true, nil
		case js.FalseToken:
			return false, nil
		case js.NullToken:
			return nil, nil
		}
		return &JSOpaque{What: string(v.Data), Line: line}, nil
	case *js.UnaryExpr:
		if v.Op == js.NegToken {
			if f, ok := jsFloat(e.eval(v.X, depth, line)); ok {
				return -f, nil
			}
		}
		return &JSOpaque{What: "an expression with an operator", Line: line}, nil
	case *js.TemplateExpr:
		if v.Tag == nil && len(v.List) == 0 {
			s, ok := jsTemplate(v.Tail)
			if ok {
				return s, nil
			}
		}
		return &JSOpaque{What: "a template literal with expressions", Line: line}, nil
	case *js.Var:
		// The parser shares one Var among a name's uses, its Data at the
		// declaration: its line is the use's only where nothing closer is
		// known.
		if l := e.line(v.Data); l > 0 && line == 0 {
			line = l
		}
		n := string(v.Data)
		if r, ok := e.scope[n]; ok {
			return r, nil
		}
		if n == "undefined" {
			return nil, nil
		}
		if r, ok := e.done[n]; ok {
			return r, nil
		}
		if d, ok := e.decls[n]; ok && !e.busy[n] {
			// A reference is a level: a chain of constants each naming
			// the one before nests the evaluation as deep as brackets
			// would.
			e.busy[n] = true
			r, err := e.topLevel(d, depth+1, e.declLine[n])
			e.busy[n] = false
			if err != nil {
				return nil, err
			}
			e.done[n] = r
			return r, nil
		}
		if m, ok := e.imported[n]; ok {
			return &JSOpaque{What: n + ", imported from " + m, Line: line}, nil
		}
		return &JSOpaque{What: n, Line: line}, nil
	case *js.DotExpr:
		name := jsName(v)
		if l := e.jsLine(v); l > 0 && line == 0 {
			line = l
		}
		base, err := e.eval(v.X, depth, line)
		if err != nil {
			return nil, err
		}
		if o, ok := base.(*JSObject); ok {
			if r, ok := o.Values[jsDotKey(v)]; ok {
				return r, nil
			}
		}
		if name == "" {
			name = "a property"
		}
		return &JSOpaque{What: name, Line: line}, nil
	case *js.ArrayExpr:
		out := make([]any, 0, len(v.List))
		for _, el := range v.List {
			r, err := e.eval(el.Value, depth+1, line)
			if err != nil {
				return nil, err
			}
			if el.Spread {
				if a, ok := r.([]any); ok {
					// A spread copies its elements: each counts, so that
					// spreads of spreads cannot multiply a small module
					// into millions of values.
					if err := e.count(len(a), line); err != nil {
						return nil, err
					}
					out = append(out, a...)
					continue
				}
				if _, ok := r.(*JSOpaque); !ok {
					r = &JSOpaque{What: "a spread of a value that is not an array", Line: line}
				}
			}
			out = append(out, r)
		}
		return out, nil
	case *js.ObjectExpr:
		o := &JSObject{Values: map[string]any{}, Lines: map[string]int{}}
		for _, p := range v.List {
			if p.Spread {
				r, err := e.eval(p.Value, depth+1, line)
				if err != nil {
					return nil, err
				}
				if so, ok := r.(*JSObject); ok {
					if err := e.count(len(so.Keys), line); err != nil {
						return nil, err
					}
					for _, k := range so.Keys {
						o.set(k, so.Values[k], so.Lines[k])
					}
					continue
				}
				o.set("...", &JSOpaque{What: "a spread the reader cannot follow", Line: line}, line)
				continue
			}
			if p.Name == nil {
				continue
			}
			key, kline, ok := e.propKey(p.Name)
			if kline == 0 {
				kline = line
			}
			if !ok {
				o.set("[computed]", &JSOpaque{What: "a computed key", Line: kline}, kline)
				continue
			}
			val := p.Value
			if p.Init != nil {
				val = p.Init
			}
			r, err := e.eval(val, depth+1, kline)
			if err != nil {
				return nil, err
			}
			o.set(key, r, kline)
		}
		return o, nil
	case *js.CallExpr:
		name := jsName(v.X)
		if l := e.jsLine(v.X); l > 0 && line == 0 {
			line = l
		}
		if fn, f, ok := e.function(v.X); ok {
			r, followed, err := e.call(fn, f, v, depth, line)
			if err != nil || followed {
				return r, err
			}
		}
		c := &JSCall{Callee: name, Line: line}
		for _, a := range v.Args.List {
			r, err := e.eval(a.Value, depth+1, line)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, r)
		}
		return c, nil
	}
	return &JSOpaque{What: "an expression the reader does not evaluate", Line: line}, nil
}

// jsLine finds the line of a name expression through its identifiers.
func (e *jsEval) jsLine(x js.IExpr) int {
	switch v := x.(type) {
	case *js.Var:
		return e.line(v.Data)
	case *js.DotExpr:
		return e.jsLine(v.X)
	case *js.GroupExpr:
		return e.jsLine(v.X)
	case *js.CallExpr:
		return e.jsLine(v.X)
	}
	return 0
}

func (o *JSObject) set(k string, v any, line int) {
	if _, ok := o.Values[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Values[k] = v
	o.Lines[k] = line
}

// propKey returns an object key and its line; ok is false for a computed
// key that is not a literal.
func (e *jsEval) propKey(n *js.PropertyName) (string, int, bool) {
	if n.Computed != nil {
		if l, ok := n.Computed.(*js.LiteralExpr); ok && l.TokenType == js.StringToken {
			s, ok := jsString(l.Data)
			return s, e.line(l.Data), ok
		}
		return "", 0, false
	}
	d := n.Literal.Data
	if n.Literal.TokenType == js.StringToken {
		s, ok := jsString(d)
		return s, e.line(d), ok
	}
	if n.Literal.TokenType == js.DecimalToken || n.Literal.TokenType == js.IntegerToken {
		if f, err := strconv.ParseFloat(string(d), 64); err == nil && f == math.Trunc(f) {
			return strconv.FormatInt(int64(f), 10), e.line(d), true
		}
	}
	return string(d), e.line(d), true
}

func jsFloat(v any, err error) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && err == nil
}

// jsString decodes a quoted JavaScript string literal.
func jsString(d []byte) (string, bool) {
	if len(d) < 2 {
		return "", false
	}
	return jsUnescape(d[1 : len(d)-1])
}

// jsTemplate decodes a template literal without expressions (`...`).
func jsTemplate(d []byte) (string, bool) {
	if len(d) < 2 || d[0] != '`' || d[len(d)-1] != '`' {
		return "", false
	}
	return jsUnescape(d[1 : len(d)-1])
}

// jsUnescape decodes a string literal's body.
func jsUnescape(b []byte) (string, bool) {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b), true
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			sb.WriteByte(c)
			continue
		}
		i++
		if i >= len(b) {
			return "", false
		}
		switch b[i] {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'v':
			sb.WriteByte('\v')
		case '0':
			sb.WriteByte(0)
		case '\n':
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case 'x':
			if i+2 >= len(b) {
				return "", false
			}
			n, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			if err != nil {
				return "", false
			}
			sb.WriteRune(rune(n))
			i += 2
		case 'u':
			var hex string
			if i+1 < len(b) && b[i+1] == '{' {
				end := bytes.IndexByte(b[i:], '}')
				if end < 0 {
					return "", false
				}
				hex = string(b[i+2 : i+end])
				i += end
			} else {
				if i+4 >= len(b) {
					return "", false
				}
				hex = string(b[i+1 : i+5])
				i += 4
			}
			n, err := strconv.ParseUint(hex, 16, 32)
			if err != nil {
				return "", false
			}
			sb.WriteRune(rune(n))
		default:
			sb.WriteByte(b[i])
		}
	}
	return sb.String(), true
}

// jsStr returns v as a string where it is one.
func jsStr(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// jsLineOf returns the line an unread value names, for a warning.
func jsLineOf(v any) int {
	switch x := v.(type) {
	case *JSOpaque:
		return x.Line
	case *JSCall:
		return x.Line
	}
	return 0
}

// jsDescribe says in words what a value the reader cannot follow is.
func jsDescribe(v any) string {
	switch x := v.(type) {
	case *JSOpaque:
		return x.What
	case *JSCall:
		if x.Callee == "" {
			return "a function call"
		}
		return "a call of " + x.Callee + "()"
	}
	return fmt.Sprintf("a %T", v)
}

// jsUnwrapCall returns the first object argument of a call such as
// defineConfig({...}) or extendConfig(config): configuration helpers take
// the configuration as their first argument and return it extended, so the
// reader reads that argument. Other values are returned as they are.
func jsUnwrapCall(v any) any {
	for i := 0; i < 8; i++ {
		c, ok := v.(*JSCall)
		if !ok {
			return v
		}
		var next any
		for _, a := range c.Args {
			switch a.(type) {
			case *JSObject, *JSCall:
				next = a
			}
			if next != nil {
				break
			}
		}
		if next == nil {
			return v
		}
		v = next
	}
	return v
}

// jsFindConfig finds the first of names in the folder, else in one of its
// immediate subfolders (website/, docs/: a repository whose site lives one
// level down), and returns its path relative to the folder, "" where there
// is none. Listing the folder is bounded by opts.MaxNodes names; a folder
// over it, or one that cannot be listed, is an error, not a folder without
// the config.
func jsFindConfig(ctx context.Context, dir *sitefs.Folder, names []string, opts Options) (string, error) {
	for _, n := range names {
		if dir.Exists(n) {
			return n, nil
		}
	}
	opts = jsDefaults(opts)
	subs, err := dir.ListDir(ctx, ".", opts.MaxNodes)
	if errors.Is(err, sitefs.ErrTooLarge) {
		return "", fmt.Errorf("%s holds more than %d names, listed to look for %s in its subfolders: give the folder holding %s, or raise --max-nav-nodes", dir.Dir(), opts.MaxNodes, names[0], names[0])
	}
	if err != nil {
		return "", fmt.Errorf("looking for %s in the subfolders of %s: %w", names[0], dir.Dir(), err)
	}
	for _, s := range subs {
		if !s.IsDir || strings.HasPrefix(s.Name, ".") || s.Name == "node_modules" {
			continue
		}
		for _, n := range names {
			if dir.Exists(s.Name + "/" + n) {
				return s.Name + "/" + n, nil
			}
		}
	}
	return "", nil
}

// jsFindConfigAt is jsFindConfig within the default bounds, for detection:
// a folder it cannot list is not recognised by the config's name there,
// and the reader chosen by --format reports why.
func jsFindConfigAt(dir *sitefs.Folder, names []string) string {
	c, err := jsFindConfig(context.Background(), dir, names, Options{})
	if err != nil {
		return ""
	}
	return c
}

// jsFrontMatter reads the YAML front matter of a page file; nil where it
// has none or it does not parse (ingest refuses such a page by name when
// it reads it).
func jsFrontMatter(ctx context.Context, dir *sitefs.Folder, name string, limit int64) map[string]any {
	data, err := dir.ReadFile(ctx, name, limit)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil
	}
	rest := data[3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(string(rest[:nl])) != "" {
		return nil
	}
	rest = rest[nl+1:]
	end := -1
	for off := 0; off < len(rest); {
		ln := rest[off:]
		if i := bytes.IndexByte(ln, '\n'); i >= 0 {
			ln = ln[:i]
		}
		if strings.TrimRight(string(ln), " \t\r") == "---" {
			end = off
			break
		}
		off += len(ln) + 1
	}
	if end < 0 {
		return nil
	}
	var fm map[string]any
	if yaml.Unmarshal(rest[:end], &fm) != nil {
		return nil
	}
	return fm
}

// jsFMString returns front matter key as a string ("" where absent).
func jsFMString(fm map[string]any, key string) string {
	switch v := fm[key].(type) {
	case string:
		return v
	case int, float64:
		return fmt.Sprint(v)
	}
	return ""
}

// jsFMNumber returns front matter key as a number.
func jsFMNumber(fm map[string]any, key string) (float64, bool) {
	switch v := fm[key].(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// jsWalk lists the Markdown files (.md, .mdx) below root ("." for the
// folder), slash-separated and relative to the folder, in name order,
// leaving out hidden names, node_modules and names skip refuses; a
// symbolic link to a folder is not walked (no link cycle). It visits at
// most opts.MaxNodes names and opts.MaxDepth levels.
func jsWalk(ctx context.Context, dir *sitefs.Folder, root string, opts Options, skip func(rel string, isDir bool) bool) ([]string, error) {
	var out []string
	seen := 0
	var walk func(d string, depth int) error
	walk = func(d string, depth int) error {
		if depth > opts.MaxDepth {
			return fmt.Errorf("%s: folders nest deeper than %d: raise --max-nav-depth", d, opts.MaxDepth)
		}
		ents, err := dir.ListDir(ctx, d, opts.MaxNodes-seen)
		if errors.Is(err, sitefs.ErrTooLarge) {
			if seen == 0 {
				return fmt.Errorf("%s: the folder holds more than %d names: raise --max-nav-nodes", d, opts.MaxNodes)
			}
			// The bound is on the whole walk: this folder is where the
			// running total ran out, not necessarily a large one.
			return fmt.Errorf("%s: the folders walked hold more than %d names in all (%d listed before this one): raise --max-nav-nodes", d, opts.MaxNodes, seen)
		}
		if err != nil {
			return err
		}
		seen += len(ents)
		for _, e := range ents {
			if strings.HasPrefix(e.Name, ".") || e.Name == "node_modules" {
				continue
			}
			rel := e.Name
			if d != "." {
				rel = d + "/" + e.Name
			}
			if skip != nil && skip(rel, e.IsDir) {
				continue
			}
			if e.IsDir {
				if err := walk(rel, depth+1); err != nil {
					return err
				}
				continue
			}
			if ext := strings.ToLower(path.Ext(e.Name)); ext == ".md" || ext == ".mdx" {
				out = append(out, rel)
			}
		}
		return nil
	}
	return out, walk(root, 0)
}

// jsWarn words one warning about navigation the reader could not follow.
func jsWarn(file string, v any, fallback string) string {
	return fmt.Sprintf("%s line %d: the navigation is %s, which tzctx does not run; read as %s", file, jsLineOf(v), jsDescribe(v), fallback)
}
