// Package ingest reads documentation trees from disk, checks them, derives
// what serving needs (copies, titles, headings, place tables, composed
// index, whole and outline texts, n-grams) and writes one immutable
// version through the store. It never serves.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// DefaultMaxPageBytes is the default bound on one page file's size.
const DefaultMaxPageBytes = 16 << 20

// DefaultMaxLLMSBytes is the default bound on a tree's llms.txt and on its
// llms-full.txt, each: the whole text of a large site fits many times.
const DefaultMaxLLMSBytes = 256 << 20

// ErrSameRoute, ErrControl and ErrSymlinkTree are faults of a site folder
// that ingest finds itself; an *Error wraps them. The faults of reading a
// file are sitefs's (sitefs.ErrOutside, sitefs.ErrNotRegular,
// sitefs.ErrTooLarge) and those of the manifest are manifest's.
var (
	// ErrSameRoute: two page paths of one manifest name the same route.
	ErrSameRoute = errors.New("two page paths name one route")
	// ErrControl: a page copy or llms text holds a control character.
	ErrControl = errors.New("a control character in a text")
	// ErrSymlinkTree: a site folder's tree folder is a symbolic link that
	// does not resolve to a folder inside the site folder.
	ErrSymlinkTree = errors.New("a tree folder links out of the site folder")
)

// TreeSource names one documentation folder to ingest as a tree.
type TreeSource struct {
	Name string
	Dir  string
	// Format names the folder's format (source.ByName); "" detects it
	// (source.Detect).
	Format string
	// DocsVersion names the version of a versioned site to read
	// (source.Options.DocsVersion); "" reads the site's default.
	DocsVersion string
}

