package jslit

import (
	"bytes"
	"context"
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
)

// Object is an evaluated object literal: its keys in the order written.
type Object struct {
	Keys   []string
	Values map[string]any
	Lines  map[string]int // the line of each key in the module's source
}

// Get returns the value of key, nil where absent.
func (o *Object) Get(key string) any {
	if o == nil {
		return nil
	}
	return o.Values[key]
}

// Line returns the line of key, 0 where absent or o is nil.
func (o *Object) Line(key string) int {
	if o == nil {
		return 0
	}
	return o.Lines[key]
}

// Call is a call the reader did not run: the callee as written
// ("defineConfig", "require.resolve") and its evaluated arguments.
type Call struct {
	Callee string
	Args   []any
	Line   int
}

// Opaque is an expression the reader cannot follow (an import, a function,
// an operator, a global such as process.env), and the line it is on.
type Opaque struct {
	What string
	Line int
}

// Module is what a module exports: its default export (or CommonJS
// module.exports) and its named exports.
type Module struct {
	Default any
	Named   map[string]any
}

// ParseModule parses src, the module name (its extension gives its
// language: .ts, .mts, .cts and .tsx are TypeScript), and evaluates its
// literal exports within lim. It follows no import: a name imported is a
// value the reader cannot follow, naming the module it comes from.
func ParseModule(ctx context.Context, name string, src []byte, lim Limits) (*Module, error) {
	lim = lim.WithDefaults()
	r := &reader{ctx: ctx, lim: lim, budget: NewBudget(ctx, lim.MaxNodes)}
	ev, err := r.parse(name, src)
	if err != nil {
		return nil, err
	}
	m, err := ev.exports()
	jsParsed(ev)
	return m, err
}

// parse scans, transforms and parses src, the module name, and records its
// declarations, imports and exports for evaluation; it evaluates nothing.
func (r *reader) parse(name string, src []byte) (*jsEval, error) {
	ctx, lim := r.ctx, r.lim
	if int64(len(src)) > lim.MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, over the bound of %d bytes: shorten it or raise --max-manifest-bytes", name, len(src), lim.MaxFileBytes)
	}
	// esbuild's parser cannot be bounded from outside: the module is
	// scanned first (Guard), and refused unparsed past the bounds.
	ext := strings.ToLower(path.Ext(name))
	if err := Guard(ctx, name, src, ext == ".jsx" || ext == ".tsx", lim); err != nil {
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
		return nil, &SyntaxError{File: name, Line: line, Msg: e.Text}
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
	if err := Guard(ctx, name+" (as esbuild prints it)", code, false, lim); err != nil {
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
	ev := &jsEval{ctx: ctx, name: name, buf: buf, lineMap: lineMap, lim: lim, r: r,
		decls: map[string]js.IExpr{}, declLine: map[string]int{}, done: map[string]any{}, busy: map[string]bool{},
		funcs: map[string]jsFunc{}, calling: map[string]bool{}}
	ev.collect(ast)
	return ev, nil
}

// SyntaxError is a module esbuild cannot parse: its file, the line (0
// where unknown) and esbuild's message.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s line %d: %s: fix the module's syntax", e.File, e.Line, e.Msg)
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
	lim      Limits
	r        *reader // the read this module is part of: its budget and imports
	decls    map[string]js.IExpr
	declLine map[string]int
	done     map[string]any
	busy     map[string]bool
	imported map[string]jsImport
	// The module's exports, recorded by collect: the default export (or
	// module.exports) and its line, the exported names declared in the
	// module (export const) in order, every exported name's expression
	// or re-export, and the exports being evaluated for an importer.
	defaultExpr js.IExpr
	defaultLine int
	order       []string
	named       map[string]js.IExpr
	reexported  map[string]jsImport
	exporting   map[string]bool
	alias       map[string]string // export { local as exported }: exported to local
	// funcs holds the module's top-level function declarations, scope
	// the parameters of the function being followed (nil at the top
	// level), calling the functions being followed (func.go).
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
	// spreads holds the offset of each "...name" written once in buf
	// (-1 for one written more than once), built on the first spread
	// the reader cannot follow.
	spreads map[string]int
}

