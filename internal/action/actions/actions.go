// Package actions defines the served-context plane's actions, one
// constructor and one file per action. A constructor takes what its
// action reads through (a reader of package query, the contract's
// limits) and returns the dispatcher's action value: its name, its
// definition from the embedded contract (enumeration entry, description,
// request and response schemas) and its handler. The handler is the
// method of what answers the action that takes its typed request
// (query.Reader's ReadDocumentation for read_documentation), bound by
// dispatch.Typed, so no handler decodes its arguments itself. The
// dispatcher's users assemble them (internal/action/plane's table, one
// line per action); nothing here calls a front end.
package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// The reader's answers are what the dispatcher's front ends read whole
// without encoding them: a text's chunks and the catalog's pages.
var (
	_ dispatch.Chunk       = (*query.Answer)(nil)
	_ dispatch.CatalogPage = (*query.ListAnswer)(nil)
	_ dispatch.EntrySizer  = (*query.ListAnswer)(nil)
)

// define returns the named action with handle as its handler and its
// definition from the embedded contract under the default site name.
func define(name string, handle dispatch.Handler, refused func(args map[string]any) string) *dispatch.Action {
	return defineIn(nil, name, handle, refused)
}

// defineIn returns the named action with handle as its handler and its
// definition from c, the contract the dispatcher registers against (its
// texts name the configured site); nil means the embedded contract under
// the default site name. Where the contract lacks the name, the action
// carries the name alone, and the dispatcher refuses to register it,
// naming the schema file that lacks it.
func defineIn(c *schemas.Contract, name string, handle dispatch.Handler, refused func(args map[string]any) string) *dispatch.Action {
	a := &dispatch.Action{Handle: handle, RefusedSubject: refused}
	a.Name = name
	if c == nil {
		c, _ = schemas.Load()
	}
	if c != nil {
		if def, err := c.Action(name); err == nil {
			a.Action = def
		}
	}
	return a
}

// subject returns the record subject of a call refused before its
// handler ran, or whose arguments did not bind, where it is s whatever
// the arguments.
func subject(s string) func(args map[string]any) string {
	return func(map[string]any) string { return s }
}

// Registry says which actions this build registers; the default
// dispatcher is one, consulted at call time, once every action is
// registered.
type Registry interface {
	Action(name string) *dispatch.Action
}

var _ Registry = (*dispatch.Dispatcher)(nil)

// listable returns, for the caller of ctx, whether an action is
// registered and its access lets the caller list it: an anonymous
// action to anyone, an admin action to an admin caller alone, any other
// to a signed-in caller.
func listable(ctx context.Context, reg Registry) query.Listable {
	id := tzctx.IdentityFrom(ctx)
	return func(name string) bool {
		if reg == nil {
			return false
		}
		a := reg.Action(name)
		if a == nil {
			return false
		}
		switch a.Access {
		case "anonymous":
			return true
		case schemas.AccessAdmin:
			return id.Admin
		}
		return !id.Anonymous()
	}
}
