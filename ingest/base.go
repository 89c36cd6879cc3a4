package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// ActiveBase is the Options.Base that names the served version, whichever
// it is when the ingest begins.
const ActiveBase = "active"

// ErrBase is in the chain of every refusal of a built-on ingest's base
// and dropped trees (Options.Base, Options.DropTrees).
var ErrBase = errors.New("the base of the ingest is refused")

// BaseError is a refusal of a built-on ingest's input: what is wrong and
// what to do. It matches ErrBase.
type BaseError struct{ Problem string }

func (e *BaseError) Error() string { return e.Problem }

// Is makes a *BaseError match ErrBase.
func (e *BaseError) Is(target error) bool { return target == ErrBase }

func baseError(format string, a ...any) error {
	return &BaseError{Problem: fmt.Sprintf(format, a...)}
}

// base is the version a built-on ingest carries trees from: opened (and so
// verified in full) for the ingest's life, and the trees it carries, in
// storage order.
type base struct {
	v     *store.Version
	carry []string
}

// openBase opens the base of opts, checks its dropped trees and the trees
// given against it, and returns it with the trees it carries; nil where
// opts names no base. The caller releases it.
func openBase(ctx context.Context, st *store.Store, opts Options, given []TreeSource) (*base, error) {
	if opts.Base == "" {
		if len(opts.DropTrees) > 0 {
			return nil, baseError("--drop-tree %s needs --base: name the version to leave the tree out of (--base active for the served one)", opts.DropTrees[0])
		}
		return nil, nil
	}
	name := opts.Base
	if name == ActiveBase {
		active, err := st.ActiveName()
		if err != nil {
			return nil, err
		}
		if active == "" {
			return nil, baseError("--base active: no version is served yet; ingest every tree without --base, or name a stored version with --base NAME")
		}
		name = active
	}
	if _, err := st.Lookup(name); err != nil {
		return nil, fmt.Errorf("--base %s: %w", opts.Base, err)
	}
	v, err := st.OpenVersion(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", opts.Base, err)
	}
	names := v.TreeNames()
	isGiven := map[string]bool{}
	for _, s := range given {
		isGiven[s.Name] = true
	}
	dropped := map[string]bool{}
	for _, d := range opts.DropTrees {
		switch {
		case isGiven[d]:
			v.Release()
			return nil, baseError("tree %s is both given with --tree and dropped with --drop-tree; give one of the two", d)
		case !slices.Contains(names, d):
			v.Release()
			return nil, baseError("--drop-tree %s: version %s has no tree %s (its trees: %s); drop one of those, or leave the flag out", d, name, d, strings.Join(names, ", "))
		}
		dropped[d] = true
	}
	b := &base{v: v}
	for _, n := range names {
		if !isGiven[n] && !dropped[n] {
			b.carry = append(b.carry, n)
		}
	}
	if len(b.carry)+len(given) == 0 {
		v.Release()
		return nil, baseError("every tree of version %s is dropped and none is given; keep a tree, or give one with --tree NAME=DIR", name)
	}
	if n := len(b.carry) + len(given); n > tzctx.MaxTrees {
		v.Release()
		return nil, baseError("the version would hold %d trees, more than the bound of %d; drop trees with --drop-tree NAME", n, tzctx.MaxTrees)
	}
	return b, nil
}

// name returns the base's version name.
func (b *base) name() string { return b.v.Name() }

// pages counts the pages of the trees the base carries.
func (b *base) pages() int {
	n := 0
	for _, name := range b.carry {
		n += len(b.v.Tree(name).Pages)
	}
	return n
}

// library returns the base's library as ingest reads one, its files' bytes
// read from the base.
func (b *base) library() ([]libraryEntry, error) {
	rows, err := b.v.Library()
	if err != nil {
		return nil, fmt.Errorf("the library of the base %s: %w", b.name(), err)
	}
	out := make([]libraryEntry, 0, len(rows))
	for _, r := range rows {
		e := libraryEntry{LibraryEntry: r}
		for _, f := range r.Files {
			data, err := b.v.LibraryBytes(f)
			if err != nil {
				return nil, fmt.Errorf("file %s of library entry %s of the base %s: %w", f.Path, r.Name, b.name(), err)
			}
			e.files = append(e.files, libraryFile{LibraryFile: f, data: data})
		}
		out = append(out, e)
	}
	return out, nil
}

