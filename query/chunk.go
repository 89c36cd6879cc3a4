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
