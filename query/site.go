package query

import (
	"context"
	"slices"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// SiteOf returns what the contract set's texts say of a site named name
// serving trees (schemas.Site): nil trees where they are the contract's
// own with their default access and no title or description, so that
// the texts stay the contract's byte for byte; else each tree with its
// title (the configuration's, else the served version's navigation
// name) and description, and an example route from the served version
// (its first page past the home page), where one is served.
func SiteOf(name string, trees []TreeConfig, versions Versions) schemas.Site {
	site := schemas.Site{Name: name}
	if slices.Equal(trees, DefaultTrees()) {
		return site
	}
	var v Version
	if versions != nil {
		if got, err := versions.Acquire(); err == nil {
			v = got
			defer v.Release()
		}
	}
	site.Trees = make([]schemas.SiteTree, 0, len(trees))
	for _, t := range trees {
		st := schemas.SiteTree{Name: t.Name, Title: t.Title, Description: t.Description}
		if v != nil {
			if vt := v.Tree(t.Name); vt != nil {
				if st.Title == "" {
					st.Title = vt.Title()
				}
				st.Route = exampleRoute(t.Name, vt.Pages())
			}
		}
		site.Trees = append(site.Trees, st)
	}
	return site
}

// exampleRoute is the route a text gives as an example of tree's pages:
// its first page that is not the home page, else the home page's.
func exampleRoute(tree string, pages []tzctx.Page) string {
	home := "/" + tree + "/"
	for _, p := range pages {
		if p.Route != home && p.Route != "" {
			return p.Route
		}
	}
	return home
}

// Summary returns what the caller of ctx is told first of what is served
// (MCP's instructions): each tree it may read in the served version, in
// tree order, with its title, description and page count, and whether
// the served version holds a library entry it may read. It reads no text
// and is recorded nowhere; no version served answers none.
func (r *Reader) Summary(ctx context.Context) ([]tzctx.TreeSummary, bool, error) {
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, false, err
	}
	v, err := r.versions.Acquire()
	if err != nil {
		return nil, false, nil
	}
	defer v.Release()
	served := make([]string, 0, len(readable))
	for _, t := range readable {
		if v.Tree(t) != nil {
			served = append(served, t)
		}
	}
	titles := r.treeTitles(v, served)
	out := make([]tzctx.TreeSummary, 0, len(served))
	for _, t := range served {
		out = append(out, tzctx.TreeSummary{Name: t, Title: titles[t], Description: r.setOf(v).trees[t].Description, Pages: len(v.Tree(t).Pages())})
	}
	return out, r.holdsLibrary(ctx, v), nil
}

// holdsLibrary reports whether v holds a library entry the caller of ctx
// may read.
func (r *Reader) holdsLibrary(ctx context.Context, v Version) bool {
	lv, ok := v.(LibraryVersion)
	if !ok {
		return false
	}
	lib, err := lv.Library()
	if err != nil || lib == nil {
		return false
	}
	id := tzctx.IdentityFrom(ctx)
	for _, e := range lib.Entries() {
		if mayRead(e.Access, id) {
			return true
		}
	}
	return false
}