// line returns the source line of data, a slice of the parsed text, or 0.
func (e *jsEval) line(data []byte) int {
	off := e.offset(data)
	if off < 0 {
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

// collect records the module's top-level declarations, imports and
// exports.
func (e *jsEval) collect(ast *js.AST) {
	e.imported = map[string]jsImport{}
	e.named = map[string]js.IExpr{}
	e.reexported = map[string]jsImport{}
	e.exporting = map[string]bool{}
	e.alias = map[string]string{}
	var exportsExpr js.IExpr
	var exportsLine int
	for _, st := range ast.List {
		switch s := st.(type) {
		case *js.ImportStmt:
			if s.Default != nil {
				e.imported[string(s.Default)] = jsImport{from: string(s.Module), name: "default"}
			}
			for _, a := range s.List {
				// import { name as binding }: Binding is the local
				// name; import { x } leaves one of the two nil.
				local, name := a.Binding, a.Name
				if local == nil {
					local = a.Name
				}
				if name == nil {
					name = a.Binding
				}
				e.imported[string(local)] = jsImport{from: string(s.Module), name: string(name)}
			}
		case *js.VarDecl:
			e.declare(s)
		case *js.FuncDecl:
			e.declareFunc(s)
		case *js.ExportStmt:
			switch {
			case s.Default:
				e.defaultExpr = s.Decl
				// The statement carries no offset; esbuild prints one
				// default export, as "export default".
				if i := bytes.Index(e.buf, []byte("export default")); i >= 0 {
					e.defaultLine = e.line(e.buf[i : i+1])
				}
			case s.Decl != nil:
				if fd, ok := s.Decl.(*js.FuncDecl); ok {
					e.declareFunc(fd)
					if fd.Name != nil {
						e.named[string(fd.Name.Data)] = nil
					}
				}
				if vd, ok := s.Decl.(*js.VarDecl); ok {
					for _, n := range e.declare(vd) {
						e.named[n] = e.decls[n]
						e.order = append(e.order, n)
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
					if imp, ok := e.imported[local]; ok && exp != "default" {
						// export { x } of a name the module imports.
						e.reexported[exp] = imp
						continue
					}
					if x, ok := e.decls[local]; ok {
						if exp == "default" {
							e.defaultExpr = x
						} else {
							e.named[exp] = x
							e.alias[exp] = local
						}
					}
				}
			default:
				// export { name as exported } from './module'.
				for _, a := range s.List {
					name, exp := string(a.Name), string(a.Binding)
					if a.Name == nil {
						name = exp
					}
					if exp != "" && name != "*" {
						e.reexported[exp] = jsImport{from: string(s.Module), name: name}
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
	if e.defaultExpr == nil {
		e.defaultExpr, e.defaultLine = exportsExpr, exportsLine
	}
}

// exports evaluates the module's default export and the names it
// declares exported (export const).
func (e *jsEval) exports() (*Module, error) {
	m := &Module{Named: map[string]any{}}
	var err error
	if e.defaultExpr != nil {
		if m.Default, err = e.eval(e.defaultExpr, 0, e.defaultLine); err != nil {
			return nil, err
		}
	}
	for _, n := range e.order {
		if m.Named[n], err = e.eval(e.named[n], 0, e.declLine[n]); err != nil {
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
	return e.r.budget.Spend(n, func(max int) error {
		return fmt.Errorf("%s line %d: the module holds more than %d values (%w): simplify it or raise --max-nav-nodes", e.name, line, max, ErrBound)
	})
}

// eval evaluates x, at nesting depth, written on line (0 where unknown).
func (e *jsEval) eval(x js.IExpr, depth, line int) (any, error) {
	if err := e.count(1, line); err != nil {
		return nil, err
	}
	if depth > e.lim.MaxDepth {
		return nil, fmt.Errorf("%s line %d: values nest deeper than %d (%w): flatten it or raise --max-nav-depth", e.name, line, e.lim.MaxDepth, ErrBound)
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
				return &Opaque{What: "a string the reader cannot decode", Line: line}, nil
			}
			return s, nil
		case js.DecimalToken, js.IntegerToken:
			f, err := strconv.ParseFloat(strings.ReplaceAll(string(v.Data), "_", ""), 64)
			if err != nil {
				return &Opaque{What: "a number " + string(v.Data), Line: line}, nil
			}
			return f, nil
		case js.TrueToken:
			return true, nil
		case js.FalseToken:
			return false, nil
		case js.NullToken:
			return nil, nil
		}
		return &Opaque{What: string(v.Data), Line: line}, nil
	case *js.UnaryExpr:
		if v.Op == js.NegToken {
			if f, ok := jsFloat(e.eval(v.X, depth, line)); ok {
				return -f, nil
			}
		}
		return &Opaque{What: "an expression with an operator", Line: line}, nil
	case *js.TemplateExpr:
		if v.Tag == nil && len(v.List) == 0 {
			s, ok := jsTemplate(v.Tail)
			if ok {
				return s, nil
			}
		}
		return &Opaque{What: "a template literal with expressions", Line: line}, nil
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
		if imp, ok := e.imported[n]; ok {
			if !e.busy[n] {
				e.busy[n] = true
				r, followed, err := e.importedValue(n, imp, depth+1, line)
				e.busy[n] = false
				if err != nil {
					return nil, err
				}
				if followed {
					e.done[n] = r
					return r, nil
				}
			}
			return &Opaque{What: n + ", imported from " + imp.from, Line: line}, nil
		}
		return &Opaque{What: n, Line: line}, nil
	case *js.DotExpr:
		name := jsName(v)
		if l := e.jsLine(v); l > 0 && line == 0 {
			line = l
		}
		base, err := e.eval(v.X, depth, line)
		if err != nil {
			return nil, err
		}
		if o, ok := base.(*Object); ok {
			if r, ok := o.Values[jsDotKey(v)]; ok {
				return r, nil
			}
		}
		if name == "" {
			name = "a property"
		}
		return &Opaque{What: name, Line: line}, nil
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
				if _, ok := r.(*Opaque); !ok {
					r = &Opaque{What: "a spread of a value that is not an array", Line: line}
				}
			}
			out = append(out, r)
		}
		return out, nil
	case *js.ObjectExpr:
		o := &Object{Values: map[string]any{}, Lines: map[string]int{}}
		for _, p := range v.List {
			if p.Spread {
				r, err := e.eval(p.Value, depth+1, line)
				if err != nil {
					return nil, err
				}
				if so, ok := r.(*Object); ok {
					if err := e.count(len(so.Keys), line); err != nil {
						return nil, err
					}
					for _, k := range so.Keys {
						o.Set(k, so.Values[k], so.Lines[k])
					}
					continue
				}
				o.Set("...", &Opaque{What: "a spread the reader cannot follow", Line: e.spreadLine(p.Value, line)}, line)
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
				o.Set("[computed]", &Opaque{What: "a computed key", Line: kline}, kline)
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
			o.Set(key, r, kline)
		}
		return o, nil
	case *js.CallExpr:
		name := jsName(v.X)
		if l := e.jsLine(v.X); l > 0 && line == 0 {
			line = l
		}
		if name == "require" && len(v.Args.List) == 1 && !e.shadowed(name) {
			if spec, ok := jsStringArg(v.Args.List[0]); ok {
				r, followed, err := e.importedValue("require("+spec+")", jsImport{from: spec, name: "default"}, depth+1, line)
				if err != nil || followed {
					return r, err
				}
			}
		}
		owner, fn, f, ok, err := e.function(v.X)
		if err != nil {
			return nil, err
		}
		if ok {
			r, followed, err := e.call(owner, fn, f, v, depth, line)
			if err != nil || followed {
				return r, err
			}
		}
		c := &Call{Callee: name, Line: line}
		for _, a := range v.Args.List {
			r, err := e.eval(a.Value, depth+1, line)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, r)
		}
		return c, nil
	}
	return &Opaque{What: "an expression the reader does not evaluate", Line: line}, nil
}

// spreadLine returns the line of a spread of x in an object literal
// written on line: the parser keeps no offset of a spread, and shares one
// name among its uses, so it is found in the printed text as "...name"
// where that is written once in the module; else line.
func (e *jsEval) spreadLine(x js.IExpr, line int) int {
	if c, ok := x.(*js.CallExpr); ok {
		x = c.X
	}
	name := jsName(x)
	if name == "" {
		return line
	}
	if e.spreads == nil {
		e.indexSpreads()
	}
	if at, ok := e.spreads[name]; ok && at >= 0 {
		if l := e.line(e.buf[at : at+1]); l > 0 {
			return l
		}
	}
	return line
}

// indexSpreads records, once per module, where each "...name" of the
// printed text is, -1 for a name spread more than once.
func (e *jsEval) indexSpreads() {
	e.spreads = map[string]int{}
	for off := 0; ; {
		i := bytes.Index(e.buf[off:], []byte("..."))
		if i < 0 {
			break
		}
		at := off + i
		end := at + 3
		for end < len(e.buf) && (e.buf[end] == '.' || e.buf[end] == '_' || e.buf[end] == '$' || e.buf[end] >= '0' && e.buf[end] <= '9' || e.buf[end]|0x20 >= 'a' && e.buf[end]|0x20 <= 'z') {
			end++
		}
		if n := string(bytes.TrimRight(e.buf[at+3:end], ".")); n != "" {
			if _, dup := e.spreads[n]; dup {
				e.spreads[n] = -1
			} else {
				e.spreads[n] = at
			}
		}
		off = end
	}
	e.lineProbes += len(e.buf)
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

// Set sets key k to v, written on line, keeping the key's first place.
func (o *Object) Set(k string, v any, line int) {
	if _, ok := o.Values[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Values[k] = v
	o.Lines[k] = line
}

// offset returns where data lies in the printed module, or -1 where it
// is not a slice of it.
func (e *jsEval) offset(data []byte) int {
	if len(data) == 0 || len(e.buf) == 0 {
		return -1
	}
	// The parser's slices carry no offset (their capacity is cut to their
	// length), so the offset is the distance between the two arrays'
	// addresses, checked to lie inside the buffer and to hold the bytes.
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(data))) - uintptr(unsafe.Pointer(unsafe.SliceData(e.buf))))
	if off < 0 || off+len(data) > len(e.buf) || &e.buf[off] != &data[0] {
		return -1
	}
	return off
}

// propKey returns an object key and its line; ok is false for a computed
// key that is not a literal. The parser reads a quoted key that looks
// like a number ('2.0') as that number, without its quotes; such a key is
// the string as written, where an unquoted number is the number's own
// name (esbuild has already printed 2.0 as 2).
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
		if off := e.offset(d); off > 0 && (e.buf[off-1] == '"' || e.buf[off-1] == '\'') {
			return string(d), e.line(d), true
		}
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

// Str returns v as a string where it is one.
func Str(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// LineOf returns the line an unread value names, for a warning.
func LineOf(v any) int {
	switch x := v.(type) {
	case *Opaque:
		return x.Line
	case *Call:
		return x.Line
	}
	return 0
}

// Describe says in words what a value the reader cannot follow is.
func Describe(v any) string {
	switch x := v.(type) {
	case *Opaque:
		return x.What
	case *Call:
		if x.Callee == "" {
			return "a function call"
		}
		return "a call of " + x.Callee + "()"
	}
	return fmt.Sprintf("a %T", v)
}

// UnwrapCall returns the first object argument of a call such as
// defineConfig({...}) or extendConfig(config): configuration helpers take
// the configuration as their first argument and return it extended, so the
// reader reads that argument. Other values are returned as they are.
func UnwrapCall(v any) any {
	for i := 0; i < 8; i++ {
		c, ok := v.(*Call)
		if !ok {
			return v
		}
		var next any
		for _, a := range c.Args {
			switch a.(type) {
			case *Object, *Call:
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
