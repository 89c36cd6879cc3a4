package plane

import (
	"context"
	"encoding/json"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
)

// Trees is what a front end tells of the trees served beside its calls
// (mcp.TreeReader): which trees a caller can read, every configured
// tree's name, title and description, a tree's pages and a summary of
// what is served. It reads them from the reader the actions answer from;
// over no reader it tells the contract's trees, with no text, page or
// summary. Package server builds it beside the dispatcher and wires it
// into the front end that reads it.
type Trees struct {
	calls  caller
	reader *query.Reader
	// texts hold what the configuration says of each tree beside its
	// name, by name.
	texts map[string]dispatch.TreeText
}

// caller is the call pipeline a page list is read through (the
// dispatcher).
type caller interface {
	Call(ctx context.Context, name string, args map[string]any) (any, error)
}

// NewTrees returns the trees reader answers for, whose page lists are
// read through d's call pipeline; reader may be nil.
func NewTrees(d *dispatch.Dispatcher, reader *query.Reader) *Trees {
	t := &Trees{calls: d, reader: reader, texts: map[string]dispatch.TreeText{}}
	if reader != nil {
		for _, c := range reader.Config().Trees {
			if c.Title != "" || c.Description != "" {
				t.texts[c.Name] = dispatch.TreeText{Title: c.Title, Description: c.Description}
			}
		}
	}
	return t
}

// Trees returns the documentation trees the caller of ctx (its identity,
// tzctx.IdentityFrom) can read in the served version, which a front end
// lists (MCP's tool schema); all of them (TreeNames) over no reader.
func (t *Trees) Trees(ctx context.Context) ([]string, error) {
	if t.reader == nil {
		return t.TreeNames(), nil
	}
	return t.reader.Trees(ctx)
}

// TreeNames returns every configured tree in order: the reader's, else
// the contract's (tzctx.DefaultTrees).
func (t *Trees) TreeNames() []string {
	if t.reader == nil {
		return append([]string(nil), tzctx.DefaultTrees...)
	}
	return t.reader.TreeNames()
}

// TreeText returns what the configuration says of tree beside its name,
// its title where it gives none that the reader gives (query.Reader's
// TreeTitle); the zero TreeText where neither says anything.
func (t *Trees) TreeText(tree string) dispatch.TreeText {
	tt := t.texts[tree]
	if t.reader != nil && tt.Title == "" {
		tt.Title = t.reader.TreeTitle(tree)
	}
	return tt
}

// Pages returns the pages of tree (routes and titles) the caller of ctx
// may read in the served version, after a read of the tree's index (its
// first code point) that refuses what a read of the tree would and is
// recorded as one: a completion counts as the read it stands for. It
// returns none over no reader.
func (t *Trees) Pages(ctx context.Context, tree string) ([]tzctx.Page, error) {
	if t.reader == nil {
		return nil, nil
	}
	if _, err := t.calls.Call(ctx, "read_documentation", map[string]any{"tree": tree, "limit": json.Number("1")}); err != nil {
		return nil, err
	}
	return t.reader.Pages(ctx, tree)
}

// Summary returns what is served to the caller of ctx: each tree it may
// read with its title, description and page count, and whether the
// served version holds a library entry it may read; none over no
// reader. It is no call of an action and is not recorded.
func (t *Trees) Summary(ctx context.Context) ([]tzctx.TreeSummary, bool, error) {
	if t.reader == nil {
		return nil, false, nil
	}
	return t.reader.Summary(ctx)
}
