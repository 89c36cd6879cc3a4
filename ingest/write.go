package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/grams"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

func layoutOf(m *textmap.Map) store.Layout {
	return store.Layout{Total: m.Len, LineStarts: m.LineStarts, Bases: m.Bases}
}

// derivationVersion names the rules by which ingest derives what it
// stores from the files it reads: copies, titles, headings, place tables,
// the composed index and whole text, the outline and its link targets,
// n-grams. It is part of the content digest, so that re-ingesting the same
// files after the rules changed builds a new version instead of reporting
// the old one, derived by the old rules, as identical. Bump it whenever a
// change makes ingest store anything differently for the same files.
//
// 2: route link targets holding a space, a parenthesis or an angle bracket
// are written between angle brackets. 3: the store's format 3 (texts in
// flat files); the digest lists a tree's pages before its index and whole
// texts, and a composed whole text by a mark, as ingest streams the pages.
// 4 (issue 32): pages of formats other than Mintlify are served clean (no
// MDX import or export lines, no heading attribute lists, no tags in
// headings and titles; a heading's attribute id kept as its anchor), a
// versioned Docusaurus site is read at its default version, and
// navigation functions are followed; the links between the pages of a
// tree of a generator other than Mintlify are served as the served route
// and the outline's anchor; and (issue 30) the section index of search_documentation is derived
// and stored (package store/sections), so that re-ingesting a site whose
// version predates it builds a version holding it.
// 5 (issue 32): a page's copy holds what its generator's include
// directives pull in (mdBook, VitePress, pymdownx.snippets, Docusaurus
// raw-loader), and mdBook's hidden Rust lines are left out.
const derivationVersion = 5

// derivation is the version the digest is given; tests change it to
// stand for a change of the rules.
var derivation = derivationVersion

// digester hashes the derivation version and everything a version serves,
// in the order ingest reads it, so identical content derived by the same
// rules gets the same digest.
type digester struct{ h hash.Hash }

func newDigester(rules int) *digester {
	d := &digester{h: sha256.New()}
	d.w("tzctx-content-v1")
	d.w(fmt.Sprintf("derivation-%d", rules))
	return d
}

func (d *digester) w(s string) {
	fmt.Fprintf(d.h, "%d:", len(s))
	d.h.Write([]byte(s))
}

func (d *digester) page(p *loadedPage) {
	d.w(p.Path)
	d.w(p.Title)
	d.w(p.Description)
	d.w(p.copy)
}

// texts hashes a tree's index and whole texts, the whole text as the mark
// "composed" where ingest composed it of the pages just hashed.
func (d *digester) texts(index, full string, composed bool) {
	d.w(index)
	if composed {
		d.w("composed")
	} else {
		d.w("llms-full")
		d.w(full)
	}
}

func (d *digester) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// treeWriter stores one tree's pages in b as they are read: each page's
// text, search data and n-grams, and, where the tree has no llms-full.txt,
// the whole text composed of them, whose bytes are the pages' own.
type treeWriter struct {
	b        *store.Builder
	tree     string
	composed bool
	full     fullLayout
	n        int // pages written
	ord      *int
	progress func(Progress)
	pr       *Progress
	digest   *digester
	// reuse is set where the base's index is reused
	// (store.Builder.ReuseIndex), and reuseSections where its section
	// index is (store.Builder.ReuseSections): a page the base holds as the
	// page would be derived has its document and its sections taken from
	// the base, counted in reused and reusedSections. Every page of a
	// carried tree is such a page; a page of a tree read anew is where its
	// route, title, copy and headings are those of base, the base's tree
	// of that name (nil for none).
	reuse          bool
	reuseSections  bool
	carried        bool
	base           *store.Tree
	reused         *int
	reusedSections *int
}

func (w *treeWriter) begin() error {
	if w.composed {
		return w.b.BeginSpan()
	}
	return nil
}

// page stores p and drops its copy and scan.
func (w *treeWriter) page(ctx context.Context, p *loadedPage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.digest.page(p)
	if w.composed && w.n > 0 {
		if err := w.b.PutGap("\n"); err != nil {
			return err
		}
	}
	if err := w.b.PutText(w.tree, p.Route, p.copy, layoutOf(p.scan)); err != nil {
		return err
	}
	if w.composed {
		if !strings.HasSuffix(p.copy, "\n") {
			if err := w.b.PutGap("\n"); err != nil {
				return err
			}
		}
		w.full.add(p.copy, p.scan)
	}
	lower := strings.ToLower(p.copy)
	var stored []byte
	if !asciiFolded(p.copy, lower) {
		stored = []byte(lower)
	}
	if err := w.b.PutPageSearch(w.tree, p.Route, stored, p.headings); err != nil {
		return err
	}
	ord, err := w.reusable(p)
	if err != nil {
		return err
	}
	if ord >= 0 && w.reuseSections {
		if err := w.b.ReusePageSections(ctx, w.tree, ord, p.copy); err != nil {
			return err
		}
		*w.reusedSections++
	} else if err := w.b.PutPageSections(ctx, w.tree, p.Title, p.copy, p.scan, p.headings); err != nil {
		return err
	}
	if ord >= 0 && w.reuse && w.b.ReusePage(w.tree, p.Route) {
		*w.reused++
	} else {
		lowerTitle := strings.ToLower(p.Title)
		var hs strings.Builder
		for _, h := range p.headings {
			hs.WriteString(strings.ToLower(h.Text))
			hs.WriteByte('\n')
		}
		pg := store.PageGrams{All: grams.Of(lowerTitle + "\n" + lower), Title: grams.Of(lowerTitle), Headings: grams.Of(hs.String())}
		if err := w.b.IndexRoute(w.tree, p.Route, pg); err != nil {
			return err
		}
	}
	*w.ord++
	w.n++
	w.pr.Pages++
	w.pr.Bytes += int64(len(p.copy))
	if w.progress != nil {
		w.progress(*w.pr)
	}
	killpoint.Reach("ingest.page")
	// The heading texts are substrings of the copy: cloned, they no
	// longer hold the whole copy in memory.
	for i := range p.headings {
		p.headings[i].Text = strings.Clone(p.headings[i].Text)
	}
	p.copy, p.scan = "", nil
	return nil
}

