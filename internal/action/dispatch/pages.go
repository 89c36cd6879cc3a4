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
