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

// ReadContext answers read_context for the documentation IDs it accepts
// docs:<tree> and docs:<tree>:full. It returns the record subject.
func (r *Reader) ReadContext(ctx context.Context, req ContextRequest) (*Answer, string, error) {
	subject := req.ID
	if err := checkPaging(req.Paging); err != nil {
		return nil, subject, err
	}
	id, err := ParseID(req.ID)
	if err != nil || !id.Listed() || !r.cfg.mayRead(tzctx.IdentityFrom(ctx), id.Tree) {
		return nil, subject, tzctx.Errorf(tzctx.ContextNotFound, "no entry %q in the catalog; list_context lists the IDs read_context reads", req.ID)
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	_, txt, err := treeText(v, id.Tree, id.Part, partWhat(id.Part))
	if err != nil {
		return nil, subject, err
	}
	a, err := r.answer(read{t: txt, id: req.ID, action: "read_context", selector: fmt.Sprintf("id %q", req.ID)}, req.Paging)
	return a, subject, err
}
