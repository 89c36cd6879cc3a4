// Package plane assembles the default dispatcher of this build: the
// served contract of package schemas, and the actions of package actions
// this build serves, over the reader, the operator actions included where
// a server has them. It is the one place actions are registered, in a
// table of one line per action (served, operator) naming the action and
// its constructor, whose file of package actions holds the handler:
// every front end (HTTP, MCP) is built from the dispatcher it returns;
// its contract registrations are the build metadata the generated
// reference shows (CTX-03).
package plane

import (
	"fmt"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/actions"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Limits returns the limits of the embedded contract, as schemas.Load
// reads them; package server configures its reader with them.
func Limits() (schemas.Limits, error) {
	c, err := schemas.Load()
	if err != nil {
		return schemas.Limits{}, err
	}
	return c.Limits(), nil
}

// registration is one line of the table of served actions: an action's
// name in the contract (schemas/actions.json) and the action its
// constructor of package actions returns, whose file of the same name
// holds its handler. NewWith refuses a line whose constructor returns
// another action's name.
type registration struct {
	name   string
	action *dispatch.Action
}

// served returns the actions this build serves, answered by reader, one
// line per action; reg is the dispatcher they are registered with, which
// says at call time which actions a caller may list.
func served(c *schemas.Contract, reader *query.Reader, reg actions.Registry) []registration {
	return []registration{
		{"list_context", actions.ListContext(c, reader, reg)},
		{"read_context", actions.ReadContext(c, reader, c.Limits(), reg)},
		{"read_documentation", actions.ReadDocumentation(c, reader)},
		{"search_documentation", actions.SearchDocumentation(c, reader)},
		{"list_library", actions.ListLibrary(c, reader)},
		{"read_library_entry", actions.ReadLibraryEntry(c, reader)},
	}
}

// operator returns the operator actions, answered by op, one line per
// action as served does.
func operator(c *schemas.Contract, op *actions.Operator) []registration {
	return []registration{
		{"admin_status", actions.AdminStatus(c, op)},
		{"admin_activate", actions.AdminActivate(c, op)},
	}
}

// Registered returns the names of the actions the default dispatcher of
// this build registers, in name order: the build metadata the generated
// reference shows and the liveness of a skill. It builds the
// dispatcher New builds, over no reader, so it reads the registrations
// themselves and never infers one from the presence of a schema.
func Registered() ([]string, error) {
	d, err := New(nil, nil, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range d.Actions() {
		names = append(names, a.Name)
	}
	return names, nil
}

// New returns the dispatcher with this build's actions registered over
// reader, and no operator action.
func New(reader *query.Reader, resolver tzctx.Resolver, recorder tzctx.Recorder) (*dispatch.Dispatcher, error) {
	return NewWith(Options{Reader: reader, Resolver: resolver, Recorder: recorder})
}

// Options are what NewWith builds a dispatcher over.
type Options struct {
	Reader   *query.Reader
	Resolver tzctx.Resolver
	Recorder tzctx.Recorder
	// Operator, where set, also registers the operator actions
	// (admin_status, admin_activate) over it: tzctx serve has them, an
	// MCP stdio process does not. They are of access admin, so MCP
	// offers no tool of them and a refusal names none of them.
	Operator *actions.Operator
	// SiteName is the site's public name, filled into the contract's
	// texts the actions are defined by (their descriptions, as tools/list
	// shows them); empty means schemas.DefaultSiteName.
	SiteName string
	// SiteTrees are the served trees the contract's texts name
	// (schemas.Site), nil for the contract's own, as written.
	SiteTrees []schemas.SiteTree
}

// NewWith returns the dispatcher with this build's actions registered
// as o says, every one before any front end is built from it.
func NewWith(o Options) (*dispatch.Dispatcher, error) {
	name := o.SiteName
	if name == "" {
		name = schemas.DefaultSiteName
	}
	c, err := schemas.LoadSite(schemas.Site{Name: name, Trees: o.SiteTrees})
	if err != nil {
		return nil, err
	}
	var opts []dispatch.Option
	if o.Reader != nil {
		texts := map[string]dispatch.TreeText{}
		for _, t := range o.Reader.Config().Trees {
			if t.Title != "" || t.Description != "" {
				texts[t.Name] = dispatch.TreeText{Title: t.Title, Description: t.Description}
			}
		}
		opts = append(opts, dispatch.WithTrees(o.Reader), dispatch.WithTreeTexts(texts))
	}
	d := dispatch.New(c, o.Resolver, o.Recorder, opts...)
	regs := served(c, o.Reader, d)
	if o.Operator != nil {
		regs = append(regs, operator(c, o.Operator)...)
	}
	if err := register(d, regs); err != nil {
		return nil, err
	}
	return d, nil
}

// register registers each line's action with d, refusing a line whose
// constructor returns an action of another name than the line's.
func register(d *dispatch.Dispatcher, regs []registration) error {
	for _, r := range regs {
		if r.action.Name != r.name {
			return fmt.Errorf("register action %s: its constructor returns the action %s", r.name, r.action.Name)
		}
		if err := d.Register(r.action); err != nil {
			return err
		}
	}
	return nil
}
