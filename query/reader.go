package query

import (
	"context"
	"errors"
	"sync"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Versions hands out the served version. FromStore adapts a *store.Store;
// another storage layout implements it, and the interfaces below, alone.
type Versions interface {
	// Acquire returns the served version with a reference the caller
	// releases, or an error that is ErrNoVersion where none is served.
	Acquire() (Version, error)
}

// ErrNoVersion is what Versions.Acquire returns, or wraps, where no
// version is served yet.
var ErrNoVersion = errors.New("no active version")

// Version is one served, immutable version of the site, as the reader
// reads it: its trees, and the n-gram candidates its search starts from.
// Page ordinals number the pages of every tree in the version's storage
// order (tzctx.SortTrees), then manifest order, from 0 to PageCount()-1.
type Version interface {
	// Name returns the version's name.
	Name() string
	// Release drops the reference Acquire handed out.
	Release()
	// Tree returns the named tree, or nil where the version lacks it.
	Tree(name string) Tree
	// TreeNames returns the names of the version's trees in the order
	// their page ordinals follow.
	TreeNames() []string
	// PageCount returns the number of pages across the version's trees.
	PageCount() int
	// Candidates sets, in set (one bit per page ordinal, len(set) words of
	// 64), the bit of every page whose n-grams (grams.Lookup) in field
	// include gram. A set page may lack the word the n-gram came from;
	// an unset page lacks it.
	Candidates(ctx context.Context, field Field, gram string, set []uint64) error
	// Memo returns what f computes of this version for key, computing
	// it once per version, so that what the reader derives of a version
	// lives and dies with it. f is handed the version, so that a
	// function value that captures nothing serves, and a call allocates
	// nothing once the value is computed.
	Memo(key any, f func(Version) (any, error)) (any, error)
}

// Field is the part of a page whose n-grams Version.Candidates reads.
type Field int

// The fields of a page's n-grams.
const (
	FieldAll      Field = iota // the title and the copy
	FieldTitle                 // the title
	FieldHeadings              // the headings' texts
)

// Tree is one tree of a version: its manifest, its texts, and what search
// and page reads need of each page.
type Tree interface {
	// Title returns the tree's title, "" where its navigation names none.
	Title() string
	// Pages returns the manifest's pages in manifest order; the caller
	// does not change it.
	Pages() []tzctx.Page
	// First returns the ordinal of the tree's first page.
	First() int
	// PageIndex returns the manifest position of the page with the given
	// route, or -1.
	PageIndex(route string) int
	// Text returns the text under key ("index", "full", "outline" or a
	// page route), or nil and no error where the version lacks it.
	Text(key string) (Text, error)
	// Headings returns the headings of the page with the given route.
	Headings(route string) ([]tzctx.Heading, error)
	// SearchBody returns what search matches a page's lower-cased words
	// against: the page's lower-cased copy, or, with fold true, a copy
	// whose ASCII letters lower-cased are that copy. It keeps the copy's
	// line ends where they are, and returns nil where the page is absent.
	SearchBody(route string) (body []byte, fold bool)
}

// Text is one stored text: its places (textmap.Layout), its stamp, and
// its bytes, which the caller does not change.
type Text interface {
	textmap.Layout
	// Stamp returns the SHA-256 of the text, in hex.
	Stamp() string
	// Slice returns the code points [begin, end) of the text.
	Slice(begin, end int) string
	// Bytes returns the text's UTF-8 bytes.
	Bytes() []byte
}

// Reader answers documentation reads from the served version.
type Reader struct {
	cfg      Config
	versions Versions
	// base holds the configured trees; with cfg.ServeAll, each served
	// version adds its own (setOf).
	base *treeSet
	// scanned holds, per contract-set entry ID, its stamp and plain place
	// table, computed on the first read of its text: the keys are the
	// catalog's own IDs, each holding the text it was computed for, so a
	// text that follows the served version is scanned again once.
	scanned sync.Map // string -> *scannedText
}

// NewReader returns a Reader over versions.
//
// cfg.Trees is taken as given: the server's configuration loader checks
// it (names per tzctx.CheckTreeName, none twice, at most tzctx.MaxTrees).
func NewReader(cfg Config, versions Versions) *Reader {
	if cfg.Trees == nil {
		if cfg.Access == nil {
			cfg.Access = DefaultAccess()
		}
		for _, t := range tzctx.DefaultTrees {
			cfg.Trees = append(cfg.Trees, TreeConfig{Name: t, Access: cfg.Access[t]})
		}
	} else {
		cfg.Trees = append([]TreeConfig(nil), cfg.Trees...)
	}
	// Access names every configured tree, one left unset anonymous, so
	// the holder check over it (AccessHolder) grants each as configured.
	for i, t := range cfg.Trees {
		if t.Access == "" {
			cfg.Trees[i].Access = "anonymous"
		}
	}
	base := newTreeSet(cfg.Trees)
	cfg.Access = base.access
	return &Reader{cfg: cfg, versions: versions, base: base}
}

// treeSet is a set of served trees: their names in order, each tree's
// configuration, and the access map over them.
type treeSet struct {
	list   []TreeConfig
	names  []string
	trees  map[string]TreeConfig
	access map[string]Access
}

func newTreeSet(list []TreeConfig) *treeSet {
	s := &treeSet{list: list, trees: make(map[string]TreeConfig, len(list)), access: make(map[string]Access, len(list))}
	for _, t := range list {
		s.names = append(s.names, t.Name)
		s.trees[t.Name] = t
		s.access[t.Name] = t.Access
	}
	return s
}

// servedSetKey memoises, per version, the trees a ServeAll reader
// serves of it.
type servedSetKey struct{ r *Reader }

// setOf returns the trees r serves while v is served: the configured
// ones, then, with ServeAll, each other tree v holds, in v's order, read
// by anyone and titled by v's title of it (cleaned: one line, at most
// MaxTreeTitle characters), else by its name.
func (r *Reader) setOf(v Version) *treeSet {
	if !r.cfg.ServeAll || v == nil {
		return r.base
	}
	s, err := v.Memo(servedSetKey{r}, func(v Version) (any, error) {
		list := r.base.list
		for _, n := range v.TreeNames() {
			if _, ok := r.base.trees[n]; ok {
				continue
			}
			title := ""
			if t := v.Tree(n); t != nil {
				title = schemas.CleanOneLine(t.Title(), MaxTreeTitle)
			}
			if title == "" {
				title = n
			}
			list = append(list[:len(list):len(list)], TreeConfig{Name: n, Title: title, Access: "anonymous"})
		}
		if len(list) == len(r.base.list) {
			return r.base, nil
		}
		return newTreeSet(list), nil
	})
	if err != nil {
		return r.base
	}
	return s.(*treeSet)
}

// set returns the trees r serves now: setOf the served version, the
// configured ones where none is served.
func (r *Reader) set() *treeSet {
	if !r.cfg.ServeAll {
		return r.base
	}
	v, err := r.versions.Acquire()
	if err != nil {
		return r.base
	}
	defer v.Release()
	return r.setOf(v)
}

// Config returns the reader's configuration.
func (r *Reader) Config() Config { return r.cfg }

// acquire returns the served version, or context_unavailable.
func (r *Reader) acquire() (Version, error) {
	v, err := r.versions.Acquire()
	if errors.Is(err, ErrNoVersion) {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "no site version is served yet; an operator ingests and activates one")
	}
	return v, err
}

// treeText loads one stored text, or context_unavailable; readable
// are the trees the caller may read, which a refusal names where v
// holds them.
func treeText(v Version, tree, key, what string, readable []string) (Tree, Text, error) {
	t := v.Tree(tree)
	if t == nil {
		return nil, nil, noTree(v, tree, readable)
	}
	txt, err := t.Text(key)
	if err != nil {
		return nil, nil, err
	}
	if txt == nil {
		return nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the %s of the %s tree", what, tree)
	}
	return t, txt, nil
}

// noTree is the refusal of a tree the served version lacks: still
// context_unavailable, its detail naming the trees of readable
// that v holds, which can be read instead.
func noTree(v Version, tree string, readable []string) error {
	return tzctx.Errorf(tzctx.ContextUnavailable, "the served site version has no %s tree; this connection may read %s", tree, readableList(heldOf(v, readable)))
}

// partWhat names a tree's part for an error detail.
func partWhat(part string) string {
	switch part {
	case PartFull:
		return "whole text"
	case PartOutline:
		return "outline"
	}
	return "index"
}