// Options configure one ingest.
type Options struct {
	// Trees are the folders to ingest, in any order; tree order is fixed.
	Trees []TreeSource
	// Version names the new version; empty derives the date and digest.
	Version string
	// MaxPageBytes bounds one page file; 0 means DefaultMaxPageBytes.
	MaxPageBytes int64
	// MaxManifestBytes bounds docs.json and each $ref file; 0 means
	// manifest.DefaultMaxFileBytes.
	MaxManifestBytes int64
	// MaxLLMSBytes bounds llms.txt and llms-full.txt, each; 0 means
	// DefaultMaxLLMSBytes.
	MaxLLMSBytes int64
	// MaxNavNodes bounds the navigation values the manifest walk visits
	// after $ref resolution; 0 means manifest.DefaultMaxNodes.
	MaxNavNodes int
	// MaxNavDepth bounds the nesting of the navigation; 0 means
	// manifest.DefaultMaxDepth.
	MaxNavDepth int
	// MaxNavModules bounds the modules a navigation module's relative
	// imports are read from (VitePress, Docusaurus, Starlight); 0 means
	// jslit.DefaultMaxModules.
	MaxNavModules int
	// MaxWarnings bounds the warnings of one kind a tree's reader's list
	// keeps; 0 means source.DefaultMaxWarnings.
	MaxWarnings int
	// MaxPathBytes bounds the path of a page a navigation names (an
	// llms.txt link's) and of a file or folder a walk lists; 0 means
	// source.DefaultMaxPathBytes.
	MaxPathBytes int
	// MaxIncludeDepth bounds the nesting of a page's includes (its own
	// directives are level 1); 0 means source.DefaultMaxIncludeDepth.
	MaxIncludeDepth int
	// MaxIncludeBytes bounds the bytes one page's includes may pull in,
	// each inclusion counting the whole file it names; 0 means
	// source.DefaultMaxIncludeBytes.
	MaxIncludeBytes int64
	// MaxVersionIncludeBytes bounds the same over every page of the
	// version; 0 means source.DefaultMaxVersionIncludeBytes.
	MaxVersionIncludeBytes int64
	// MintlifySnippets says what ingest does with a Mintlify page's
	// snippets: MintlifySnippetsKeep ("" too) serves the imports and tags
	// as written; MintlifySnippetsExpand serves what Mintlify renders.
	MintlifySnippets string
	// included counts the bytes the version's includes pulled in so far
	// (prepare sets it; every tree of the version shares it).
	included *int64
	// Library is the library folder to publish with the trees
	// (SiteLibrary finds a site folder's); "" publishes none.
	Library string
	// MaxLibraryFiles bounds the files of one library entry; 0 means
	// DefaultMaxLibraryFiles.
	MaxLibraryFiles int
	// MaxLibraryFileBytes bounds one library file and library.json; 0
	// means DefaultMaxLibraryFileBytes.
	MaxLibraryFileBytes int64
	// MaxLibraryBytes bounds the library's files together; 0 means
	// DefaultMaxLibraryBytes.
	MaxLibraryBytes int64
	// MaxLibraryJSONDepth bounds the nesting of a library JSON file; 0
	// means DefaultMaxLibraryJSONDepth.
	MaxLibraryJSONDepth int
	// IndexWorkers is how many builders build the search index at once
	// (store.BuildOptions); 0 means store.DefaultIndexWorkers.
	IndexWorkers int
	// SectionsHeld is about the most bytes of search_documentation's
	// section postings held in memory (store.BuildOptions); 0 means
	// store.DefaultSectionsHeld.
	SectionsHeld int64
	// Base names the version the new one is built on (ActiveBase for
	// the served one): its trees that are neither in Trees nor in
	// DropTrees are carried from its stored pages, their folders never
	// read, and its library is carried unless Library is given. "" builds
	// the version of Trees alone.
	Base string
	// DropTrees are trees of Base the new version leaves out.
	DropTrees []string
	// CodeNames are names no library file may hold (CTX-08).
	CodeNames []string
	// Progress, if set, is called after each page is written.
	Progress func(Progress)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Progress reports how far an ingest has come.
type Progress struct {
	Pages, TotalPages int
	// Bytes counts the bytes of the copies of the pages written so far.
	Bytes int64
}

// Summary reports a finished ingest.
type Summary struct {
	Version string
	// Existing is set where identical content was stored already, as the
	// version Version; nothing new was written.
	Existing bool
	Trees    []store.TreeMeta
	// Read says, for each of Trees in its order, what ingest read of
	// it beside its counts.
	Read     []TreeRead
	Pages    int
	Bytes    int64
	Headings int
	Skipped  int
	Seconds  float64
	// Warnings are what the trees' readers could not follow and how they
	// fell back, each prefixed with its tree's name.
	Warnings []string
	// DocsVersions says, for each tree read from a versioned site, which
	// version was read and why (source.Tree.DocsVersion).
	DocsVersions map[string]string
	// Reused counts the pages whose search index documents were taken
	// from the base as it holds them rather than derived again.
	Reused int
	// ReusedSections counts the pages whose sections of the section index
	// were taken from the base rather than derived again.
	ReusedSections int
}

// count adds a tree's counts to the summary's totals.
func (s *Summary) count(t store.TreeMeta) {
	s.Pages += t.Pages
	s.Bytes += t.Bytes
	s.Headings += t.Headings
	s.Skipped += t.Skipped
}

// TreeRead is what ingest read of one tree beside its counts: the
// format detected (or given), the title it stored (its generator's name
// for it, cleaned, else one derived from the tree's name), and its
// skipped navigation entries by kind.
type TreeRead struct {
	Format string
	Title  string
	Skips  []source.SkipCount
	// Base is the version the tree was carried from, its folder not
	// read; "" for a tree read anew.
	Base string
	// Expanded counts the include directives ingest expanded in the
	// tree's pages, nested ones included; Left those it left as written
	// for a fault, each named by a warning (source.Expander).
	Expanded, Left int
}

// Error is a fault in a site folder: the file, where one applies the JSON
// pointer of the manifest entry, what is wrong and what to do.
type Error struct {
	File    string
	Pointer string
	// Line is the 1-based line of File at fault, where the fault is in a
	// text (an invalid byte, a control character); 0 otherwise. The
	// Problem names it too.
	Line    int
	Problem string
	Fix     string
	// Err is the kind of fault where one is named (ErrSameRoute,
	// ErrControl, ErrSymlinkTree, or sitefs's), for errors.Is.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Pointer != "" && e.Pointer[0] >= '0' && e.Pointer[0] <= '9' {
		b.WriteString(" (listed at line ")
		b.WriteString(e.Pointer)
		b.WriteString(")")
	} else if e.Pointer != "" {
		b.WriteString(" (listed at ")
		b.WriteString(e.Pointer)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Unwrap returns the kind of fault, if any.
func (e *Error) Unwrap() error { return e.Err }

// SiteTrees lists the tree folders of a site folder. Every folder in it
// must carry a valid tree name (tzctx.CheckTreeName), such as cloud or
// mcp; hidden entries are ignored, and
// so are files. A symbolic link to a folder inside the site folder is a
// tree folder like any other; a link to a folder outside it, or one that
// leads nowhere, is refused, naming the link and its target (give such a
// folder with --tree NAME=DIR).
func SiteTrees(site string) ([]TreeSource, error) {
	ents, err := os.ReadDir(site)
	if err != nil {
		return nil, &Error{File: site, Problem: "cannot read the site folder: " + tzctx.FaultText(err), Fix: "name a folder holding tree folders, such as cloud/ or mcp/"}
	}
	// A tree folder given as the site folder would have its own folders
	// (guides/, images/) taken for trees, now that any valid name is a
	// tree's: it is refused first, with the way to ingest it.
	for _, e := range ents {
		if !e.IsDir() && (e.Name() == "docs.json" || e.Name() == "mint.json") {
			return nil, &Error{File: site, Problem: fmt.Sprintf("the folder holds %s, so it is a tree folder, not a site folder of tree folders", e.Name()),
				Fix: fmt.Sprintf("ingest it with --tree NAME=%s, or give the folder that holds it", site)}
		}
	}
	var out []TreeSource
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == LibraryFolder {
			continue
		}
		dir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if dir, err = linkedFolder(site, e.Name()); err != nil {
				return nil, err
			}
		}
		if !dir {
			continue
		}
		if err := tzctx.CheckTreeName(e.Name()); err != nil {
			return nil, &Error{File: filepath.Join(site, e.Name()), Problem: "folder " + err.Error(), Fix: "a tree folder is named with lower-case letters, digits and hyphens, starting with a letter (such as cloud, blueprint or tzdocs); rename it, or move it out of the site folder"}
		}
		out = append(out, TreeSource{Name: e.Name(), Dir: filepath.Join(site, e.Name())})
	}
	if len(out) == 0 {
		return nil, &Error{File: site, Problem: "the site folder holds no tree folder", Fix: "add tree folders, such as cloud/, blueprint/ or tzdocs/, each with a docs.json"}
	}
	return out, nil
}

