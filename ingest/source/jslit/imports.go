package jslit

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/tdewolff/parse/v2/js"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// A module read from the folder (ReadModule) may take its navigation
// from a sibling module: import { sidebar } from './sidebar',
// sidebar: sidebarGuide() with sidebarGuide imported from
// './sidebars/guide', or CommonJS's require('./sidebars/api') (the
// module's module.exports), bound to a name (const f = require('./x');
// f()) or destructured (const { a } = require('./x'), a member of
// module.exports or an exports.a). A JSON module (import sidebar from
// './sidebar.json', require('./x.json'), require('./x') finding x.json)
// is read as the value it holds, its keys the names it exports.
// Where a relative import's name is evaluated, the module it names is
// read through the same folder reader (inside the folder, links out and
// special files refused), parsed within the same bounds and evaluated
// lazily, for that name only: an exported literal is read as the module's
// own constants are, an exported function is followed as the module's own
// functions are (func.go), and export { x } from './y' is followed on.
// The read shares one node budget (MaxNodes) and one byte bound
// (MaxFileBytes, all the modules together), a name imported is one level
// of nesting (MaxDepth), and at most MaxModules modules are read besides
// the first. A module that cannot be read (missing, outside the folder,
// over a bound, not parsed) leaves the name a value the reader cannot
// follow, saying why, and the reader falls back as for any other; an
// import of a package (not ./ or ../) is never read.

// jsImport is a name a module imports: the module it names, as written
// (a string literal, quotes included), and the name it exports
// ("default" for a default import).
type jsImport struct {
	from string
	name string
}

// reader is one read of a module and the modules it imports: their
// bounds, their one node budget, and the folder imports are read from
// (nil: imports are not followed).
type reader struct {
	ctx     context.Context
	lim     Limits
	budget  *Budget
	dir     *sitefs.Folder
	bytes   int64
	modules map[string]*jsEval // by path in the folder; nil where it could not be read
	why     map[string]string  // why a module could not be read
	found   map[string]string  // the module each import's path names, "" for none
}

// ReadModule reads the module name from dir within lim and evaluates its
// literal exports, following its relative imports through dir. Its
// errors name the file and the fix.
func ReadModule(ctx context.Context, dir *sitefs.Folder, name string, lim Limits) (*Module, error) {
	lim = lim.WithDefaults()
	src, err := dir.ReadFile(ctx, name, lim.MaxFileBytes)
	if err != nil {
		if errors.Is(err, sitefs.ErrTooLarge) {
			return nil, fmt.Errorf("%w: a navigation module over the bound is refused unread; shorten it or raise --max-manifest-bytes", err)
		}
		return nil, err
	}
	r := &reader{ctx: ctx, lim: lim, budget: NewBudget(ctx, lim.MaxNodes), dir: dir, bytes: int64(len(src)),
		modules: map[string]*jsEval{}, why: map[string]string{}, found: map[string]string{}}
	ev, err := r.parse(name, src)
	if err != nil {
		return nil, err
	}
	r.modules[name] = ev
	m, err := ev.exports()
	jsParsed(ev)
	return m, err
}

// jsModuleExts are the extensions an import without one is looked for
// with, in order; an index module of a folder is looked for after them.
var jsModuleExts = []string{".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"}

// load returns the module spec (a string literal) names, imported by the
// module from: nil
// and "" where spec is not relative or the read follows no import, nil and
// why where the module cannot be read. Only the context's error is an
// error.
func (r *reader) load(from, spec string) (*jsEval, string, error) {
	spec, ok := jsString([]byte(spec))
	if !ok {
		return nil, "", nil
	}
	if r.dir == nil || !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
		return nil, "", nil
	}
	if err := r.ctx.Err(); err != nil {
		return nil, "", err
	}
	base := path.Join(path.Dir(from), spec)
	if base == ".." || strings.HasPrefix(base, "../") {
		return nil, "it is outside the folder", nil
	}
	name, ok := r.found[base]
	if !ok {
		// Looking a module up takes up to a dozen names: once per path.
		name = r.find(base)
		r.found[base] = name
	}
	if name == "" {
		return nil, "no module " + base + " is in the folder", nil
	}
	if ev, ok := r.modules[name]; ok {
		if ev == nil {
			return nil, r.why[name], nil
		}
		return ev, "", nil
	}
	ev, why, err := r.read(name)
	if err != nil {
		return nil, "", err
	}
	r.modules[name], r.why[name] = ev, why
	return ev, why, nil
}

// find returns the module base names in the folder: base itself where it
// has a module's extension (.json too), else base with one of
// jsModuleExts or .json, else the index module of the folder base; ""
// where there is none. A .js import
// of a TypeScript module (import './x.js' of x.ts) is found too.
func (r *reader) find(base string) string {
	ext := path.Ext(base)
	var cands []string
	switch ext {
	case ".js", ".mjs", ".cjs":
		cands = append(cands, base, strings.TrimSuffix(base, ext)+strings.Replace(ext, "j", "t", 1))
	case ".ts", ".mts", ".cts", ".json":
		cands = append(cands, base)
	default:
		// require('./x') finds x.json after the scripts, as Node does.
		for _, x := range jsModuleExts {
			cands = append(cands, base+x)
		}
		cands = append(cands, base+".json")
		for _, x := range jsModuleExts {
			cands = append(cands, base+"/index"+x)
		}
	}
	for _, c := range cands {
		if r.dir.Exists(c) {
			return c
		}
	}
	return ""
}

