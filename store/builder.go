package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store/sections"
)

var (
	bucketMeta   = []byte("meta")
	keyMeta      = []byte("meta")
	keyManifest  = []byte("manifest")
	bucketText   = []byte("text")
	bucketSearch = []byte("search")
	// bucketSections holds the section index of search_documentation
	// (package sections); no tree is named so (tzctx.CheckTreeName). A
	// version built before it was stored lacks it.
	bucketSections = []byte("_sections")
)

// Builder writes one new version in a staging folder. Nothing it writes is
// visible until Commit renames the folder into place; Abort, or a crash,
// leaves only a staging folder that the next builder removes.
//
// Texts go to the version's text file and their place tables, lower-cased
// copies and headings to its aux file, each written once, front to back,
// as they come; what bbolt holds (the metadata, the manifests and where
// each text lies) is small, is kept in memory, and is written in one
// transaction at Commit. So a build holds one page at a time, whatever
// the site's size.
type Builder struct {
	s       *Store
	dir     string
	lock    *os.File
	texts   *flatWriter
	aux     *flatWriter
	trees   map[string]*builtTree
	index   *indexFeed
	indexed int
	// byOrdinal counts the pages indexed by IndexPage, whose documents are
	// named by ordinal: a version of them is of format 3 (OldestFormat),
	// as versions built before documents were named by route.
	byOrdinal int
	span      *span
	done      bool
	// laidOut are the folders of the data directory this builder created
	// (OpenDeferred), outermost first: Abort removes them where empty.
	laidOut []string
	// library is the library catalog's record, nil for none.
	library []byte
	// sections derives the section index from the pages PutPageSections
	// is given; nil where none was, and the version then holds none.
	sections     *sections.Builder
	sectionsHeld int64
	// sources maps each tree to the folder it was read from (PutSources).
	sources map[string]string
}

// builtTree is what a Builder keeps of one tree until Commit.
type builtTree struct {
	manifest []byte
	text     map[string][]byte // key -> encoded textEntry
	search   map[string][]byte // route -> encoded searchEntry
}

// BuildOptions are the bounds of one version's build.
type BuildOptions struct {
	// IndexWorkers is how many workers build the n-gram index's segments
	// at once, 1 to MaxIndexWorkers; 0 takes DefaultIndexWorkers. Each
	// uses up to a core and holds one segment's pages (indexBatch) as
	// documents.
	IndexWorkers int
	// SectionsHeld is about the most bytes of search_documentation's
	// postings the build holds in memory (checked after each page); past
	// it they go to a work file in the staging folder, merged at Commit.
	// 0 takes DefaultSectionsHeld.
	SectionsHeld int64
}

// DefaultSectionsHeld is BuildOptions.SectionsHeld's default: 64 MiB,
// about twice what powershell-docs' 3,077 pages (39 MB) hold, so that a
// site of that size writes no work file.
const DefaultSectionsHeld = 64 << 20

// NewBuilder starts a version in a fresh staging folder, first removing
// what interrupted builds left behind, with the default BuildOptions.
func (s *Store) NewBuilder() (*Builder, error) { return s.NewBuilderWith(BuildOptions{}) }

// NewBuilderWith is NewBuilder with the bounds of o.
func (s *Store) NewBuilderWith(o BuildOptions) (*Builder, error) {
	if o.IndexWorkers == 0 {
		o.IndexWorkers = DefaultIndexWorkers
	}
	if o.IndexWorkers < 1 || o.IndexWorkers > MaxIndexWorkers {
		return nil, fmt.Errorf("%d index workers: give 1 to %d", o.IndexWorkers, MaxIndexWorkers)
	}
	if o.SectionsHeld == 0 {
		o.SectionsHeld = DefaultSectionsHeld
	}
	if o.SectionsHeld < 0 {
		return nil, fmt.Errorf("%d bytes of section postings held: give a positive number, or 0 for the default %d", o.SectionsHeld, DefaultSectionsHeld)
	}
	laidOut, err := s.makeLayout()
	if err != nil {
		return nil, err
	}
	s.cleanStaging()
	dir, lock, err := s.newStaging("build")
	if err != nil {
		removeEmpty(laidOut)
		return nil, err
	}
	b := &Builder{s: s, dir: dir, lock: lock, trees: map[string]*builtTree{}, laidOut: laidOut, sectionsHeld: o.SectionsHeld}
	b.texts, err = newFlatWriter(filepath.Join(dir, textsFile))
	if err == nil {
		b.aux, err = newFlatWriter(filepath.Join(dir, auxFile))
	}
	if err == nil {
		// The builder's work files go in the staging folder too, so an
		// interrupted build leaves nothing outside the data directory.
		b.index, err = newIndexFeed(filepath.Join(dir, indexDir), dir, o.IndexWorkers)
	}
	if err != nil {
		b.Abort()
		return nil, fmt.Errorf("create staging version: %w", err)
	}
	return b, nil
}