// linkedFolder reports whether the symbolic link name in site leads to a
// folder; it refuses a link to a folder outside site and a link that leads
// nowhere.
func linkedFolder(site, name string) (bool, error) {
	link := filepath.Join(site, name)
	target, _ := os.Readlink(link)
	fi, err := os.Stat(link)
	if err != nil {
		return false, &Error{File: link, Problem: fmt.Sprintf("%s is a symbolic link to %s, which cannot be followed (%s)", name, target, tzctx.FaultText(err)),
			Fix: "remove the link, or make it point to a tree folder inside the site folder", Err: ErrSymlinkTree}
	}
	if !fi.IsDir() {
		return false, nil
	}
	realSite, err1 := filepath.EvalSymlinks(site)
	resolved, err2 := filepath.EvalSymlinks(link)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(realSite, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "." {
			return true, nil
		}
	}
	return false, &Error{File: link, Problem: fmt.Sprintf("tree folder %s is a symbolic link to %s, outside the site folder %s", name, target, site),
		Fix: fmt.Sprintf("ingest that folder with --tree %s=%s, or move it into the site folder", name, target), Err: ErrSymlinkTree}
}

// loadedPage is one page read and checked, ready to store.
type loadedPage struct {
	tzctx.Page
	copy     string
	scan     *textmap.Map
	headings []tzctx.Heading
	// file is the page's file, slash-separated, relative to the tree
	// folder; copyLine is the file's line on which the copy begins, after
	// a byte order mark and front matter.
	file     string
	copyLine int
	// lines maps each line of copy to the line of the copy as written
	// (lineMap), which begins on the file's line writtenLine; nil where
	// includes and cleaning changed nothing.
	lines       []int32
	writtenLine int
	// group is the path of navigation group labels the page is listed
	// under (source.Page.Group).
	group []string
}

