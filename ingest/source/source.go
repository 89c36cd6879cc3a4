// Package source turns a documentation folder into a tree: its pages in
// navigation order, the file each page is read from, the site's name and
// its redirects. Each documentation generator's folder layout is one
// Source; ingest and tzctx check read every folder through this seam, so a
// new format is a new Source, not an edit in the middle of ingest.
//
// Mintlify, a folder holding docs.json, is the first Source; Formats
// lists them all in the order Detect tries them.
package source

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Source reads one documentation format.
type Source interface {
	// Format names the format, e.g. "mintlify".
	Format() string
	// Recognises reports whether the folder holds the format's marker
	// file (Mintlify's docs.json).
	Recognises(dir *sitefs.Folder) bool
	// Read reads the navigation of the open folder dir within the bounds
	// of opts. Every file it reads goes through dir. Its errors name the
	// file, the place in it and what to do.
	Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error)
}

// Options bound a Read. A zero field takes the format's default.
type Options struct {
	MaxFileBytes int64 // bytes of each navigation file
	MaxNodes     int   // navigation entries visited, folder entries listed included
	MaxDepth     int   // nesting of a navigation entry, and of folders walked
	// MaxModules bounds the modules a navigation module's relative
	// imports are read from, the module itself aside (jslit).
	MaxModules int
	// MaxPathBytes bounds the path of a page a navigation entry names (an
	// llms.txt link's, after its site's address) and of a file or folder
	// a walk lists, relative to the folder.
	MaxPathBytes int
	// DocsVersion names the version of a versioned site to read (a
	// Docusaurus site's versions.json entry, or "current" for its docs
	// folder); "" reads the version the site serves by default.
	DocsVersion string
}

// The defaults of Options for the formats of this package other than
// Mintlify (whose are manifest's, and the same).
const (
	DefaultMaxFileBytes = 16 << 20
	DefaultMaxNodes     = 1_000_000
	DefaultMaxDepth     = 64
	// DefaultMaxPathBytes is PATH_MAX: no longer path names a file.
	DefaultMaxPathBytes = 4096
)

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxPathBytes <= 0 {
		o.MaxPathBytes = DefaultMaxPathBytes
	}
	return o
}

