package query

import (
	"context"
	"fmt"

	"github.com/turnzerocloud/tzctx"
)

// ContextRequest is a read_context request.
type ContextRequest struct {
	ID string `json:"id"`
	Paging
}

// ReadContext answers read_context: an entry of the contract set that
// this caller may list, or one of the documentation IDs it accepts,
// docs:<tree> and docs:<tree>:full. Any other ID, an entry hidden from
// this caller included, answers context_not_found. It returns the record
// subject.
func (r *Reader) ReadContext(ctx context.Context, req ContextRequest, listable Listable) (*Answer, string, error) {
	subject := r.ContextSubject(req.ID)
	if err := checkPaging(req.Paging); err != nil {
		return nil, subject, err
	}
	notFound := func() error {
		// The ID is not echoed: one that names no entry is the
		// caller's free text, and a hidden entry is answered
		// as an unknown one.
		return tzctx.Errorf(tzctx.ContextNotFound, "the ID names no entry in the catalog; list_context lists the IDs read_context reads")
	}
	selector := fmt.Sprintf("id %q", req.ID)
	if r.cfg.Catalog != nil {
		if it, ok := r.cfg.Catalog.Item(req.ID); ok {
			if !visible(it, listable) {
				return nil, subject, notFound()
			}
			a, err := r.answer(read{t: r.catalogText(it, r.limit(req.Paging)), id: req.ID, mime: it.MimeType, action: "read_context", selector: selector}, req.Paging)
			return a, subject, err
		}
	}
	id, err := r.ParseID(req.ID)
	if err != nil || !id.Listed() {
		return nil, subject, notFound()
	}
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, subject, err
	}
	if !contains(readable, id.Tree) {
		return nil, subject, notFound()
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	_, txt, err := treeText(v, id.Tree, id.Part, partWhat(id.Part), readable)
	if err != nil {
		return nil, subject, err
	}
	a, err := r.answer(read{t: txt, id: req.ID, action: "read_context", selector: selector, version: v.Name()}, req.Paging)
	return a, subject, err
}