// loadedTree is one tree read and checked.
type loadedTree struct {
	name, title          string
	dir                  string // the tree folder as given
	pages                []loadedPage
	index, full, outline string
	// composed is set where the tree has no llms-full.txt: its whole
	// text is composed of its pages.
	composed bool
	skipped  int
	// skips counts skipped by kind (source.Tree.Skips).
	skips    map[source.SkipKind]int
	bytes    int64
	headings int
	// redirects are the site's redirects, as its Source read them.
	redirects []source.Redirect
	// headingTitles and warnings are the Source's (source.Tree).
	headingTitles bool
	warnings      []string
	// format and navigation are the Source's name and the navigation
	// file it read ("" for a folder without one).
	format, navigation string
	// docsVersion is the Source's DocsVersion.
	docsVersion string
	// others are the folders of the site's other locales and versions
	// (source.Tree.Others).
	others []source.Other
	// site is what the link resolver needs of the site besides its pages.
	site siteFacts
	// links, where set, rewrites the links of each page as it is read
	// (Run); checkLinks is the resolver of the pages as written, for
	// tzctx check (Check).
	links, checkLinks *Resolver
	// includes are the include forms its pages use (source.Tree);
	// expanded counts the directives ingest expanded in them and left
	// those it left as written for a fault.
	includes       source.Includes
	expanded, left int
}

// Report is what Check found in a site's trees: every tree as ingest
// would store it, for a linter to read.
type Report struct {
	Trees []TreeReport
}

// TreeReport is one tree Check read.
type TreeReport struct {
	Name string
	// Dir is the tree folder as given.
	Dir   string
	Title string
	Pages []PageReport
	// Skipped counts the manifest entries that name no page file (links,
	// OpenAPI operations and specifications).
	Skipped int
	// Redirects are the site's redirects, as its Source read them.
	Redirects []source.Redirect
	// Format names the folder's format ("mintlify", "mkdocs", …) and
	// Navigation the navigation file relative to the folder ("" where the
	// folder's order is the navigation).
	Format, Navigation string
	// Warnings are what the reader could not follow and how it fell back.
	Warnings []string
	// Links resolves the pages' links as the tree's generator does, and
	// as ingest rewrites them; nil for a format whose links are served as
	// written (Mintlify).
	Links *Resolver
	// Others are the folders of the site's other locales and versions.
	Others []source.Other
	// keys maps each page's link key (linkKey) to its index in Pages.
	keys map[string]int
}

// PageReport is one page of a tree as Check read it.
type PageReport struct {
	tzctx.Page
	// File is the page's file, slash-separated, relative to the tree folder.
	File string
	// Copy is the page's copy: the file less a byte order mark and front
	// matter.
	Copy string
	// CopyLine is the 1-based line of File on which Copy begins.
	CopyLine int
	// lines and writtenLine map Copy's lines to File's where includes or
	// cleaning changed them (Line).
	lines       []int32
	writtenLine int
	// Scan is the copy's layout: line starts, fences, HTML comments and
	// every ATX heading outside fenced code, of any depth.
	Scan *textmap.Map
}

