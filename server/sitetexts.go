package server

import (
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// siteTexts are the served texts of the version served now
// (plane.Texts): the overview, guides, skills, prompts, reference pages
// and the tools' descriptions, filled for the trees the version's texts
// name and the site's name. They are computed once per version, on the
// first request that reads them after an activation, and held for the
// version served alone. The reader lists and reads its contract-set
// entries from them (query.ContractSet); MCP's tools, prompts and
// instructions read them (mcp.Texts).
type siteTexts struct {
	// name is the configured site.name; "" or the contract's name
	// derives it from the trees named (schemas.NameOf).
	name       string
	configured []query.TreeConfig
	// serveAll names the served version's unlisted trees too
	// (namedIn).
	serveAll bool
	versions query.Versions
	log      *slog.Logger
	mu       sync.Mutex // held while texts are computed
	cur      atomic.Pointer[versionTexts]
	// next are the texts of the version warmed last (warm), which a
	// request takes once that version is served, so none pays for them.
	next *versionTexts
}

// versionTexts are the texts of one version, by its name ("" for none
// served), and the key of the site they were filled for.
type versionTexts struct {
	version, site string
	texts         *plane.Texts
}

var (
	_ query.ContractSet = (*siteTexts)(nil)
	_ mcp.Texts         = (*siteTexts)(nil)
)

// newSiteTexts returns the served texts of a server of cfg in tree
// mode mode over versions, computing those of the version served now: an
// error here (a site name the texts cannot carry) fails the start.
func newSiteTexts(cfg Config, mode int, versions query.Versions, log *slog.Logger) (*siteTexts, error) {
	s := &siteTexts{name: cfg.Site.Name, configured: cfg.Trees.List, serveAll: mode == serveAll, versions: versions, log: log}
	if s.name == schemas.DefaultSiteName {
		s.name = ""
	}
	if _, err := s.compute(); err != nil {
		return nil, err
	}
	return s, nil
}

// texts returns the texts of the version served now. Where they cannot be
// computed, the last ones are served and the fault logged.
func (s *siteTexts) texts() *plane.Texts {
	t, err := s.compute()
	if err != nil {
		s.log.Error("the served texts of the version", "error", err.Error())
	}
	return t
}

// compute returns the texts of the version served now, computing them
// where the version is not the one they were last computed for; where
// they cannot be, the last ones and the error.
func (s *siteTexts) compute() (*plane.Texts, error) {
	v, err := s.versions.Acquire()
	if err != nil {
		v = nil
	} else {
		defer v.Release()
	}
	name := ""
	if v != nil {
		name = v.Name()
	}
	if c := s.cur.Load(); c != nil && c.version == name {
		return c.texts, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.cur.Load()
	if last != nil && last.version == name {
		return last.texts, nil
	}
	if n := s.next; n != nil && n.version == name && name != "" {
		s.cur.Store(n)
		s.next = nil
		return n.texts, nil
	}
	vt, err := s.textsOf(v, name, last)
	if err != nil {
		if last != nil {
			return last.texts, err
		}
		return nil, err
	}
	s.cur.Store(vt)
	return vt.texts, nil
}

// textsOf returns the texts of v, named name ("" and nil for none
// served), those of last where they were filled for the same site.
func (s *siteTexts) textsOf(v query.Version, name string, last *versionTexts) (*versionTexts, error) {
	site := s.siteOf(v)
	key, _ := json.Marshal(site)
	if last != nil && last.site == string(key) {
		return &versionTexts{version: name, site: last.site, texts: last.texts}, nil
	}
	t, err := plane.TextsOf(site)
	if err != nil {
		return nil, err
	}
	return &versionTexts{version: name, site: string(key), texts: t}, nil
}

// warm computes the texts of v, a version about to be served, so the
// first request after its activation reads them computed: it runs with
// the store's warming of each version (store.SetWarm). A fault is logged,
// and the texts are then computed on the first request.
func (s *siteTexts) warm(v query.Version) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vt, err := s.textsOf(v, v.Name(), s.cur.Load())
	if err != nil {
		s.log.Error("the served texts of the version", "version", v.Name(), "error", err.Error())
		return
	}
	s.next = vt
}

// siteOf returns what the texts say of the site while v (nil for none)
// is served: the trees they name (namedIn), each titled and with an
// example route from v (query.SiteOf), and the site's name, the
// configured one, else one derived from those trees (schemas.NameOf).
func (s *siteTexts) siteOf(v query.Version) schemas.Site {
	named := s.configured
	if s.serveAll {
		named = namedIn(s.configured, v)
	}
	var versions query.Versions
	if v != nil {
		versions = heldVersion{v}
	}
	site := query.SiteOf(s.name, named, versions)
	if site.Name == "" {
		site.Name = schemas.NameOf(site.Trees)
	}
	return site
}

// heldVersion hands out one version the caller holds a reference to, for
// query.SiteOf, whose release of it is no release.
type heldVersion struct{ v query.Version }

func (h heldVersion) Acquire() (query.Version, error) { return unreleased{h.v}, nil }

type unreleased struct{ query.Version }

func (unreleased) Release() {}

// Items implements query.ContractSet: the entries of the texts served now.
func (s *siteTexts) Items() []tzctx.CatalogItem { return s.texts().Catalog.Items() }

// Item implements query.ContractSet.
func (s *siteTexts) Item(id string) (tzctx.CatalogItem, bool) { return s.texts().Catalog.Item(id) }

// SiteName is the site's public name in the texts served now, which the
// reader's own sentences (a rule code's preface) name.
func (s *siteTexts) SiteName() string { return s.texts().Site.Name }

// SiteTexts implements mcp.Texts.
func (s *siteTexts) SiteTexts() mcp.SiteTexts {
	t := s.texts()
	return mcp.SiteTexts{Site: t.Site, Actions: t.Contract, Items: t.Catalog.Items()}
}

// namedIn returns the trees a server that serves every tree of the
// served version (serveAll) names in its texts while v (nil for none) is
// served. Where v holds no tree the configuration does not list, the
// texts name the configured trees, as without serveAll (the contract's
// words, for the contract's trees). Else they name the configured trees
// anonymous callers read that v holds, then its others (read by anonymous
// callers, titled by the version). A tree only some callers may read is
// never named in these texts, held or not: they are the same for every
// caller, so naming it where it is held would tell a caller who may not
// read it that it exists. Where no version is served, the configured
// trees are named. The per-caller answers (the MCP instructions, tool
// schemas, refusals) name the caller's own.
func namedIn(configured []query.TreeConfig, v query.Version) []query.TreeConfig {
	if v == nil {
		return configured
	}
	named := map[string]bool{}
	for _, t := range configured {
		named[t.Name] = true
	}
	var others []query.TreeConfig
	for _, n := range v.TreeNames() {
		if !named[n] {
			others = append(others, query.TreeConfig{Name: n, Access: "anonymous"})
		}
	}
	if len(others) == 0 {
		return configured
	}
	var out []query.TreeConfig
	for _, t := range configured {
		if t.Access == "anonymous" && v.Tree(t.Name) != nil {
			out = append(out, t)
		}
	}
	return append(out, others...)
}