func (b *Builder) tree(name string) *builtTree {
	t := b.trees[name]
	if t == nil {
		t = &builtTree{text: map[string][]byte{}, search: map[string][]byte{}}
		b.trees[name] = t
	}
	return t
}

// treeManifest is what a tree's manifest record holds.
type treeManifest struct {
	Title string       `json:"title"`
	Pages []tzctx.Page `json:"pages"`
}

// PutTree records a tree's title and its pages in manifest order.
func (b *Builder) PutTree(tree, title string, pages []tzctx.Page) error {
	data, err := json.Marshal(treeManifest{Title: title, Pages: pages})
	if err != nil {
		return err
	}
	b.tree(tree).manifest = data
	return nil
}

// PutText stores one text of a tree under key ("index", "full", "outline"
// or a page route) with its layout and stamp. Between BeginSpan and
// EndSpan the text is also the next piece of the span's text.
func (b *Builder) PutText(tree, key, text string, l Layout) error {
	if _, dup := b.tree(tree).text[key]; dup {
		return fmt.Errorf("text %s of tree %s is stored twice", key, tree)
	}
	sum := sha256.Sum256([]byte(text))
	enc, err := encodeLayout(text, l, sum, checkpoints(text, 0, 0, nil))
	if err != nil {
		return fmt.Errorf("text %s of tree %s: %w", key, tree, err)
	}
	at, err := b.writeText(text)
	if err != nil {
		return err
	}
	lay, err := b.aux.write(enc)
	if err != nil {
		return err
	}
	b.tree(tree).text[key] = textEntry{text: at, layout: lay}.encode()
	return nil
}

// BeginSpan starts a text composed of the texts and gaps stored next, in
// order, so that a tree's whole text, composed of its pages, shares their
// bytes instead of holding a second copy of each. EndSpan names it.
func (b *Builder) BeginSpan() error {
	if b.span != nil {
		return errors.New("a span is open already")
	}
	b.span = &span{start: b.texts.off, hash: sha256.New()}
	return nil
}

// PutGap stores text that belongs to the open span alone, such as the
// blank line between two pages of a composed whole text.
func (b *Builder) PutGap(text string) error {
	if b.span == nil {
		return errors.New("no span is open")
	}
	_, err := b.writeText(text)
	return err
}

// EndSpan stores the open span's text under key of tree with its layout l,
// which its caller derives; its stamp and code-point checkpoints are
// computed here from the bytes written.
func (b *Builder) EndSpan(tree, key string, l Layout) error {
	sp := b.span
	if sp == nil {
		return errors.New("no span is open")
	}
	b.span = nil
	if _, dup := b.tree(tree).text[key]; dup {
		return fmt.Errorf("text %s of tree %s is stored twice", key, tree)
	}
	if sp.n != l.Total {
		return fmt.Errorf("text %s of tree %s: layout total %d does not match the text's %d code points", key, tree, l.Total, sp.n)
	}
	var sum [sha256.Size]byte
	sp.hash.Sum(sum[:0])
	enc, err := encodeLayoutParts(l, sum, sp.checks)
	if err != nil {
		return fmt.Errorf("text %s of tree %s: %w", key, tree, err)
	}
	lay, err := b.aux.write(enc)
	if err != nil {
		return err
	}
	at := ref{off: sp.start, n: b.texts.off - sp.start}
	b.tree(tree).text[key] = textEntry{text: at, layout: lay}.encode()
	return nil
}