// Line returns the 1-based line of File that the 1-based line l of Copy
// comes from: after an include, the directive's line, not the line of
// the expanded text.
func (p *PageReport) Line(l int) int {
	if p.lines == nil || l < 1 || l > len(p.lines) {
		return p.CopyLine + l - 1
	}
	return p.writtenLine + int(p.lines[l-1])
}

// Lookup returns the page of the tree a link target names, matched as the
// outline matches index lines to pages: with or without the tree's base
// path, a .md or .mdx suffix, a fragment, a query, surrounding slashes or
// percent-encoding; "index" names a folder's home page. A relative target
// must be resolved against the linking page first.
func (t *TreeReport) Lookup(target string) (*PageReport, bool) {
	i, ok := t.keys[linkKey(t.Name, target)]
	if !ok {
		return nil, false
	}
	return &t.Pages[i], true
}

// Check reads and checks the trees of opts as Run does, every check
// included, and returns what it read, writing nothing. Its errors are
// Run's.
func Check(ctx context.Context, opts Options) (*Report, error) {
	trees, err := load(ctx, &opts)
	if err != nil {
		return nil, err
	}
	if opts.Library != "" {
		if _, err := readLibrary(ctx, opts.Library, opts); err != nil {
			return nil, err
		}
	}
	r := &Report{}
	for _, t := range trees {
		tr := TreeReport{Name: t.name, Dir: t.dir, Title: t.title, Skipped: t.skipped, Redirects: t.redirects, Format: t.format, Navigation: t.navigation, Warnings: t.warnings, Links: t.checkLinks, Others: t.others, keys: map[string]int{}}
		for j, p := range t.pages {
			tr.Pages = append(tr.Pages, PageReport{Page: p.Page, File: p.file, Copy: p.copy, CopyLine: p.copyLine, Scan: p.scan, lines: p.lines, writtenLine: p.writtenLine})
			tr.keys[linkKey(t.name, p.Route)] = j
		}
		r.Trees = append(r.Trees, tr)
	}
	return r, nil
}

// load applies the defaults of opts and reads and checks its trees, in
// tree order.
func load(ctx context.Context, opts *Options) ([]*loadedTree, error) {
	if err := prepare(opts); err != nil {
		return nil, err
	}
	return loadTrees(ctx, *opts)
}

// prepare applies the defaults of opts and checks its version name.
func prepare(opts *Options) error {
	if opts.MaxPageBytes <= 0 {
		opts.MaxPageBytes = DefaultMaxPageBytes
	}
	if opts.MaxLLMSBytes <= 0 {
		opts.MaxLLMSBytes = DefaultMaxLLMSBytes
	}
	if opts.IndexWorkers <= 0 {
		opts.IndexWorkers = store.DefaultIndexWorkers
	}
	opts.included = new(int64)
	if opts.IndexWorkers > store.MaxIndexWorkers {
		return fmt.Errorf("--index-workers %d: give 1 to %d workers", opts.IndexWorkers, store.MaxIndexWorkers)
	}
	if opts.Version != "" {
		if err := store.ValidName(opts.Version); err != nil {
			return err
		}
	}
	return nil
}

