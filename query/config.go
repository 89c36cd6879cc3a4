package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// headingsFall is the contract's fixed threshold above which a page's
// headings fall to depth 2 alone; it is not configurable.
const headingsFall = 40

// Access says what identity reading a tree requires: "anonymous",
// "signed_in" or "product_profile:<name>".
type Access string

// Config configures the reader.
type Config struct {
	// Limits are the contract's bounds, from schemas.Load.
	Limits schemas.Limits
	// Origin is the estate's public origin, stripped from page values.
	Origin string
	// SiteName is the site's public name, which the answers the reader
	// writes itself name (a rule code's preface); "" means
	// schemas.DefaultSiteName.
	SiteName string
	// Trees are the documentation trees served, in the order every list
	// of trees follows (the catalog, a tree-less search's ties, the trees
	// a refusal names); nil serves the contract's (tzctx.DefaultTrees)
	// with Access's settings. A tree a served version holds that Trees
	// does not name is not served.
	Trees []TreeConfig
	// Access maps each tree to the identity reading it requires; a tree
	// not named is anonymous. Where Trees is set, NewReader sets it from
	// Trees.
	Access map[string]Access
	// Catalog holds the contract set's entries; nil serves the
	// documentation entries alone.
	Catalog ContractSet
	// Holder is the holder check asked on every call; nil asks
	// AccessHolder over Access.
	Holder Holder
	// Search bounds search_documentation; zero members take their
	// defaults.
	Search SearchLimits
	// ServeAll also serves, after Trees, every other tree the served
	// version holds: to anyone, titled by the version's own title of it
	// (its generator's name for it), cleaned to one line of at most
	// MaxTreeTitle characters, else by its name. The set follows the
	// served version. Where Holder is set it still decides, so leave it
	// nil (the access map) with ServeAll.
	ServeAll bool
}

// MaxTreeTitle bounds a tree's title, in characters: a configured one is
// refused past it, a served version's is cut to it.
const MaxTreeTitle = tzctx.MaxTreeTitle

// TreeConfig is one configured documentation tree.
type TreeConfig struct {
	// Name is the tree's name (tzctx.CheckTreeName): its routes' base
	// path and the tree of its content IDs.
	Name string
	// Title is the tree's title in the catalog; "" takes the served
	// version's (its navigation's name), else "<name> documentation",
	// as the contract's trees have it by default.
	Title string
	// Description is one line on what the tree holds, possibly empty.
	Description string
	// Access is the identity reading the tree requires.
	Access Access
}

// DefaultTrees are the contract's trees with their default access:
// blueprint gated behind its product profile, titles from the
// served version.
func DefaultTrees() []TreeConfig {
	var out []TreeConfig
	access := DefaultAccess()
	for _, t := range tzctx.DefaultTrees {
		out = append(out, TreeConfig{Name: t, Access: access[t]})
	}
	return out
}

// ContractSet is the contract set's shared entries with their texts,
// which list_context lists and read_context reads beside the
// documentation entries; the catalog the server builds from its embedded
// contract set is one.
type ContractSet interface {
	// Items returns every entry in catalog order.
	Items() []tzctx.CatalogItem
	// Item returns the entry with exactly the ID id.
	Item(id string) (tzctx.CatalogItem, bool)
}

// SiteNamer is a ContractSet whose texts name the site, and whose name
// the reader's own sentences (a rule code's preface) take in place of
// Config.SiteName: a server whose texts follow the served version names
// the site as they do.
type SiteNamer interface {
	SiteName() string
}

// Grant is what a holder check allows a caller: the trees it may read, in
// tree order, and the product profiles its account holds.
type Grant struct {
	Trees    []string
	Profiles []string
}

// Holder is the holder check (A-07's ReadableTrees): identity in, the
// trees and profiles it is allowed out. The reader asks it on every call,
// continuations included, so a stamp grants nothing. Configuration answers
// it today (AccessHolder); an entitlement service can replace it.
type Holder interface {
	Grant(ctx context.Context, id tzctx.Identity) (Grant, error)
}

// AccessHolder is the holder check the configuration answers: a tree is
// readable per its Access setting and the profiles the identity's
// credential lists. A tree it does not name is not granted; the reader
// serves only configured trees whatever a holder grants.
type AccessHolder map[string]Access

var _ Holder = AccessHolder(nil)

// Grant implements Holder.
func (a AccessHolder) Grant(_ context.Context, id tzctx.Identity) (Grant, error) {
	g := Grant{Profiles: append([]string(nil), id.Profiles...)}
	for t, acc := range a {
		if mayRead(acc, id) {
			g.Trees = append(g.Trees, t)
		}
	}
	tzctx.SortTrees(g.Trees)
	return g, nil
}

// DefaultAccess gates blueprint behind its product profile.
func DefaultAccess() map[string]Access {
	return map[string]Access{"cloud": "anonymous", "blueprint": "product_profile:blueprint", "tzdocs": "anonymous"}
}

