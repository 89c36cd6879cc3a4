package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// CatalogLister answers list_context; *query.Reader is one.
type CatalogLister interface {
	ListContext(ctx context.Context, req query.ListRequest, listable query.Listable) (*query.ListAnswer, string, error)
}

var _ CatalogLister = (*query.Reader)(nil)

// ListContext returns the list_context action, answered by r: the
// catalog this caller may see, a page of entries at a time (CTX-07), the
// skills and payloads filtered by what reg lets the caller list. Every
// call is recorded under the catalog.
func ListContext(c *schemas.Contract, r CatalogLister, reg Registry) *dispatch.Action {
	list := func(ctx context.Context, req query.ListRequest) (*query.ListAnswer, string, error) {
		return r.ListContext(ctx, req, listable(ctx, reg))
	}
	return defineIn(c, "list_context", dispatch.Typed(list, subject(query.SubjectCatalog)), subject(query.SubjectCatalog))
}