// SpanText returns the open span's text as written so far, read back from
// the text file, for a caller that must scan it whole.
func (b *Builder) SpanText() (string, error) {
	sp := b.span
	if sp == nil {
		return "", errors.New("no span is open")
	}
	if err := b.texts.w.Flush(); err != nil {
		return "", err
	}
	buf := make([]byte, b.texts.off-sp.start)
	if _, err := b.texts.f.ReadAt(buf, int64(sp.start)); err != nil {
		return "", err
	}
	return string(buf), nil
}

// writeText appends text to the text file, feeding the open span.
func (b *Builder) writeText(text string) (ref, error) {
	if sp := b.span; sp != nil {
		if b.texts.off-sp.start+uint64(len(text)) > 1<<32-1 {
			return ref{}, errors.New("a composed text is over the 4 GiB bound")
		}
		io.WriteString(sp.hash, text)
		sp.checks = checkpoints(text, uint32(b.texts.off-sp.start), sp.n, sp.checks)
		sp.n += utf8.RuneCountInString(text)
	}
	return b.texts.writeString(text)
}

// span is a text being composed of the pieces written to the text file.
type span struct {
	start  uint64
	n      int // code points so far
	hash   hash.Hash
	checks []uint32
}

// PutPageSearch stores what search needs of a page beyond its text: its
// lower-cased copy and its headings. lower is nil where the copy
// lower-cased is the copy with its ASCII letters lower-cased: then search
// matches the copy itself, folding ASCII letters, and no second copy is
// stored.
func (b *Builder) PutPageSearch(tree, route string, lower []byte, headings []tzctx.Heading) error {
	var e searchEntry
	var err error
	if len(lower) > 0 {
		if e.lower, err = b.aux.write(lower); err != nil {
			return err
		}
	}
	hs, err := json.Marshal(headings)
	if err != nil {
		return err
	}
	if e.headings, err = b.aux.write(hs); err != nil {
		return err
	}
	b.tree(tree).search[route] = e.encode()
	return nil
}

// PutPageSections adds the next page, of tree, to the version's section
// index (package sections): its title, its served text, the text's places
// and its headings. Pages are given in the version's tree order and each
// tree's manifest order; a version is given all its pages or none (then
// it holds no section index, as versions built before it). It checks ctx
// before each section.
func (b *Builder) PutPageSections(ctx context.Context, tree, title, text string, places textmap.Layout, headings []tzctx.Heading) error {
	if b.sections == nil {
		b.newSections()
	}
	return b.sections.Page(ctx, tree, title, text, places, headings)
}

// newSections starts the version's section index.
func (b *Builder) newSections() {
	b.sections = sections.NewBuilder()
	b.sections.SpillTo(b.dir, b.sectionsHeld)
}

// PageGrams are the distinct n-grams of one page, each list joined by
// single spaces: of the whole page (title and copy), of its title alone
// and of its headings alone.
type PageGrams struct {
	All, Title, Headings string
}

// IndexPage adds page number ord of the version (its place across all
// trees in tree and manifest order) to the n-gram index, its document
// named by the ordinal, as versions of format 3 name theirs: a version
// whose pages are indexed so is of that format (ingest indexes by route,
// IndexRoute; IndexPage builds the versions of earlier builds that tests
// read). The index is built beside the caller's work; an indexing fault
// is returned by a later call or by Commit.
func (b *Builder) IndexPage(ord int, g PageGrams) error {
	b.indexed++
	b.byOrdinal++
	return b.index.add(strconv.Itoa(ord), g)
}

