package query

import (
	"iter"

	"github.com/turnzerocloud/tzctx"
)

// Chunk returns the chunk's text and media type, and the stamp and
// offset that continue the read, next nil at the text's end: what a front
// end reading the text whole takes of the answer, without encoding it.
func (a *Answer) Chunk() (text, mimeType, stamp string, next *int) {
	return a.Text, a.MimeType, a.Stamp, a.NextOffset
}

// ChunkPlace returns the text's ID, the chunk's first code point, the
// text's code points and the continuation ("" for none): with Chunk and
// HeadingLines, every member a front end showing the answer as text needs.
func (a *Answer) ChunkPlace() (id string, offset, total int, continuation string) {
	return a.ID, a.Offset, a.Total, a.Continuation
}

// HeadingLines returns the answer's headings entries in order, each its
// offset and text.
func (a *Answer) HeadingLines() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for _, h := range a.Headings {
			if !yield(h.Offset, h.Text) {
				return
			}
		}
	}
}

// PagePlace returns the page's first entry's offset and the catalog's
// entries.
func (a *ListAnswer) PagePlace() (offset, total int) { return a.Offset, a.Total }

// CatalogPage returns the page's entries, and the stamp and offset of
// the next page, next nil at the catalog's end: what a front end listing
// the whole catalog takes of the answer, without encoding it.
func (a *ListAnswer) CatalogPage() (entries []tzctx.CatalogEntry, stamp string, next *int) {
	return a.Entries, a.Stamp, a.NextOffset
}

// EntrySizes returns the size, in bytes of its UTF-8 text, of each of the
// page's entries in order, -1 where it is not known: what a front end
// that lists entries as resources tells of each. A documentation entry's
// is its text's in the version the page was listed from, and -1 where
// another is served by the time it is called. Nothing is computed unless
// it is called.
func (a *ListAnswer) EntrySizes() []int64 {
	if a.sizes == nil {
		return nil
	}
	return a.sizes()
}

// servedName is the name of the version served now, "" where none is.
func (r *Reader) servedName() string {
	v, err := r.acquire()
	if err != nil {
		return ""
	}
	defer v.Release()
	return v.Name()
}

// entrySizes returns each entry's size, as EntrySizes, the documentation
// entries' from version served alone.
func (r *Reader) entrySizes(entries []tzctx.CatalogEntry, served string) []int64 {
	out := make([]int64, len(entries))
	var v Version
	defer func() {
		if v != nil {
			v.Release()
		}
	}()
	for i, e := range entries {
		out[i] = -1
		if r.cfg.Catalog != nil {
			if it, ok := r.cfg.Catalog.Item(e.ID); ok {
				out[i] = int64(len(it.Text))
				continue
			}
		}
		id, err := r.ParseID(e.ID)
		if err != nil || !id.Listed() {
			continue
		}
		if v == nil {
			if v, err = r.acquire(); err != nil {
				v = nil
				return out
			}
		}
		if served == "" || v.Name() != served {
			continue
		}
		if t := v.Tree(id.Tree); t != nil {
			if txt, err := t.Text(id.Part); err == nil && txt != nil {
				out[i] = int64(len(txt.Bytes()))
			}
		}
	}
	return out
}
