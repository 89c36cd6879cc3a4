package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// LibraryLister answers list_library; *query.Reader is one.
type LibraryLister interface {
	ListLibrary(ctx context.Context, req query.LibraryListRequest) (*query.LibraryListAnswer, string, error)
}

var _ LibraryLister = (*query.Reader)(nil)

// ListLibrary returns the list_library action, answered by r: the
// library catalog this caller may read, a page of entries at a time, each
// entry's status against the installed rows where they are given. Every
// call is recorded under the library.
func ListLibrary(c *schemas.Contract, r LibraryLister) *dispatch.Action {
	return defineIn(c, "list_library", func(ctx context.Context, args map[string]any) (any, string, error) {
		var req query.LibraryListRequest
		if err := dispatch.Bind(args, &req); err != nil {
			return nil, query.SubjectLibrary, err
		}
		return r.ListLibrary(ctx, req)
	}, func(map[string]any) string { return query.SubjectLibrary })
}
