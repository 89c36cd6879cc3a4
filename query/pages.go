package query

import (
	"context"
	"slices"

	"github.com/turnzerocloud/tzctx"
)

// Pages returns the pages of tree in the served version, in index order,
// where the caller of ctx may read the tree; none where it may not, the
// tree is not served or no version is.
func (r *Reader) Pages(ctx context.Context, tree string) ([]tzctx.Page, error) {
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(readable, tree) {
		return nil, nil
	}
	v, err := r.versions.Acquire()
	if err != nil {
		return nil, nil
	}
	defer v.Release()
	t := v.Tree(tree)
	if t == nil {
		return nil, nil
	}
	return slices.Clone(t.Pages()), nil
}