// writeDB writes the version's bbolt file in one transaction: the
// metadata, the manifests and where every text lies, each bucket's keys in
// order, so its pages are filled and nothing is freed. It checks ctx at
// every key: a site of a million pages puts two million.
func (b *Builder) writeDB(ctx context.Context, meta []byte) error {
	db, err := bolt.Open(filepath.Join(b.dir, dbFile), 0o644, &bolt.Options{NoFreelistSync: true})
	if err != nil {
		return err
	}
	// The file grows by dbGrowth at a time past it, not by bbolt's
	// default 16 MiB, which a version's file, written once, would keep.
	db.AllocSize = dbGrowth
	err = db.Update(func(tx *bolt.Tx) error {
		mk, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := mk.Put(keyMeta, meta); err != nil {
			return err
		}
		if b.library != nil {
			if err := mk.Put(keyLibrary, b.library); err != nil {
				return err
			}
		}
		for _, name := range sortedKeys(b.trees) {
			t := b.trees[name]
			tb, err := tx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			if t.manifest == nil {
				return fmt.Errorf("tree %s has no manifest", name)
			}
			if err := tb.Put(keyManifest, t.manifest); err != nil {
				return err
			}
			for sub, m := range map[string]map[string][]byte{string(bucketText): t.text, string(bucketSearch): t.search} {
				sb, err := tb.CreateBucket([]byte(sub))
				if err != nil {
					return err
				}
				sb.FillPercent = 1
				for _, k := range sortedKeys(m) {
					if err := ctx.Err(); err != nil {
						return err
					}
					if err := sb.Put([]byte(k), m[k]); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err == nil {
		err = b.writeSections(ctx, db, meta)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// dbGrowth is how much the version's bbolt file grows by at a time once
// it is larger.
const dbGrowth = 1 << 20

// sectionsBatch is the most bytes of postings one transaction writes:
// bbolt holds a transaction's pages in memory until it commits, so the
// section index is written in transactions of about this size.
const sectionsBatch = 8 << 20

// writeSections writes the section index, where the builder was given
// pages for it, in transactions of at most sectionsBatch bytes of
// postings each (and one more posting), its terms in order.
func (b *Builder) writeSections(ctx context.Context, db *bolt.DB, meta []byte) error {
	if b.sections == nil {
		return nil
	}
	var m Meta
	if err := json.Unmarshal(meta, &m); err != nil {
		return err
	}
	if b.sections.Pages() != b.indexed {
		return fmt.Errorf("the section index was given %d pages of the version's %d", b.sections.Pages(), b.indexed)
	}
	trees := make([]string, len(m.Trees))
	for i, t := range m.Trees {
		trees[i] = t.Name
	}
	tx, err := db.Begin(true)
	if err != nil {
		return err
	}
	defer func() {
		if tx != nil {
			_ = tx.Rollback()
		}
	}()
	sb, err := tx.CreateBucket(bucketSections)
	if err != nil {
		return err
	}
	tb, err := sb.CreateBucket(sections.TermsKey)
	if err != nil {
		return err
	}
	tb.FillPercent = 1
	pending := 0
	put := func(k, v []byte) error { return sb.Put(k, v) }
	putTerm := func(k, v []byte) error {
		if pending >= sectionsBatch {
			if err := tx.Commit(); err != nil {
				tx = nil
				return err
			}
			if tx, err = db.Begin(true); err != nil {
				tx = nil
				return err
			}
			tb = tx.Bucket(bucketSections).Bucket(sections.TermsKey)
			tb.FillPercent = 1
			pending = 0
		}
		pending += len(k) + len(v)
		return tb.Put(k, v)
	}
	if err := b.sections.Write(ctx, trees, put, putTerm); err != nil {
		return err
	}
	b.sections = nil
	err = tx.Commit()
	tx = nil
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Commit finishes the version under meta.Name and renames it into place.
// It refuses a name that is taken. It checks ctx between its phases and
// last just before the rename, so a cancelled ctx leaves no version. On
// every failure it aborts: the staging folder, its lock and the open files
// go, and nothing becomes visible.
func (b *Builder) Commit(ctx context.Context, meta Meta) error {
	if b.done {
		return errors.New("builder already finished")
	}
	if err := b.commit(ctx, meta); err != nil {
		b.Abort()
		return err
	}
	b.done = true
	b.lock.Close()
	return nil
}

func (b *Builder) commit(ctx context.Context, meta Meta) (err error) {
	defer recovered(&err)
	if err := ValidName(meta.Name); err != nil {
		return err
	}
	if b.indexed == 0 {
		return errors.New("a version needs at least one page")
	}
	final := b.s.versionDir(meta.Name)
	if _, err := os.Stat(final); err == nil {
		return fmt.Errorf("version %q exists already; choose another --version name or delete it", meta.Name)
	}
	meta.Format = FormatVersion
	switch b.byOrdinal {
	case 0:
	case b.indexed:
		meta.Format = OldestFormat
	default:
		return fmt.Errorf("%d of the version's %d pages are indexed by ordinal, the others by route: index them all one way", b.byOrdinal, b.indexed)
	}
	meta.Files = nil
	if err := b.treeList(&meta); err != nil {
		return err
	}
	err = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		mb, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		if b.span != nil {
			return errors.New("a span is still open")
		}
		if err := b.texts.close(); err != nil {
			return fmt.Errorf("write %s: %w", textsFile, err)
		}
		if err := b.aux.close(); err != nil {
			return fmt.Errorf("write %s: %w", auxFile, err)
		}
		killpoint.Reach("commit.texts")
		if err := b.writeDB(ctx, mb); err != nil {
			return fmt.Errorf("write %s: %w", dbFile, err)
		}
		killpoint.Reach("commit.db")
		if err := b.index.close(ctx); err != nil {
			return fmt.Errorf("build search index: %w", err)
		}
		b.index = nil
		killpoint.Reach("commit.index")
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := syncTree(ctx, b.dir); err != nil {
			return err
		}
		killpoint.Reach("commit.synced")
		// The checksums go in meta.json, written last: a folder with a
		// meta.json is complete.
		if meta.Files, err = checksums(ctx, b.dir); err != nil {
			return err
		}
		if mb, err = json.MarshalIndent(meta, "", "  "); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(b.dir, metaFile), mb); err != nil {
			return err
		}
		killpoint.Reach("commit.meta")
		if err := ctx.Err(); err != nil {
			return err
		}
		// The record of the folders read goes before the version: a
		// kill between the two leaves a record of no version, which the
		// next version of that name replaces.
		if err := b.s.putSources(meta.Name, b.sources); err != nil {
			return err
		}
		// The lock is held through the rename, so no other builder's
		// clean-up can take the folder for a leftover.
		if err := os.Rename(b.dir, final); err != nil {
			os.Remove(b.s.sourcesPath(meta.Name))
			return err
		}
		killpoint.Reach("commit.renamed")
		syncDir(filepath.Dir(final))
		os.Remove(filepath.Join(final, lockFile))
		return nil
	}()
	if err != nil {
		return fmt.Errorf("commit version %q: %w", meta.Name, err)
	}
	return nil
}

// Abort discards the staging folder.
func (b *Builder) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.texts.abort()
	b.aux.abort()
	b.index.abort()
	b.index = nil
	if b.sections != nil {
		b.sections.Close()
	}
	os.RemoveAll(b.dir)
	if b.lock != nil {
		b.lock.Close()
	}
	removeEmpty(b.laidOut)
}

// syncTree fsyncs every file below dir, so a rename publishes only data
// that is on disk. It checks ctx before each file.
func syncTree(ctx context.Context, dir string) error {
	return filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// treeList checks that meta lists each tree the builder holds once, and
// no other: the version's reader takes its trees, in that order, from the
// list. An empty list is filled with the builder's trees in storage order
// (tzctx.SortTrees), counts left at zero.
func (b *Builder) treeList(meta *Meta) error {
	for n := range b.trees {
		if err := tzctx.CheckTreeName(n); err != nil {
			return err
		}
	}
	if len(meta.Trees) == 0 {
		names := make([]string, 0, len(b.trees))
		for n := range b.trees {
			names = append(names, n)
		}
		tzctx.SortTrees(names)
		for _, n := range names {
			meta.Trees = append(meta.Trees, TreeMeta{Name: n})
		}
		return nil
	}
	seen := map[string]bool{}
	for _, t := range meta.Trees {
		if b.trees[t.Name] == nil || seen[t.Name] {
			return fmt.Errorf("the version's metadata lists tree %q, which the builder does not hold or lists twice", t.Name)
		}
		seen[t.Name] = true
	}
	if len(seen) != len(b.trees) {
		return fmt.Errorf("the version's metadata lists %d trees, but the builder holds %d", len(seen), len(b.trees))
	}
	return nil
}
