package actions

import (
	"context"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// LibraryEntryReader answers read_library_entry; *query.Reader is one.
type LibraryEntryReader interface {
	ReadLibraryEntry(ctx context.Context, req query.LibraryReadRequest) (*query.Answer, string, error)
}

var _ LibraryEntryReader = (*query.Reader)(nil)

// ReadLibraryEntry returns the read_library_entry action, answered by r:
// one file of a library entry, or its file list, paged as read_context
// pages. A call refused before r runs is recorded under the library, never
// under the caller's name or path.
func ReadLibraryEntry(c *schemas.Contract, r LibraryEntryReader) *dispatch.Action {
	return defineIn(c, "read_library_entry", dispatch.Typed(r.ReadLibraryEntry, subject(query.SubjectLibrary)), subject(query.SubjectLibrary))
}