// readable returns the trees the caller of ctx may read, in tree order,
// from the holder check. It is the one predicate behind listing, reading
// and searching (ACB-L0-82's place); a failing holder check refuses the
// call as unavailable rather than guessing.
func (r *Reader) readable(ctx context.Context) ([]string, error) {
	set := r.set()
	h := r.cfg.Holder
	if h == nil {
		h = AccessHolder(set.access)
	}
	g, err := h.Grant(ctx, tzctx.IdentityFrom(ctx))
	if err != nil {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the entitlement check failed; try again later")
	}
	var out []string
	for _, t := range set.names {
		if contains(g.Trees, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// TreeNames returns the names of the trees served, in their order:
// every tree this reader may serve, whatever the caller: the configured
// trees, and with ServeAll the served version's others.
func (r *Reader) TreeNames() []string { return append([]string(nil), r.set().names...) }

// Served returns the served version's name and the trees r serves of
// it, in order, each with its access and the title it is served under;
// "" and none where no version is served.
func (r *Reader) Served() (string, []TreeConfig) {
	v, err := r.versions.Acquire()
	if err != nil {
		return "", nil
	}
	defer v.Release()
	set := r.setOf(v)
	held := heldOf(v, set.names)
	titles := r.treeTitles(v, held)
	out := make([]TreeConfig, 0, len(held))
	for _, n := range held {
		c := set.trees[n]
		c.Title = titles[n]
		out = append(out, c)
	}
	return v.Name(), out
}

// TreeTitle returns the title a tree other than the contract's is served
// under where its configuration gives none: its served version's own
// (cleaned), else its name; "" for the contract's trees, whose texts
// stay the contract's, and for a tree not served.
func (r *Reader) TreeTitle(tree string) string {
	if slices.Contains(tzctx.DefaultTrees, tree) {
		return ""
	}
	v, err := r.versions.Acquire()
	if err != nil {
		return ""
	}
	defer v.Release()
	c, ok := r.setOf(v).trees[tree]
	switch {
	case !ok:
		return ""
	case c.Title != "":
		return c.Title
	}
	return r.treeTitles(v, []string{tree})[tree]
}

// isTree reports whether name is a tree served.
func (r *Reader) isTree(name string) bool {
	_, ok := r.set().trees[name]
	return ok
}

// Trees returns the documentation trees the caller of ctx may read that
// the served version holds, in tree order: the trees list_context lists
// and MCP offers, and the only trees a refusal names. It is empty where
// no version is served. A tree the served version lacks is not listed,
// though naming it still answers context_unavailable (A-07, revised).
func (r *Reader) Trees(ctx context.Context) ([]string, error) {
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, err
	}
	return r.servedOf(readable), nil
}

// servedOf returns those of readable the served version holds, none
// where no version is served.
func (r *Reader) servedOf(readable []string) []string {
	v, err := r.versions.Acquire()
	if err != nil {
		return nil
	}
	defer v.Release()
	return heldOf(v, readable)
}

// heldOf returns those of trees that v holds, in their order.
func heldOf(v Version, trees []string) []string {
	var out []string
	for _, t := range trees {
		if v.Tree(t) != nil {
			out = append(out, t)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func mayRead(a Access, id tzctx.Identity) bool {
	switch {
	case a == "" || a == "anonymous":
		return true
	case a == "signed_in":
		return !id.Anonymous()
	case strings.HasPrefix(string(a), "product_profile:"):
		return id.HasProfile(strings.TrimPrefix(string(a), "product_profile:"))
	}
	return false
}

// whyNot says, for a refusal's detail, why a caller may not read tree:
// what the access map grants it to and where an operator changes that. It
// depends on the configuration alone, never on the caller or the version.
// A holder check other than the access map's gives no reason.
func (r *Reader) whyNot(tree string) string {
	access := map[string]Access(nil)
	switch h := r.cfg.Holder.(type) {
	case nil:
		access = r.set().access
	case AccessHolder:
		access = h
	default:
		return ": the entitlement check does not grant it to this caller"
	}
	const by = ": the access map (the trees member of the server configuration) grants it only to "
	a := access[tree]
	switch {
	case a == "signed_in":
		return by + "signed-in callers, so send a bearer credential"
	case strings.HasPrefix(string(a), "product_profile:"):
		return fmt.Sprintf("%scredentials holding the product profile %s, so send a bearer credential listing that profile", by, strings.TrimPrefix(string(a), "product_profile:"))
	}
	return ""
}

// readableList names trees for an error detail: "cloud and tzdocs"; it
// is given only trees that can be read (servedOf), so a refusal never
// offers a tree that answers context_unavailable.
func readableList(trees []string) string {
	if len(trees) == 0 {
		return "no tree of the served site version"
	}
	return schemas.JoinAnd(trees)
}

// ValidAccess reports whether a is a known access setting.
func ValidAccess(a Access) bool {
	return a == "anonymous" || a == "signed_in" || (strings.HasPrefix(string(a), "product_profile:") && len(a) > len("product_profile:"))
}
