package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// DocumentationSearcher answers search_documentation; *query.Reader is
// one.
type DocumentationSearcher interface {
	SearchDocumentation(ctx context.Context, req query.SearchRequest) (*query.SearchAnswer, string, error)
}

var (
	_ DocumentationSearcher = (*query.Reader)(nil)
	// The call's record names the version and the code points served.
	_ dispatch.Served = (*query.SearchAnswer)(nil)
)

// SearchDocumentation returns the search_documentation action, answered
// by r: the sections best for a question, packed into a budget. Every
// call's record subject is the bare search marker, never the query's
// words.
func SearchDocumentation(c *schemas.Contract, r DocumentationSearcher) *dispatch.Action {
	return defineIn(c, "search_documentation", dispatch.Typed(r.SearchDocumentation, subject(query.SearchSubject(""))), subject(query.SearchSubject("")))
}
