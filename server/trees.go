package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// The bounds of a configured tree's texts, in characters: a title and a
// description are one line each, the title shown in every catalog
// listing, both in MCP's resource and tree member descriptions.
const (
	MaxTreeTitle       = query.MaxTreeTitle
	MaxTreeDescription = 500
)

// Trees is the trees member of the configuration: the documentation trees
// served, in the order every list of trees follows. The file gives it as
// a list of objects ({"name", "title", "description", "access"}), or in
// the earlier map form, tree name to access, which sets the access of the
// contract's three trees (a tree it leaves out keeps its default).
type Trees struct {
	List []query.TreeConfig
	// mapForm marks a file that gave the map form; raw holds what the
	// file gave, checked by check; configured marks a file that gave
	// the member in either form.
	mapForm    bool
	configured bool
	raw        json.RawMessage
}

// Configured reports whether the configuration gave the trees member, in
// either form. Without it, a server on a local transport (tzctx mcp over
// stdio, tzctx serve on a loopback address) serves every tree of the
// served version (ServesAll).
func (t Trees) Configured() bool { return t.configured }

// DefaultTrees is the trees member of a file that sets none: the
// contract's three trees with their default access.
func DefaultTrees() Trees { return Trees{List: query.DefaultTrees()} }

// Names returns the configured trees' names, in order.
func (t Trees) Names() []string {
	out := make([]string, len(t.List))
	for i, c := range t.List {
		out[i] = c.Name
	}
	return out
}

// Access returns each configured tree's access, by name.
func (t Trees) Access() map[string]query.Access {
	out := make(map[string]query.Access, len(t.List))
	for _, c := range t.List {
		out[c.Name] = c.Access
	}
	return out
}

// UnmarshalJSON keeps the member's JSON for check, which names each fault
// by its member.
func (t *Trees) UnmarshalJSON(b []byte) error {
	t.raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the list form.
func (t Trees) MarshalJSON() ([]byte, error) {
	type entry struct {
		Name        string       `json:"name"`
		Title       string       `json:"title,omitempty"`
		Description string       `json:"description,omitempty"`
		Access      query.Access `json:"access"`
	}
	out := make([]entry, len(t.List))
	for i, c := range t.List {
		out[i] = entry(c)
	}
	return json.Marshal(out)
}

// check reads and checks the member the file gave, if any; its error
// names the member at fault and what to do.
func (t *Trees) check() error {
	raw := bytes.TrimSpace(t.raw)
	t.raw = nil
	switch {
	case raw == nil:
		return nil
	case bytes.Equal(raw, []byte("null")):
		return fmt.Errorf("trees: is null; leave it out for the defaults, or list the trees served, such as [{\"name\": \"docs\", \"title\": \"Documentation\", \"access\": \"anonymous\"}]")
	case raw[0] == '{':
		t.configured = true
		return t.checkMap(raw)
	case raw[0] == '[':
		t.configured = true
		return t.checkList(raw)
	}
	return fmt.Errorf("trees: is neither a list of trees nor a map of tree name to access; list the trees served, such as [{\"name\": \"docs\", \"title\": \"Documentation\", \"access\": \"anonymous\"}]")
}

// checkMap reads the map form: the contract's trees alone, each one the
// file leaves out at its default access, so naming one tree never opens
// another.
func (t *Trees) checkMap(raw []byte) error {
	var m map[string]query.Access
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("trees: the map form maps each tree to a string (anonymous, signed_in or product_profile:<name>): %v", err)
	}
	for _, name := range sortedNames(m) {
		if !slices.Contains(tzctx.DefaultTrees, name) {
			return fmt.Errorf("trees: %q is not a tree name the map form takes (%s); to serve other trees, list them: [{\"name\": %q, \"title\": \"…\", \"access\": \"anonymous\"}, …], the contract's trees included where they are served", name, strings.Join(tzctx.DefaultTrees, ", "), strings.ToLower(name))
		}
		if !query.ValidAccess(m[name]) {
			return fmt.Errorf("trees.%s: %q must be anonymous, signed_in or product_profile:<name>", name, m[name])
		}
	}
	t.List, t.mapForm = query.DefaultTrees(), true
	for i, c := range t.List {
		if a, ok := m[c.Name]; ok {
			t.List[i].Access = a
		}
	}
	return nil
}

