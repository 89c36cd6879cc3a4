package dispatch

import (
	"context"
	"encoding/json"

	"github.com/turnzerocloud/tzctx"
)

// Pages lists the pages of a documentation tree in the served version,
// for a front end that completes page routes (MCP's completion/complete).
// The reader is one.
type Pages interface {
	// Pages returns the pages of tree, in index order, where the caller
	// of ctx may read it in the served version; none otherwise.
	Pages(ctx context.Context, tree string) ([]tzctx.Page, error)
}

// Pages returns the pages of tree (routes and titles) the caller of ctx
// may read in the served version, after a read of the tree's index
// (its first code point) that refuses what a read of the tree would and
// is recorded as one: a completion counts as the read it stands for. It
// returns none where the dispatcher's Trees lists no pages.
func (d *Dispatcher) Pages(ctx context.Context, tree string) ([]tzctx.Page, error) {
	p, ok := d.trees.(Pages)
	if !ok {
		return nil, nil
	}
	if _, err := d.Call(ctx, "read_documentation", map[string]any{"tree": tree, "limit": json.Number("1")}); err != nil {
		return nil, err
	}
	return p.Pages(ctx, tree)
}

// Summarizer says what is served to a caller, for a front end that tells
// a caller first what it may read (MCP's instructions). The reader is
// one.
type Summarizer interface {
	// Summary returns each tree the caller of ctx may read in the served
	// version, with its title, description and page count, and whether
	// the version holds a library entry the caller may read.
	Summary(ctx context.Context) ([]tzctx.TreeSummary, bool, error)
}

// Summary returns what the dispatcher's Trees say is served to the
// caller of ctx (its identity, tzctx.IdentityFrom), as Trees does;
// none where the Trees say nothing. It is no call of an action and is
// not recorded.
func (d *Dispatcher) Summary(ctx context.Context) ([]tzctx.TreeSummary, bool, error) {
	s, ok := d.trees.(Summarizer)
	if !ok {
		return nil, false, nil
	}
	return s.Summary(ctx)
}
