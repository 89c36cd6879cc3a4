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
	return defineIn(c, "list_library", dispatch.Typed(r.ListLibrary, subject(query.SubjectLibrary)), subject(query.SubjectLibrary))
}