// Error is a fault in a folder's navigation that a Source of this package
// found: the file (relative to the folder), the line where one applies,
// what is wrong and what to do.
type Error struct {
	File    string
	Line    int
	Problem string
	Fix     string
	// Err is the kind of fault where one is named (sitefs's, for a file
	// that could not be read), for errors.Is.
	Err error
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	s += ": " + e.Problem
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// Unwrap returns the kind of fault, if any.
func (e *Error) Unwrap() error { return e.Err }

// Tree is what a Source read from a folder.
type Tree struct {
	// Name is the site's name as its navigation gives it; "" where it
	// gives none.
	Name string
	// Pages are the pages in navigation order, each once.
	Pages []Page
	// Skipped counts the navigation entries that name no page file
	// (links, API operations and specifications), and Skips counts them
	// by kind; a reader counts each through skip.
	Skipped int
	Skips   map[SkipKind]int
	// Redirects are the site's redirects, in the order given.
	Redirects []Redirect
	// Navigation names the navigation file at the folder's root, relative
	// to it ("docs.json"), for errors about the navigation as a whole.
	Navigation string
	// HeadingTitles makes a page without a navigation label or front
	// matter title take its first level-1 heading as its title, as most
	// generators do; without it (Mintlify) the title is derived from the
	// page's path.
	HeadingTitles bool
	// Includes says which include forms the generator expands in the
	// pages, as ingest expands them (Expander); none where zero.
	Includes Includes
	// Warnings are what the reader could not follow and how it fell back
	// (a computed navigation read as the folder's default order), each
	// naming the file and line; ingest prints them and tzctx check
	// reports them.
	Warnings []string
	// DocsVersion says which version of a versioned site was read and
	// why ("3.3.3, the site's default (versions.json's first)"); "" for a
	// site without versions.
	DocsVersion string
	// Others are the folders of the site's other locales and versions,
	// which the site serves and the tree leaves out: a link into one
	// names no page of the tree but is no broken link, and tzctx check
	// does not report their files as unlisted.
	Others []Other
	// Root is the folder the pages are published from, relative to the
	// tree folder ("docs", "src"); "" for the tree folder, or where the
	// format gives none. Links written as absolute file paths resolve
	// from it.
	Root string
	// RouteBase is the path the site serves the pages under, which the
	// tree's base path replaces (Docusaurus's routeBasePath, default
	// "docs"), without surrounding slashes: a link to "/docs/x" names the
	// page x.
	RouteBase string
	// SiteBase is the path the whole site is deployed under (VitePress's
	// and Astro's base), without surrounding slashes; "" for the host's
	// root. A link written with it ("/vite/guide/" where base is
	// "/vite/") names the page without it.
	SiteBase string
	// Version is the version of a versioned site the tree is read at (a
	// Docusaurus version): its name and its Route below RouteBase ("" for
	// the version the site serves at RouteBase itself, "next" for
	// Docusaurus's current); zero for a site without versions.
	Version Other
}

// Other is a folder of another locale or version of a site: Folder
// relative to the tree folder, Route the route prefix its pages are
// served under, each without surrounding slashes. A version's Route is
// below the tree's RouteBase, and Version names it ("2.x", "current");
// a locale's Route is from the site's root, and Version is "".
type Other struct {
	Folder, Route string
	Version       string
	// Pages are the page paths of a version's folder ("guide/setup",
	// "guide/index", "index"), as its generator publishes them; nil where
	// they were not read (a locale, a version whose folder did not read),
	// so that a link into the version cannot be told broken.
	Pages []string
}

// SkipKind is a kind of navigation entry a reader skips, as ingest names
// it: "<n> <Entry or Entries> skipped (<Why>)", such as "1 sidebar link
// skipped (external URL)".
type SkipKind struct {
	// Entry and Entries name the entry in the navigation's own words,
	// one and several.
	Entry, Entries string
	// Why says why it names no page.
	Why string
}

// The kinds of skipped entries the readers count.
var (
	skipNavURL       = SkipKind{"nav link", "nav links", "external URL"}
	skipNavAbsolute  = SkipKind{"nav link", "nav links", "a site path, not a page file"}
	skipNavEmpty     = SkipKind{"nav entry", "nav entries", "no target"}
	skipNavNotPage   = SkipKind{"nav entry", "nav entries", "not a Markdown page"}
	skipSidebarURL   = SkipKind{"sidebar link", "sidebar links", "external URL"}
	skipSidebarLink  = SkipKind{"sidebar link", "sidebar links", "a link item, not a page"}
	skipSummaryDraft = SkipKind{"SUMMARY.md chapter", "SUMMARY.md chapters", "a draft, with no file"}
	skipSummaryURL   = SkipKind{"SUMMARY.md link", "SUMMARY.md links", "external URL"}
	skipSummaryOther = SkipKind{"SUMMARY.md link", "SUMMARY.md links", "not a Markdown page"}
	skipMetaSep      = SkipKind{"_meta entry", "_meta entries", "a separator"}
	skipMetaLink     = SkipKind{"_meta entry", "_meta entries", "a link"}
	skipMetaHidden   = SkipKind{"_meta entry", "_meta entries", "hidden"}
	skipMetaMissing  = SkipKind{"_meta entry", "_meta entries", "names no page or folder"}
	skipLLMSNoFile   = SkipKind{"llms.txt link", "llms.txt links", "names no file of the folder"}
)

// skip counts one skipped navigation entry of kind k.
func (t *Tree) skip(k SkipKind) { t.skipN(k, 1) }

// skipN counts n skipped navigation entries of kind k.
func (t *Tree) skipN(k SkipKind, n int) {
	t.Skipped += n
	if t.Skips == nil {
		t.Skips = map[SkipKind]int{}
	}
	t.Skips[k] += n
}

// SkipCount is a number of skipped entries of one kind.
type SkipCount struct {
	SkipKind
	N int
}

// String names the count as ingest prints it: "2 sidebar links skipped
// (external URL)".
func (c SkipCount) String() string {
	e := c.Entries
	if c.N == 1 {
		e = c.Entry
	}
	return fmt.Sprintf("%d %s skipped (%s)", c.N, e, c.Why)
}

// SkipCounts returns skips as counts, the most first, then by entry and
// reason, so a report reads the same each time.
func SkipCounts(skips map[SkipKind]int) []SkipCount {
	out := make([]SkipCount, 0, len(skips))
	for k, n := range skips {
		out = append(out, SkipCount{k, n})
	}
	slices.SortFunc(out, func(a, b SkipCount) int {
		return cmp.Or(b.N-a.N, strings.Compare(a.Entry, b.Entry), strings.Compare(a.Why, b.Why))
	})
	return out
}

// Page is one page of a tree's navigation.
type Page struct {
	// Path is the page's path below the tree's base path, without
	// extension ("guides/errors", "index").
	Path string
	// File is the file the page is read from, slash-separated and
	// relative to the folder; "" where no file of the page exists.
	File string
	// Tried names the files looked for where File is "" ("x.mdx or
	// x.md"), for the refusal.
	Tried string
	// ListedIn is the navigation file that lists the page, relative to
	// the folder, and Pointer the place of the entry in it (an RFC 6901
	// JSON pointer for a JSON file; "LINE" or "LINE:COL" for another).
	ListedIn string
	Pointer  string
	// Title is the page's label in the navigation; "" where the
	// navigation gives none (Mintlify's never does): the title is then
	// the page's front matter title, else as Tree.HeadingTitles says.
	Title string
	// Group is the path of navigation group labels the page is listed
	// under, outermost first; nil at the top level, and for a format whose
	// groups the outline does not show.
	Group []string
}

// Redirect sends a path of the site to another place; a source ending in
// a ":name*" wildcard carries the rest of the path to the destination's.
type Redirect struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

// Formats are the Sources in the order Detect tries them: the formats
// whose marker is a configuration file first, then Nextra's _meta files,
// then a folder of llms.txt, and last any folder of Markdown pages. A
// format is one line here.
var Formats = []Source{
	Mintlify{},
	MkDocs{},
	MdBook{},
	GitBook{},
	Docusaurus{},
	VitePress{},
	Starlight{},
	Nextra{},
	LLMSTxt{},
	Markdown{},
}

// Detect returns the Source of the folder: the first of Formats that
// recognises it, else Mintlify, whose Read then names the docs.json the
// folder lacks (a folder no format recognises holds no Markdown page).
func Detect(dir *sitefs.Folder) Source {
	for _, s := range Formats {
		if s.Recognises(dir) {
			return s
		}
	}
	return Mintlify{}
}

// Names lists the names of Formats, in order.
func Names() []string {
	out := make([]string, len(Formats))
	for i, s := range Formats {
		out[i] = s.Format()
	}
	return out
}

// ByName returns the Source named name (as --format gives it), or an
// error naming the formats there are.
func ByName(name string) (Source, error) {
	for _, s := range Formats {
		if s.Format() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("--format %q: no such format; name one of %s, or leave --format out to detect it", name, strings.Join(Names(), ", "))
}
