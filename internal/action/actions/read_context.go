package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// ContextReader answers read_context; *query.Reader is one.
type ContextReader interface {
	ReadContext(ctx context.Context, req query.ContextRequest, listable query.Listable) (*query.Answer, string, error)
	// RefusedContextSubject is the record subject of a call refused
	// before ReadContext runs: never an ID that names no catalog entry.
	RefusedContextSubject(args map[string]any, idMax int) string
}

var _ ContextReader = (*query.Reader)(nil)

// ReadContext returns the read_context action, answered by r: one catalog
// entry by its content ID, among those reg lets the caller list. A
// call refused before r runs is recorded under the subject r gives its ID
// where that is within limits.IDMaxLength.
func ReadContext(c *schemas.Contract, r ContextReader, limits schemas.Limits, reg Registry) *dispatch.Action {
	read := func(ctx context.Context, req query.ContextRequest) (*query.Answer, string, error) {
		return r.ReadContext(ctx, req, listable(ctx, reg))
	}
	return defineIn(c, "read_context", dispatch.Typed(read, subject("")), func(args map[string]any) string {
		return r.RefusedContextSubject(args, limits.IDMaxLength)
	})
}
