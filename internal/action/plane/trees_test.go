package plane

import (
	"context"
	"slices"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
)

// noVersion serves no version.
type noVersion struct{}

func (noVersion) Acquire() (query.Version, error) { return nil, query.ErrNoVersion }

// TestTreesTellTheConfiguredTrees: the trees a front end reads beside
// its calls are the reader's, with each tree's configured title and
// description; over no reader they are the contract's, with no text,
// page or summary.
func TestTreesTellTheConfiguredTrees(t *testing.T) {
	limits, err := Limits()
	if err != nil {
		t.Fatal(err)
	}
	reader := query.NewReader(query.Config{Limits: limits, Trees: []query.TreeConfig{
		{Name: "guides", Description: "How to.", Access: "anonymous"}, {Name: "api", Title: "The API", Access: "anonymous"},
	}}, noVersion{})
	d, err := New(reader, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrees(d, reader)
	if got := tr.TreeNames(); !slices.Equal(got, []string{"guides", "api"}) {
		t.Errorf("TreeNames = %v; want the configured trees", got)
	}
	if got, want := tr.TreeText("guides"), (dispatch.TreeText{Description: "How to."}); got != want {
		t.Errorf("TreeText(guides) = %+v, want %+v", got, want)
	}
	if got, want := tr.TreeText("api"), (dispatch.TreeText{Title: "The API"}); got != want {
		t.Errorf("TreeText(api) = %+v, want %+v", got, want)
	}

	plain := NewTrees(nil, nil)
	ctx := context.Background()
	if got, err := plain.Trees(ctx); err != nil || !slices.Equal(got, tzctx.DefaultTrees) {
		t.Errorf("Trees over no reader = %v, %v; want the contract's %v", got, err, tzctx.DefaultTrees)
	}
	if got := plain.TreeNames(); !slices.Equal(got, tzctx.DefaultTrees) {
		t.Errorf("TreeNames over no reader = %v, want the contract's %v", got, tzctx.DefaultTrees)
	}
	if got := plain.TreeText("cloud"); got != (dispatch.TreeText{}) {
		t.Errorf("TreeText over no reader = %+v, want none", got)
	}
	if pages, err := plain.Pages(ctx, "cloud"); pages != nil || err != nil {
		t.Errorf("Pages over no reader = %v, %v; want none", pages, err)
	}
	if trees, lib, err := plain.Summary(ctx); trees != nil || lib || err != nil {
		t.Errorf("Summary over no reader = %v, %v, %v; want none", trees, lib, err)
	}
}
