package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// DocumentationReader answers read_documentation; *query.Reader is one.
type DocumentationReader interface {
	ReadDocumentation(ctx context.Context, req query.DocRequest) (*query.Answer, string, error)
}

var _ DocumentationReader = (*query.Reader)(nil)

// ReadDocumentation returns the read_documentation action, answered by r:
// a tree's index, whole text or outline, one page, or a search (CTX-07).
func ReadDocumentation(c *schemas.Contract, r DocumentationReader) *dispatch.Action {
	// A refused call's subject names a tree only where the reader serves
	// it; the reader knows its configured trees.
	refused := query.RefusedDocSubject
	if rs, ok := r.(interface{ RefusedDocSubject(map[string]any) string }); ok {
		refused = rs.RefusedDocSubject
	}
	return defineIn(c, "read_documentation", dispatch.Typed(r.ReadDocumentation, subject(query.ContentID{}.Marker())), refused)
}
