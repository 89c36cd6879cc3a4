package api_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/internal/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

type contextT = context.Context

func ingestTree(name, site string) ingest.TreeSource {
	return ingest.TreeSource{Name: name, Dir: filepath.Join(site, name)}
}

// storedText reads a whole text of the sample version from the store: the
// ground truth the HTTP answers are checked against.
func storedText(t *testing.T, tree, key string) string {
	t.Helper()
	v, err := sample.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	txt, err := v.Tree(tree).Text(key)
	if err != nil || txt == nil {
		t.Fatalf("no stored text %s %s: %v", tree, key, err)
	}
	return txt.Slice(0, txt.Total())
}

// recorders sends each record to several recorders.
type recorders []dispatch.Recorder

func (rs recorders) Record(ctx context.Context, r dispatch.Record) {
	for _, x := range rs {
		x.Record(ctx, r)
	}
}

func testkitSite(t *testing.T) string { return testkit.SampleSite(t) }

func ingestSite(t *testing.T, trees ...ingest.TreeSource) *store.Store {
	return testkit.Ingest(t, trees...)
}
