package query

import "github.com/turnzerocloud/tzctx"

// Chunk returns the chunk's text and media type, and the stamp and
// offset that continue the read, next nil at the text's end: what a front
// end reading the text whole takes of the answer, without encoding it.
func (a *Answer) Chunk() (text, mimeType, stamp string, next *int) {
	return a.Text, a.MimeType, a.Stamp, a.NextOffset
}

// CatalogPage returns the page's entries, and the stamp and offset of
// the next page, next nil at the catalog's end: what a front end listing
// the whole catalog takes of the answer, without encoding it.
func (a *ListAnswer) CatalogPage() (entries []tzctx.CatalogEntry, stamp string, next *int) {
	return a.Entries, a.Stamp, a.NextOffset
}

// EntrySizes returns the size, in bytes of its UTF-8 text, of each of the
// page's entries in order, -1 where it is not known: what a front end
// that lists entries as resources tells of each. A documentation entry's
// is its text's in the version served when it is called. Nothing is
// computed unless it is called.
func (a *ListAnswer) EntrySizes() []int64 {
	if a.sizes == nil {
		return nil
	}
	return a.sizes()
}

// entrySizes returns each entry's size, as EntrySizes.
func (r *Reader) entrySizes(entries []tzctx.CatalogEntry) []int64 {
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
		if t := v.Tree(id.Tree); t != nil {
			if txt, err := t.Text(id.Part); err == nil && txt != nil {
				out[i] = int64(len(txt.Bytes()))
			}
		}
	}
	return out
}