// checkList reads the list form: the trees served, in order, each with a
// valid name given once, at most a one-line title (without one, the
// served version's title of the tree: its generator's name for it), at
// most a one-line description, and its access.
func (t *Trees) checkList(raw []byte) error {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("trees: %v", err)
	}
	switch {
	case len(list) == 0:
		return fmt.Errorf("trees: is empty; list at least one tree, or leave trees out for the contract's three")
	case len(list) > tzctx.MaxTrees:
		return fmt.Errorf("trees: lists %d trees, more than the bound of %d; serve fewer trees from one server", len(list), tzctx.MaxTrees)
	}
	seen := map[string]int{}
	out := make([]query.TreeConfig, 0, len(list))
	for i, r := range list {
		m := fmt.Sprintf("trees[%d]", i)
		var e struct {
			Name        *string       `json:"name"`
			Title       *string       `json:"title"`
			Description string        `json:"description"`
			Access      *query.Access `json:"access"`
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("%s: %v; a tree is {\"name\", \"title\", \"description\", \"access\"}", m, err)
		}
		switch {
		case e.Name == nil:
			return fmt.Errorf("%s.name: is missing; name the tree, such as \"docs\"", m)
		case tzctx.CheckTreeName(*e.Name) != nil:
			return fmt.Errorf("%s.name: %v", m, tzctx.CheckTreeName(*e.Name))
		}
		if j, dup := seen[*e.Name]; dup {
			return fmt.Errorf("%s.name: %q is given twice, also as trees[%d].name; give each tree once", m, *e.Name, j)
		}
		seen[*e.Name] = i
		if e.Title != nil && strings.TrimSpace(*e.Title) == "" {
			return fmt.Errorf("%s.title: is empty; give the tree's title as the catalog shows it, such as \"MCP documentation\", or leave title out for the title its documentation generator gives", m)
		}
		if err := oneLine(m+".title", e.Title, MaxTreeTitle); err != nil {
			return err
		}
		if err := oneLine(m+".description", &e.Description, MaxTreeDescription); err != nil {
			return err
		}
		switch {
		case e.Access == nil:
			return fmt.Errorf("%s.access: is missing; give anonymous, signed_in or product_profile:<name>, so no tree is served more openly than meant", m)
		case !query.ValidAccess(*e.Access):
			return fmt.Errorf("%s.access: %q must be anonymous, signed_in or product_profile:<name>", m, *e.Access)
		}
		title := ""
		if e.Title != nil {
			title = strings.TrimSpace(*e.Title)
		}
		out = append(out, query.TreeConfig{Name: *e.Name, Title: title, Description: strings.TrimSpace(e.Description), Access: *e.Access})
	}
	t.List = out
	return nil
}

// oneLine checks a tree's title or description, where given: one line of
// at most max characters, with no character schemas.CheckOneLine
// refuses.
func oneLine(member string, s *string, max int) error {
	if s == nil {
		return nil
	}
	if err := schemas.CheckOneLine(*s); err != nil {
		return fmt.Errorf("%s: %w", member, err)
	}
	switch {
	case utf8.RuneCountInString(*s) > max:
		return fmt.Errorf("%s: is %d characters long, more than the bound of %d; shorten it", member, utf8.RuneCountInString(*s), max)
	}
	return nil
}

func sortedNames(m map[string]query.Access) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// How a server serves the trees a version holds that its configuration
// does not list (treeMode).
const (
	// listedOnly: the configuration's trees member lists the trees
	// served; another is served to no one.
	listedOnly = iota
	// serveAll: no trees member, on a local transport: every tree of the
	// served version is served, an unlisted one to anonymous callers.
	serveAll
	// contractOnly: no trees member, on an address other callers reach:
	// the contract's trees alone; another is served to no one.
	contractOnly
)