// carryTree stores the base's tree name through w as ingest stored it
// first: every page's copy, title, description and headings as the base
// holds them, and the tree's index, whole text and outline. Nothing is read
// from a folder. The pages' index documents and sections are taken from
// the base where it was derived by these rules (treeWriter.reusable), and
// derived as a whole ingest derives them otherwise; either way the
// version answers as one ingested whole.
func carryTree(ctx context.Context, w *treeWriter, bt *store.Tree) (*loadedTree, error) {
	text := func(key string) (string, error) {
		x, err := bt.Text(key)
		if err == nil && x == nil {
			err = errors.New("it is missing")
		}
		if err != nil {
			return "", fmt.Errorf("the base's text %s of tree %s: %w", key, bt.Name, err)
		}
		return string(x.Bytes()), nil
	}
	full, err := text("full")
	if err != nil {
		return nil, err
	}
	t := &loadedTree{name: bt.Name, title: bt.Title, pages: make([]loadedPage, 0, len(bt.Pages))}
	// The whole text was composed of the pages where it is their
	// composition, byte for byte; else it was the tree's llms-full.txt.
	if t.composed, err = composedOf(ctx, bt, full); err != nil {
		return nil, err
	}
	w.composed = t.composed
	if err := w.begin(); err != nil {
		return nil, err
	}
	for _, pg := range bt.Pages {
		cp, err := text(pg.Route)
		if err != nil {
			return nil, err
		}
		hs, err := bt.Headings(pg.Route)
		if err != nil {
			return nil, fmt.Errorf("the base's headings of page %s: %w", pg.Route, err)
		}
		p := loadedPage{Page: pg, copy: cp, scan: textmap.Scan(cp), headings: hs}
		t.bytes += int64(len(cp))
		t.headings += len(hs)
		if err := w.page(ctx, &p); err != nil {
			return nil, err
		}
		t.pages = append(t.pages, p)
	}
	if t.index, err = text("index"); err != nil {
		return nil, err
	}
	if t.outline, err = text("outline"); err != nil {
		return nil, err
	}
	if !t.composed {
		t.full = full
	}
	return t, w.finish(t)
}

// composedOf reports whether full is the whole text treeWriter composes
// of the tree's pages: each page's copy, ending in a line end, the pages
// joined by blank lines.
func composedOf(ctx context.Context, bt *store.Tree, full string) (bool, error) {
	h := sha256.New()
	n := 0
	for i, pg := range bt.Pages {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		x, err := bt.Text(pg.Route)
		if err != nil || x == nil {
			return false, fmt.Errorf("the base's text of page %s is unreadable", pg.Route)
		}
		raw := x.Bytes()
		if i > 0 {
			h.Write([]byte("\n"))
			n++
		}
		h.Write(raw)
		n += len(raw)
		if !bytes.HasSuffix(raw, []byte("\n")) {
			h.Write([]byte("\n"))
			n++
		}
		if n > len(full) {
			return false, nil
		}
	}
	if n != len(full) {
		return false, nil
	}
	sum := sha256.Sum256([]byte(full))
	return bytes.Equal(h.Sum(nil), sum[:]), nil
}

// treeMeta returns the base's record of its tree name: its counts, and
// how and when it was read, its Read set to the base's creation where the
// base predates the record.
func (b *base) treeMeta(name string) store.TreeMeta {
	m := b.v.Meta()
	for _, t := range m.Trees {
		if t.Name == name {
			if t.Read.IsZero() {
				t.Read = m.Created
			}
			return t
		}
	}
	return store.TreeMeta{Name: name, Read: m.Created}
}