// read reads and parses the module name within the bounds left.
func (r *reader) read(name string) (*jsEval, string, error) {
	if len(r.modules) > r.lim.MaxModules {
		return nil, fmt.Sprintf("the navigation imports more than %d modules: raise --max-nav-modules", r.lim.MaxModules), nil
	}
	left := r.lim.MaxFileBytes - r.bytes
	src, err := r.dir.ReadFile(r.ctx, name, left)
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			return nil, "", cerr
		}
		if errors.Is(err, sitefs.ErrTooLarge) {
			return nil, fmt.Sprintf("%s and the modules read before it hold more than %d bytes: raise --max-manifest-bytes", name, r.lim.MaxFileBytes), nil
		}
		return nil, jsOneLine(err.Error()), nil
	}
	r.bytes += int64(len(src))
	ev, err := r.parse(name, src)
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			return nil, "", cerr
		}
		return nil, jsOneLine(err.Error()), nil
	}
	return ev, "", nil
}

// importedValue evaluates the name imp imports, at depth: ok false where
// the import is not followed (a package, or no folder), a value the
// reader cannot follow saying why where its module cannot be read.
func (e *jsEval) importedValue(n string, imp jsImport, depth, line int) (any, bool, error) {
	other, why, err := e.r.load(e.name, imp.from)
	if err != nil || other == nil && why == "" {
		return nil, false, err
	}
	if other == nil {
		return &Opaque{What: fmt.Sprintf("%s, imported from %s, which is not read (%s)", n, imp.from, why), Line: line}, true, nil
	}
	return other.export(imp.name, depth, line)
}

// export evaluates the module's export name for an importer, at depth.
func (e *jsEval) export(name string, depth, line int) (any, bool, error) {
	if e.exporting[name] {
		return &Opaque{What: fmt.Sprintf("%s of %s, which imports itself", name, e.name), Line: line}, true, nil
	}
	e.exporting[name] = true
	defer delete(e.exporting, name)
	if imp, ok := e.reexported[name]; ok {
		return e.importedValue(name, imp, depth+1, line)
	}
	x := e.defaultExpr
	if name != "default" {
		var ok bool
		if x, ok = e.named[name]; !ok {
			x, ok = e.cjsMember(name)
		}
		if !ok {
			return &Opaque{What: fmt.Sprintf("%s, which %s does not export", name, e.name), Line: line}, true, nil
		}
		if x == nil {
			// An exported function declaration: a value only as a call.
			return &Opaque{What: "the function " + name + " of " + e.name, Line: line}, true, nil
		}
	}
	if x == nil {
		return &Opaque{What: e.name + ", which has no default export", Line: line}, true, nil
	}
	if r, ok := e.done["\x00export "+name]; ok {
		return r, true, nil
	}
	r, err := e.topLevel(x, depth, line)
	if err != nil {
		return nil, true, err
	}
	e.done["\x00export "+name] = r
	return r, true, nil
}

// exportedFunc returns the function the module exports as name, and the
// module that declares it (a re-export is followed on).
func (e *jsEval) exportedFunc(name string, hops int) (*jsEval, string, jsFunc, bool, error) {
	if imp, ok := e.reexported[name]; ok {
		if hops > e.lim.MaxModules {
			return nil, "", jsFunc{}, false, nil
		}
		other, _, err := e.r.load(e.name, imp.from)
		if err != nil || other == nil {
			return nil, "", jsFunc{}, false, err
		}
		return other.exportedFunc(imp.name, hops+1)
	}
	x, ok := e.named[name]
	if !ok {
		x, ok = e.cjsMember(name)
	}
	if !ok && name == "default" {
		x, ok = e.defaultExpr, e.defaultExpr != nil
	}
	if !ok {
		return nil, "", jsFunc{}, false, nil
	}
	local := name
	if l, ok := e.alias[name]; ok {
		local = l
	}
	if v, ok := x.(*js.Var); ok {
		// module.exports = sidebarGuide, { sidebarGuide }: a function
		// of the module, or one it imports.
		local = string(v.Data)
		if imp, ok := e.imported[local]; ok && hops <= e.lim.MaxModules {
			other, _, err := e.r.load(e.name, imp.from)
			if err != nil || other == nil {
				return nil, "", jsFunc{}, false, err
			}
			return other.exportedFunc(imp.name, hops+1)
		}
	}
	if f, ok := e.localFunc(local); ok {
		return e, local, f, true, nil
	}
	if f, ok := jsFuncOf(x); ok {
		// A function written in place: module.exports = function () {…},
		// exports.name = () => […], export default function () {…}.
		return e, "\x00" + name, f, true, nil
	}
	return nil, "", jsFunc{}, false, nil
}

// localFunc returns the module's top-level function named n.
func (e *jsEval) localFunc(n string) (jsFunc, bool) {
	if f, ok := e.funcs[n]; ok {
		return f, true
	}
	if d, ok := e.decls[n]; ok {
		return jsFuncOf(d)
	}
	return jsFunc{}, false
}

// shadowed reports whether n is a parameter of the function being
// followed or a top-level name of the module, not the global.
func (e *jsEval) shadowed(n string) bool {
	if _, ok := e.scope[n]; ok {
		return true
	}
	_, decl := e.decls[n]
	_, fn := e.funcs[n]
	_, imp := e.imported[n]
	return decl || fn || imp
}

// jsStringArg returns a call's argument where it is a string literal, as
// written.
func jsStringArg(a js.Arg) (string, bool) {
	if a.Rest {
		return "", false
	}
	l, ok := a.Value.(*js.LiteralExpr)
	if !ok || l.TokenType != js.StringToken {
		return "", false
	}
	return string(l.Data), true
}