// treeMode says how a server of cfg serves the trees its configuration
// does not list: local says its transport reaches only callers on this
// host (stdio, or a loopback address no proxy forwards to).
func treeMode(cfg Config, local bool) int {
	switch {
	case cfg.Trees.Configured():
		return listedOnly
	case local:
		return serveAll
	}
	return contractOnly
}

// localAddr reports whether a server listening on cfg.Addr reaches only
// callers on this host: a loopback address, with no allowed_hosts (a
// proxy on this host forwarding other hosts' requests).
func localAddr(cfg Config) bool {
	return loopbackName(cfg.Addr) && len(cfg.AllowedHosts) == 0
}

// warnUnservedTrees logs, for a version about to be served, each tree it
// holds that is served to no one, and (at info level, where a trees
// member lists them) each listed tree it lacks, which no list offers:
// what an operator who meant to serve them changes. A server serving
// every tree (serveAll) logs neither.
func warnUnservedTrees(log *slog.Logger, trees Trees, mode int, v *store.Version) {
	if mode == serveAll {
		return
	}
	configured := trees.Names()
	held := v.TreeNames()
	for _, n := range held {
		if slices.Contains(configured, n) {
			continue
		}
		if mode == contractOnly {
			log.Warn("a tree of the version is not served, to anyone: the configuration has no trees member, and a server on a non-loopback address (or with allowed_hosts) serves no tree it does not list; add a trees member listing it, with its access, to serve it",
				"version", v.Name(), "tree", n)
			continue
		}
		log.Warn("a tree of the version is not served: the configuration's trees member does not name it; add it to trees, with its access, to serve it",
			"version", v.Name(), "tree", n)
	}
	if mode != listedOnly {
		return
	}
	for _, n := range configured {
		if !slices.Contains(held, n) {
			log.Info("a configured tree is not in the version: no list offers it, and reading it answers context_unavailable; ingest it, or remove it from trees",
				"version", v.Name(), "tree", n)
		}
	}
}

// warmWarning returns warm, run after warnUnservedTrees on each version
// before it is served.
func warmWarning(log *slog.Logger, trees Trees, mode int, warm store.WarmFunc) store.WarmFunc {
	return func(ctx context.Context, v *store.Version) error {
		warnUnservedTrees(log, trees, mode, v)
		return warm(ctx, v)
	}
}

// logServedTrees says once, as a server starts, which trees it serves and
// to whom: those of the served version now, and what it does with a tree
// a later version adds.
func logServedTrees(log *slog.Logger, mode int, reader *query.Reader) {
	version, served := reader.Served()
	var list []string
	for _, t := range served {
		list = append(list, t.Name+" ("+whom(t.Access)+")")
	}
	trees := strings.Join(list, ", ")
	switch {
	case version == "":
		trees = "none yet: no version is served"
	case trees == "":
		trees = "none: the served version holds no tree served"
	}
	var msg string
	switch mode {
	case serveAll:
		msg = "serving every tree of the served version, the contract's (cloud, blueprint, tzdocs) at their default access and any other to anonymous callers, titled by its generator's name: the configuration has no trees member and the transport is local (stdio, or a loopback address); the trees served follow the served version"
	case contractOnly:
		msg = "serving the contract's trees (cloud, blueprint, tzdocs) alone: the configuration has no trees member and the address is not loopback (or allowed_hosts is set), so a tree it does not list is served to no one; list the trees to serve in trees"
	default:
		msg = "serving the trees the configuration's trees member lists, to the callers their access allows"
	}
	log.Info(msg, "version", version, "trees", trees)
}

// whom says who may read a tree of access a.
func whom(a query.Access) string {
	switch {
	case a == "" || a == "anonymous":
		return "anonymous callers"
	case a == "signed_in":
		return "signed-in callers"
	}
	return "callers holding product profile " + strings.TrimPrefix(string(a), "product_profile:")
}
