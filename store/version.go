package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/store/sections"
)

// Version is one opened, immutable version. Its bbolt file is opened read
// only with one read transaction held for the version's life, so the bytes
// of every text are read in place from the memory map.
type Version struct {
	meta  Meta
	dir   string // the version's folder
	db    *bolt.DB
	tx    *bolt.Tx
	texts []byte // the text file, memory-mapped
	aux   []byte // the aux file, memory-mapped
	idx   bleve.Index
	refs  atomic.Int64
	trees map[string]*Tree

	reader index.IndexReader
	ordOf  []int32 // bleve internal doc number -> page ordinal, -1 for none

	// frequent holds, for each n-gram that many pages hold, its page bit
	// set, read from the index when the version opens. It is derived from
	// the version's content alone, never from what callers asked.
	frequent map[string][]uint64 // field + "\x00" + gram

	memo sync.Map // key -> *memoEntry

	// sections is the version's section index, nil where it was built
	// before the index was stored.
	sections *sections.Index
}

type memoEntry struct {
	once sync.Once
	val  any
	err  error
}

// Memo returns what f computes for key, computing it once per version: a
// reader's derived data lives and dies with the version it derives from.
func (v *Version) Memo(key any, f func() (any, error)) (any, error) {
	e, _ := v.memo.LoadOrStore(key, &memoEntry{})
	me := e.(*memoEntry)
	me.once.Do(func() { me.val, me.err = f() })
	return me.val, me.err
}

// Tree is one tree of a version: its manifest as ingest recorded it.
type Tree struct {
	Name  string
	Title string
	Pages []tzctx.Page
	// First is the ordinal of the tree's first page across the version.
	First int

	v       *Version
	text    *bolt.Bucket
	search  *bolt.Bucket
	byRoute map[string]int
}

