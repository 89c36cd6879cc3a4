package jslit

import (
	"github.com/tdewolff/parse/v2/js"
)

// A function of the navigation module whose body is one return of an
// expression (function f(a, b = 'x') { return [...] }, const f = (a) =>
// [...], const f = function (a) { return [...] }) is followed where the
// module calls it by name: its parameters are bound to the call's
// evaluated arguments (a missing one to its default, else undefined) and
// the returned expression is evaluated as a literal is, so that
// sidebar: {'/guide/': {base: '/guide/', items: sidebarGuide()}} reads as
// the array sidebarGuide returns. The function sees the module's
// top-level constants and functions and its own parameters, nothing of
// its caller. A call is one level deeper than its caller (MaxDepth), the
// values of each call count again (MaxNodes), and a function called
// while it is being followed (recursion, direct or through another) is
// not followed: the call is a value the reader cannot follow, and the
// reader falls back with its warning. A function a module imports is
// followed in its own module (imports.go), seeing that module's top
// level, and so is one a CommonJS module exports, called by the name it
// is bound to (const f = require('./x'); f()), destructured (const { f }
// = require('./x')) or as a member (const m = require('./x'); m.f()).
// Any other function (statements
// besides the return, destructured or rest parameters, async, generator,
// a spread argument) stays a Call, as before.

// jsFunc is a function of the module the evaluator may follow.
type jsFunc struct {
	params []js.BindingElement
	ret    js.IExpr // the returned expression; nil where not followable
}

// jsFuncOf returns the followable form of a function expression or
// declaration, ok false where x is no function.
func jsFuncOf(x js.IExpr) (jsFunc, bool) {
	var params js.Params
	var body js.BlockStmt
	switch f := x.(type) {
	case *js.GroupExpr:
		return jsFuncOf(f.X)
	case *js.FuncDecl:
		if f.Async || f.Generator {
			return jsFunc{}, true
		}
		params, body = f.Params, f.Body
	case *js.ArrowFunc:
		if f.Async {
			return jsFunc{}, true
		}
		params, body = f.Params, f.Body
	default:
		return jsFunc{}, false
	}
	if params.Rest != nil || len(body.List) != 1 {
		return jsFunc{}, true
	}
	for _, p := range params.List {
		if _, ok := p.Binding.(*js.Var); !ok {
			return jsFunc{}, true
		}
	}
	r, ok := body.List[0].(*js.ReturnStmt)
	if !ok || r.Value == nil {
		return jsFunc{}, true
	}
	return jsFunc{params: params.List, ret: r.Value}, true
}

// function returns the function a call's callee names and the module
// that declares it (this one, or one it imports, read as imports.go
// says), ok false where it names none.
func (e *jsEval) function(callee js.IExpr) (*jsEval, string, jsFunc, bool, error) {
	if d, ok := callee.(*js.DotExpr); ok {
		// m.name() of const m = require('./x') (or a default import):
		// the member name of the module's module.exports.
		v, ok := d.X.(*js.Var)
		if !ok {
			return nil, "", jsFunc{}, false, nil
		}
		imp, ok := e.imported[string(v.Data)]
		if _, param := e.scope[string(v.Data)]; param || !ok || imp.name != "default" || jsDotKey(d) == "" {
			return nil, "", jsFunc{}, false, nil
		}
		other, _, err := e.r.load(e.name, imp.from)
		if err != nil || other == nil || !other.cjs {
			return nil, "", jsFunc{}, false, err
		}
		return other.exportedFunc(jsDotKey(d), 0)
	}
	v, ok := callee.(*js.Var)
	if !ok {
		return nil, "", jsFunc{}, false, nil
	}
	n := string(v.Data)
	if _, param := e.scope[n]; param {
		return nil, "", jsFunc{}, false, nil
	}
	if f, ok := e.localFunc(n); ok {
		return e, n, f, true, nil
	}
	if imp, ok := e.imported[n]; ok {
		other, _, err := e.r.load(e.name, imp.from)
		if err != nil || other == nil {
			return nil, "", jsFunc{}, false, err
		}
		return other.exportedFunc(imp.name, 0)
	}
	return nil, "", jsFunc{}, false, nil
}

// call follows a call of the function f named name of the module owner:
// nil, false where it cannot be followed (the caller then keeps the
// Call). The arguments are evaluated in the caller's module, the body in
// the owner's.
func (e *jsEval) call(owner *jsEval, name string, f jsFunc, c *js.CallExpr, depth, line int) (any, bool, error) {
	if f.ret == nil {
		return nil, false, nil
	}
	if owner.calling[name] {
		return &Opaque{What: "a call of " + name + "(), which calls itself", Line: line}, true, nil
	}
	args := make([]any, len(c.Args.List))
	for i, a := range c.Args.List {
		if a.Rest {
			return nil, false, nil
		}
		r, err := e.eval(a.Value, depth+1, line)
		if err != nil {
			return nil, true, err
		}
		args[i] = r
	}
	return owner.apply(name, f, args, depth, line)
}

// apply evaluates the function f named name of this module with args.
func (e *jsEval) apply(name string, f jsFunc, args []any, depth, line int) (any, bool, error) {
	// The function sees its parameters and the module's top level, not
	// its caller's parameters.
	outer := e.scope
	e.scope = map[string]any{}
	e.calling[name] = true
	defer func() {
		e.scope = outer
		e.calling[name] = false
	}()
	for i, p := range f.params {
		n := string(p.Binding.(*js.Var).Data)
		switch {
		case i < len(args) && args[i] != nil:
			e.scope[n] = args[i]
		case p.Default != nil:
			r, err := e.eval(p.Default, depth+1, line)
			if err != nil {
				return nil, true, err
			}
			e.scope[n] = r
		default:
			e.scope[n] = nil
		}
	}
	r, err := e.eval(f.ret, depth+1, line)
	return r, true, err
}

// topLevel evaluates x, a top-level declaration's expression, outside any
// function's parameters.
func (e *jsEval) topLevel(x js.IExpr, depth, line int) (any, error) {
	outer := e.scope
	e.scope = nil
	defer func() { e.scope = outer }()
	return e.eval(x, depth, line)
}