// reusable returns the ordinal in the base of the page the base holds as
// p would be derived, -1 for none: p's page of a carried tree, or of a
// tree read anew where its route, title, copy and headings are those of
// the base's page of its route.
func (w *treeWriter) reusable(p *loadedPage) (int, error) {
	if (!w.reuse && !w.reuseSections) || w.base == nil {
		return -1, nil
	}
	i := w.base.PageIndex(p.Route)
	switch {
	case i < 0:
		return -1, nil
	case w.carried:
		return w.base.First + i, nil
	case w.base.Pages[i].Title != p.Title:
		return -1, nil
	}
	x, err := w.base.Text(p.Route)
	if err != nil || x == nil || string(x.Bytes()) != p.copy {
		return -1, err
	}
	hs, err := w.base.Headings(p.Route)
	if err != nil || !slices.Equal(hs, p.headings) {
		return -1, err
	}
	return w.base.First + i, nil
}

// finish stores the tree's index, whole text and outline, composed by
// compose, and its manifest.
func (w *treeWriter) finish(t *loadedTree) error {
	if w.composed {
		l, ok := w.full.layout()
		if !ok {
			// A page ends inside a fence or a comment: the whole text's
			// places after it are not the pages' own, so scan it.
			text, err := w.b.SpanText()
			if err != nil {
				return err
			}
			l = layoutOf(textmap.Scan(text))
		}
		if err := w.b.EndSpan(w.tree, "full", l); err != nil {
			return err
		}
	} else if err := w.b.PutText(w.tree, "full", t.full, layoutOf(textmap.Scan(t.full))); err != nil {
		return err
	}
	for key, text := range map[string]string{"index": t.index, "outline": t.outline} {
		if err := w.b.PutText(w.tree, key, text, layoutOf(textmap.Scan(text))); err != nil {
			return err
		}
	}
	w.digest.texts(t.index, t.full, w.composed)
	pages := make([]tzctx.Page, len(t.pages))
	for i, p := range t.pages {
		pages[i] = p.Page
	}
	return w.b.PutTree(t.name, t.title, pages)
}

// asciiFolded reports whether lower, the copy lower-cased, is the copy
// with its ASCII letters lower-cased and nothing else changed.
func asciiFolded(copyText, lower string) bool {
	if len(copyText) != len(lower) {
		return false
	}
	for i := 0; i < len(copyText); i++ {
		c := copyText[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// fullLayout composes the layout of a tree's composed whole text (the
// pages, each ending in a line end, joined by blank lines) from the
// pages' own layouts, which holds while every page ends outside fenced
// code and comments: a blank line between two pages is then a place, and
// every page's places are its own, moved by its offset.
type fullLayout struct {
	l      store.Layout
	broken bool
}

func (f *fullLayout) add(copyText string, m *textmap.Map) {
	if f.broken {
		return
	}
	if !strings.HasSuffix(copyText, "\n") {
		m = textmap.Scan(copyText + "\n")
	}
	if n := len(m.Fences); n > 0 && !m.Fences[n-1].Closed {
		f.broken = true
		return
	}
	if n := len(m.Comments); n > 0 && !m.Comments[n-1].Closed {
		f.broken = true
		return
	}
	off := uint32(f.l.Total)
	if f.l.Total > 0 || len(f.l.LineStarts) > 0 {
		// The blank line before the page.
		f.l.LineStarts = append(f.l.LineStarts, off)
		f.l.Bases = append(f.l.Bases, off)
		off++
	}
	if uint64(off)+uint64(m.Len) > 1<<32-1 {
		f.broken = true
		return
	}
	for _, v := range m.LineStarts {
		f.l.LineStarts = append(f.l.LineStarts, off+v)
	}
	for _, v := range m.Bases {
		f.l.Bases = append(f.l.Bases, off+v)
	}
	f.l.Total = int(off) + m.Len
}

// layout returns the composed layout, or false where it cannot be
// composed and the text must be scanned.
func (f *fullLayout) layout() (store.Layout, bool) {
	if f.broken || len(f.l.LineStarts) == 0 {
		return store.Layout{}, false
	}
	return f.l, true
}