// openVersion verifies the version folder dir in full, opens
// it and reads what search needs at once, so that a version that is served
// has been read through. Any fault, a panic of bleve's or bbolt's over a
// damaged file included, is an error and leaves nothing open.
func openVersion(ctx context.Context, dir, name string) (v *Version, err error) {
	defer func() {
		if r := recover(); r != nil {
			if v != nil {
				v.closeQuietly()
			}
			v, err = nil, &DamagedError{Version: name, Problem: (&PanicError{Value: r}).Error() + " while opening it"}
		}
	}()
	fileMeta, err := verifyDir(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	damaged := func(file, format string, a ...any) (*Version, error) {
		if v != nil {
			v.close()
		}
		return nil, &DamagedError{Version: name, File: file, Problem: fmt.Sprintf(format, a...)}
	}
	db, err := bolt.Open(filepath.Join(dir, dbFile), 0o444, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return damaged(dbFile, "cannot be opened (%v)", err)
	}
	v = &Version{db: db, dir: dir, trees: map[string]*Tree{}}
	v.refs.Store(1)
	if v.tx, err = db.Begin(false); err != nil {
		return damaged(dbFile, "cannot be read (%v)", err)
	}
	mb := v.tx.Bucket(bucketMeta)
	if mb == nil {
		return damaged(dbFile, "has no metadata")
	}
	if err := json.Unmarshal(mb.Get(keyMeta), &v.meta); err != nil {
		return damaged(dbFile, "holds unreadable metadata (%v)", err)
	}
	if v.meta.Name != fileMeta.Name || v.meta.Digest != fileMeta.Digest || !v.meta.Created.Equal(fileMeta.Created) {
		return damaged(dbFile, "holds the metadata of another version than %s describes", metaFile)
	}
	v.meta.Files = fileMeta.Files
	if v.texts, err = mapFile(filepath.Join(dir, textsFile)); err != nil {
		return damaged(textsFile, "cannot be read (%v)", err)
	}
	if v.aux, err = mapFile(filepath.Join(dir, auxFile)); err != nil {
		return damaged(auxFile, "cannot be read (%v)", err)
	}
	// The trees are read in the order ingest stored them (meta.json's
	// list, tzctx.SortTrees order), which their page ordinals follow.
	ord := 0
	for _, tm := range v.meta.Trees {
		tn := tm.Name
		if tn == string(bucketMeta) || v.trees[tn] != nil {
			return damaged(dbFile, "lists tree %q twice or under a reserved name", tn)
		}
		b := v.tx.Bucket([]byte(tn))
		if b == nil {
			return damaged(dbFile, "holds no table of tree %s, which its metadata lists", tn)
		}
		var m treeManifest
		if err := json.Unmarshal(b.Get(keyManifest), &m); err != nil {
			return damaged(dbFile, "holds an unreadable manifest of tree %s (%v)", tn, err)
		}
		t := &Tree{Name: tn, Title: m.Title, Pages: m.Pages, First: ord, v: v, text: b.Bucket(bucketText), search: b.Bucket(bucketSearch), byRoute: make(map[string]int, len(m.Pages))}
		if t.text == nil || t.search == nil {
			return damaged(dbFile, "holds no text table of tree %s", tn)
		}
		for i, p := range m.Pages {
			t.byRoute[p.Route] = i
		}
		ord += len(m.Pages)
		v.trees[tn] = t
	}
	if ord != v.meta.Pages {
		return damaged(dbFile, "lists %d pages, but %d were recorded at ingest", ord, v.meta.Pages)
	}
	if sb := v.tx.Bucket(bucketSections); sb != nil {
		tb := sb.Bucket(sections.TermsKey)
		if tb == nil {
			return damaged(dbFile, "holds a section index without its terms")
		}
		if v.sections, err = sections.Open(sb.Get, tb.Get, func(problem string) error {
			return &DamagedError{Version: name, File: dbFile, Problem: problem}
		}); err != nil {
			v.close()
			return nil, err
		}
	}
	if v.idx, err = bleve.OpenUsing(filepath.Join(dir, indexDir), map[string]any{"read_only": true}); err != nil {
		return damaged(indexDir, "cannot be opened (%v)", err)
	}
	if err := v.ordinals(); err != nil {
		return damaged(indexDir, "%v", err)
	}
	if err := v.frequentGrams(ctx); err != nil {
		if ctx.Err() != nil {
			v.close()
			return nil, ctx.Err()
		}
		return damaged(indexDir, "%v", err)
	}
	return v, nil
}

// Sections returns the version's section index, read in place, or nil
// where the version was built before ingest stored it.
func (v *Version) Sections() *sections.Index { return v.sections }

// Meta returns the version's metadata.
func (v *Version) Meta() Meta { return v.meta }

// Name returns the version's name.
func (v *Version) Name() string { return v.meta.Name }

// Tree returns the named tree, or nil where the version lacks it.
func (v *Version) Tree(name string) *Tree { return v.trees[name] }

// TreeNames returns the names of the version's trees in storage order
// (tzctx.SortTrees), which their page ordinals follow.
func (v *Version) TreeNames() []string {
	out := make([]string, 0, len(v.meta.Trees))
	for _, t := range v.meta.Trees {
		out = append(out, t.Name)
	}
	return out
}

// PageIndex returns the manifest position of the page with the given
// route, or -1.
func (t *Tree) PageIndex(route string) int {
	if i, ok := t.byRoute[route]; ok {
		return i
	}
	return -1
}

// Text returns the stored text under key ("index", "full", "outline" or a
// page route), or nil where the version lacks it.
func (t *Tree) Text(key string) (*Text, error) {
	raw := t.text.Get([]byte(key))
	if raw == nil {
		return nil, nil
	}
	tr, lr, ok := decodeRefs(raw)
	if !ok {
		return nil, errCorrupt
	}
	text, ok1 := tr.slice(t.v.texts)
	lay, ok2 := lr.slice(t.v.aux)
	if !ok1 || !ok2 {
		return nil, errCorrupt
	}
	return decodeText(text, lay)
}

var errCorrupt = errors.New("corrupt text table")

// checkTexts checks every text of the version against its table, and
// every search entry's bounds.
func (v *Version) checkTexts(ctx context.Context) error {
	if err := v.checkLibrary(); err != nil {
		return err
	}
	for _, tm := range v.meta.Trees {
		tn := tm.Name
		t := v.trees[tn]
		if t == nil {
			continue
		}
		err := t.text.ForEach(func(k, _ []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			x, err := t.Text(string(k))
			if err == nil && x == nil {
				err = errCorrupt
			}
			if err == nil {
				err = x.check()
			}
			if err != nil {
				return fmt.Errorf("text %s of tree %s %v", k, tn, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = t.search.ForEach(func(k, raw []byte) error {
			lr, hr, ok := decodeRefs(raw)
			_, ok1 := lr.slice(v.aux)
			_, ok2 := hr.slice(v.aux)
			if !ok || !ok1 || !ok2 {
				return fmt.Errorf("the search entry of page %s of tree %s lies outside %s", k, tn, auxFile)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// SearchBody returns what search matches a page's words against: its
// lower-cased copy, or, with fold true, the copy itself, whose lower-cased
// form differs from it in ASCII letters alone, so that matching it with
// ASCII letters folded is matching the lower-cased copy. It returns nil
// where the version lacks the page.
func (t *Tree) SearchBody(route string) (body []byte, fold bool) {
	lr, _, ok := decodeRefs(t.search.Get([]byte(route)))
	if !ok {
		return nil, false
	}
	if lr.n > 0 {
		if b, ok := lr.slice(t.v.aux); ok {
			return b, false
		}
		return nil, false
	}
	txt, err := t.Text(route)
	if err != nil || txt == nil {
		return nil, false
	}
	return txt.Bytes(), true
}

// Headings returns the headings of the page with the given route.
func (t *Tree) Headings(route string) ([]tzctx.Heading, error) {
	raw := t.search.Get([]byte(route))
	if raw == nil {
		return nil, nil
	}
	_, hr, ok := decodeRefs(raw)
	if !ok {
		return nil, errCorrupt
	}
	b, ok := hr.slice(t.v.aux)
	if !ok {
		return nil, errCorrupt
	}
	var hs []tzctx.Heading
	err := json.Unmarshal(b, &hs)
	return hs, err
}

func (v *Version) tryRef() bool {
	for {
		n := v.refs.Load()
		if n <= 0 {
			return false
		}
		if v.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release drops a reference; the last one closes the version.
func (v *Version) Release() {
	if v.refs.Add(-1) == 0 {
		v.close()
	}
}

// closeQuietly closes what is open, recovering from a panic in a damaged
// file's close.
func (v *Version) closeQuietly() {
	defer func() { _ = recover() }()
	v.close()
}

func (v *Version) close() {
	if v.reader != nil {
		v.reader.Close()
	}
	if v.idx != nil {
		v.idx.Close()
	}
	if v.tx != nil {
		_ = v.tx.Rollback()
	}
	if v.db != nil {
		v.db.Close()
	}
	unmap(v.texts)
	unmap(v.aux)
	v.texts, v.aux = nil, nil
}