// Run ingests the trees of opts into st as a new version. On any error
// nothing becomes visible. Identical content already stored is reported as
// that version and nothing new is kept.
//
// Pages are read, checked and written one at a time, so what Run holds
// does not grow with the pages' text: the version is built in a staging
// folder as the pages come, and its content digest is known when the last
// one is read. Content stored already is then that version, and the
// staging folder goes.
func Run(ctx context.Context, st *store.Store, opts Options) (*Summary, error) {
	start := time.Now()
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	readAt := now().UTC()
	if err := prepare(&opts); err != nil {
		return nil, err
	}
	srcs, err := sortedSources(opts)
	if err != nil {
		return nil, err
	}
	// Every manifest is walked before any page is read, so that a fault in
	// one is found at once and the progress knows the total.
	type opened struct {
		t     *loadedTree
		dir   *sitefs.Folder
		pages []source.Page
		src   TreeSource
	}
	var trees []opened
	defer func() {
		for _, o := range trees {
			o.dir.Close()
		}
	}()
	bv, err := openBase(ctx, st, opts, srcs)
	if err != nil {
		return nil, err
	}
	if bv != nil {
		defer bv.v.Release()
	}
	var lib []libraryEntry
	if opts.Library != "" {
		if lib, err = readLibrary(ctx, opts.Library, opts); err != nil {
			return nil, err
		}
	} else if bv != nil {
		if lib, err = bv.library(); err != nil {
			return nil, err
		}
	}
	var pr Progress
	for _, s := range srcs {
		t, dir, pages, err := openTree(ctx, s, opts)
		if err != nil {
			return nil, err
		}
		trees = append(trees, opened{t, dir, pages, s})
		pr.TotalPages += len(pages)
	}
	// The version's trees in storage order: those read anew and those
	// the base carries.
	order := make([]string, 0, len(trees))
	byName := map[string]*opened{}
	for i := range trees {
		order = append(order, trees[i].t.name)
		byName[trees[i].t.name] = &trees[i]
	}
	if bv != nil {
		order = append(order, bv.carry...)
		pr.TotalPages += bv.pages()
	}
	tzctx.SortTrees(order)
	killpoint.Reach("ingest.manifests")
	b, err := st.NewBuilderWith(store.BuildOptions{IndexWorkers: opts.IndexWorkers, SectionsHeld: opts.SectionsHeld})
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			b.Abort()
		}
	}()
	digest := newDigester(derivation)
	ord := 0
	sum := &Summary{}
	// sources records the folder each tree was read from; a carried
	// tree's is the base's record of it.
	sources := map[string]string{}
	var baseSources map[string]string
	if bv != nil {
		if baseSources, err = st.Sources(bv.name()); err != nil {
			return nil, err
		}
	}
	// The base's index documents of the carried trees' pages, and of
	// the unchanged pages of the trees read anew, are merged in rather
	// than derived, where the base was derived by these rules.
	reuse, reuseSections := false, false
	if bv != nil {
		if reuse, err = b.ReuseIndex(ctx, bv.v, derivation); err != nil {
			return nil, err
		}
		if reuseSections, err = b.ReuseSections(bv.v, derivation); err != nil {
			return nil, err
		}
	}
	reusing := func(w *treeWriter) *treeWriter {
		w.reuse, w.reuseSections, w.reused, w.reusedSections = reuse, reuseSections, &sum.Reused, &sum.ReusedSections
		if bv != nil {
			w.base = bv.v.Tree(w.tree)
		}
		return w
	}
	for _, name := range order {
		o := byName[name]
		if o == nil {
			bt := bv.v.Tree(name)
			digest.w(bt.Name)
			digest.w(bt.Title)
			w := reusing(&treeWriter{b: b, tree: name, ord: &ord, progress: opts.Progress, pr: &pr, digest: digest, carried: true})
			t, err := carryTree(ctx, w, bt)
			if err != nil {
				return nil, err
			}
			killpoint.Reach("ingest.tree")
			was := bv.treeMeta(name)
			sum.Trees = append(sum.Trees, store.TreeMeta{Name: t.name, Pages: len(t.pages), Bytes: t.bytes, Headings: t.headings, Skipped: was.Skipped, Format: was.Format, Read: was.Read, Base: bv.name()})
			format := was.Format
			if format == "" {
				format = "carried"
			}
			sum.Read = append(sum.Read, TreeRead{Format: format, Title: t.title, Base: bv.name()})
			sum.count(sum.Trees[len(sum.Trees)-1])
			if dir := baseSources[name]; dir != "" {
				sources[name] = dir
			}
			continue
		}
		t := o.t
		digest.w(t.name)
		digest.w(t.title)
		if t.includes.Form == source.IncludeMintlify {
			// A Mintlify tree read with its snippets expanded is not the
			// tree read as written, even where no page uses a snippet; as
			// written, the digest is what it always was.
			digest.w("mintlify-snippets-expand")
		}
		w := reusing(&treeWriter{b: b, tree: t.name, composed: !o.dir.Exists("llms-full.txt"), ord: &ord, progress: opts.Progress, pr: &pr, digest: digest})
		if err := w.begin(); err != nil {
			return nil, err
		}
		if t.links, err = gatherLinks(ctx, t, o.dir, o.src, o.pages, opts); err != nil {
			return nil, err
		}
		if err := readPages(ctx, t, o.dir, o.src, o.pages, opts, func(p *loadedPage) error { return w.page(ctx, p) }); err != nil {
			return nil, err
		}
		if err := compose(ctx, t, o.dir, opts.MaxLLMSBytes, false); err != nil {
			return nil, err
		}
		if t.composed != w.composed {
			return nil, fmt.Errorf("tree %s: llms-full.txt appeared or went during the ingest; ingest again", t.name)
		}
		if err := w.finish(t); err != nil {
			return nil, err
		}
		killpoint.Reach("ingest.tree")
		sum.Trees = append(sum.Trees, store.TreeMeta{Name: t.name, Pages: len(t.pages), Bytes: t.bytes, Headings: t.headings, Skipped: t.skipped, Format: t.format, Read: readAt})
		if dir, err := filepath.Abs(o.src.Dir); err == nil {
			sources[t.name] = dir
		}
		sum.Read = append(sum.Read, TreeRead{Format: t.format, Title: t.title, Skips: source.SkipCounts(t.skips), Expanded: t.expanded, Left: t.left})
		sum.count(sum.Trees[len(sum.Trees)-1])
		if t.docsVersion != "" {
			if sum.DocsVersions == nil {
				sum.DocsVersions = map[string]string{}
			}
			sum.DocsVersions[t.name] = t.docsVersion
		}
		for _, w := range t.warnings {
			sum.Warnings = append(sum.Warnings, "tree "+t.name+": "+w)
		}
	}
	if err := putLibrary(b, lib, digest); err != nil {
		return nil, err
	}
	d := digest.sum()
	// Identical content stored already is that version, unless it is
	// damaged: then it cannot stand for this ingest.
	if name := st.FindDigest(d); name != "" && (opts.Version == "" || opts.Version == name) {
		if err := st.Verify(ctx, name); err == nil {
			sum.Version, sum.Existing = name, true
			sum.Seconds = time.Since(start).Seconds()
			return sum, nil
		} else if !errors.Is(err, store.ErrDamaged) {
			return nil, err
		}
	}
	created := now().UTC()
	name := opts.Version
	if name == "" {
		name = created.Format("20060102") + "-" + d[:12]
	}
	if _, err := st.Lookup(name); err == nil || errors.Is(err, store.ErrDamaged) {
		if st.Verify(ctx, name) != nil {
			return nil, fmt.Errorf("version %q exists already and is damaged; delete it ('tzctx delete %s', after activating another version if it is the active one) and ingest again, or choose another --version name", name, name)
		}
		return nil, fmt.Errorf("version %q exists already with other content; choose another --version name or delete it", name)
	}
	meta := store.Meta{Name: name, Created: created, Digest: d, Derivation: derivation, Trees: sum.Trees, Pages: sum.Pages, Bytes: sum.Bytes, Headings: sum.Headings, Skipped: sum.Skipped}
	if bv != nil {
		meta.Base = bv.name()
	}
	b.PutSources(sources)
	// Commit checks ctx between its phases and before the rename: a stop
	// asked for meanwhile leaves no version. It aborts on failure.
	committed = true
	if err := b.Commit(ctx, meta); err != nil {
		return nil, err
	}
	sum.Version = name
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}
