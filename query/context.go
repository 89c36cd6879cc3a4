package query

import (
	"context"
	"fmt"
	"strings"

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
	tree, part, ok := parseDocID(req.ID)
	if !ok || !r.cfg.mayRead(tzctx.IdentityFrom(ctx), tree) {
		return nil, subject, tzctx.Errorf(tzctx.ContextNotFound, "no entry %q in the catalog; list_context lists the IDs read_context reads", req.ID)
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	_, txt, err := treeText(v, tree, part, partWhat(part))
	if err != nil {
		return nil, subject, err
	}
	a, err := r.answer(read{t: txt, id: req.ID, action: "read_context", selector: fmt.Sprintf("id %q", req.ID)}, req.Paging)
	return a, subject, err
}

// parseDocID splits a catalog documentation ID into tree and part.
func parseDocID(id string) (tree, part string, ok bool) {
	rest, found := strings.CutPrefix(id, "docs:")
	if !found {
		return "", "", false
	}
	tree, suffix, hasSuffix := strings.Cut(rest, ":")
	if !tzctx.IsTree(tree) {
		return "", "", false
	}
	switch {
	case !hasSuffix:
		return tree, "index", true
	case suffix == "full":
		return tree, "full", true
	}
	return "", "", false
}

// docID composes the identifier of a tree's part.
func docID(tree, part string) string {
	if part == "index" {
		return "docs:" + tree
	}
	return "docs:" + tree + ":" + part
}
