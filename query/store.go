package query

import (
	"context"
	"errors"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/store"
	"github.com/turnzerocloud/tzctx/store/sections"
)

// This file is the one place query reads package store: it adapts the
// store's bbolt-and-bleve layout to the interfaces the reader reads
// through (Versions, Version, Tree, Text). The adapters are single
// pointers, so handing one out as an interface allocates nothing.

// FromStore returns the Versions s serves, for NewReader.
func FromStore(s *store.Store) Versions { return storeVersions{s} }

// StoreVersion returns v as the reader reads it.
func StoreVersion(v *store.Version) Version { return storeVersion{v} }

// StoreWarm returns warm, such as a Reader's Warm, as a store.WarmFunc,
// for (*store.Store).SetWarm.
func StoreWarm(warm func(context.Context, Version) error) store.WarmFunc {
	return func(ctx context.Context, v *store.Version) error { return warm(ctx, storeVersion{v}) }
}

type storeVersions struct{ s *store.Store }

func (s storeVersions) Acquire() (Version, error) {
	v, err := s.s.Acquire()
	if err != nil {
		if errors.Is(err, store.ErrNoVersion) {
			return nil, ErrNoVersion
		}
		return nil, err
	}
	return storeVersion{v}, nil
}

type storeVersion struct{ v *store.Version }

// storeFields are the store's index fields, by Field.
var storeFields = [...]string{FieldAll: store.FieldAll, FieldTitle: store.FieldTitle, FieldHeadings: store.FieldHeadings}

func (v storeVersion) Name() string { return v.v.Name() }

// Created returns when the version was built, which search_documentation
// answers.
func (v storeVersion) Created() time.Time { return v.v.Meta().Created }
func (v storeVersion) Release()           { v.v.Release() }
func (v storeVersion) PageCount() int     { return v.v.PageCount() }

func (v storeVersion) TreeNames() []string { return v.v.TreeNames() }

func (v storeVersion) Tree(name string) Tree {
	if t := v.v.Tree(name); t != nil {
		return storeTree{t}
	}
	return nil
}

func (v storeVersion) Candidates(ctx context.Context, field Field, gram string, set []uint64) error {
	return v.v.Postings(ctx, storeFields[field], gram, set)
}

// Sections returns the version's stored section index, nil where it was
// built before ingest stored it.
func (v storeVersion) Sections() *sections.Index { return v.v.Sections() }

func (v storeVersion) Memo(key any, f func(Version) (any, error)) (any, error) {
	return v.v.Memo(key, func() (any, error) { return f(v) })
}

type storeTree struct{ t *store.Tree }

func (t storeTree) Title() string              { return t.t.Title }
func (t storeTree) Pages() []tzctx.Page        { return t.t.Pages }
func (t storeTree) First() int                 { return t.t.First }
func (t storeTree) PageIndex(route string) int { return t.t.PageIndex(route) }

func (t storeTree) Text(key string) (Text, error) {
	txt, err := t.t.Text(key)
	if txt == nil {
		return nil, err
	}
	return txt, err
}

func (t storeTree) Headings(route string) ([]tzctx.Heading, error) { return t.t.Headings(route) }

func (t storeTree) SearchBody(route string) ([]byte, bool) { return t.t.SearchBody(route) }

var (
	_ Versions       = storeVersions{}
	_ Version        = storeVersion{}
	_ Tree           = storeTree{}
	_ sectionVersion = storeVersion{}
	_ Text           = (*store.Text)(nil)
)

// Library implements LibraryVersion: the store's library catalog, nil
// where the version holds none.
func (v storeVersion) Library() (Library, error) {
	got, err := v.v.Memo(storeLibraryKey{}, func() (any, error) {
		entries, err := v.v.Library()
		if err != nil || entries == nil {
			return (*storeLibrary)(nil), err
		}
		l := &storeLibrary{v: v.v, raw: entries}
		for _, e := range entries {
			le := LibraryEntry{Name: e.Name, Version: e.Version, Kind: e.Kind, Title: e.Title, Description: e.Description, Access: Access(e.Access), Digest: e.Digest}
			for _, f := range e.Files {
				le.Files = append(le.Files, LibraryFile{Path: f.Path, Size: f.Size, MimeType: f.MimeType, Text: f.Text, Sum: f.Sum})
			}
			l.entries = append(l.entries, le)
		}
		return l, nil
	})
	if err != nil {
		return nil, err
	}
	if l := got.(*storeLibrary); l != nil {
		return l, nil
	}
	return nil, nil
}

type storeLibraryKey struct{}

type storeLibrary struct {
	v       *store.Version
	raw     []store.LibraryEntry
	entries []LibraryEntry
}

func (l *storeLibrary) Entries() []LibraryEntry { return l.entries }

func (l *storeLibrary) FileBytes(entry, file int) ([]byte, error) {
	return l.v.LibraryBytes(l.raw[entry].Files[file])
}

var _ LibraryVersion = storeVersion{}
