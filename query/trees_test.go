package query

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// twinStore stores the sample's cloud tree twice, as alpha and beta, so
// that every page of one ties with its twin in the other; the store keeps
// them in name order (alpha first).
func twinStore(t *testing.T) *store.Store {
	t.Helper()
	cloud := filepath.Join(testkit.SampleSite(t), "cloud")
	data := t.TempDir()
	testkit.IngestInto(t, data, "twins", true, ingest.TreeSource{Name: "beta", Dir: cloud}, ingest.TreeSource{Name: "alpha", Dir: cloud})
	st, err := store.OpenExisting(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConfiguredTreeOrder: the configured order, not the store's, orders
// the catalog, a tree-less search's ties and the trees a refusal names;
// a configured title names the catalog's entries.
func TestConfiguredTreeOrder(t *testing.T) {
	t.Parallel()
	st := twinStore(t)
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TreeNames(); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Errorf("stored order %v, want name order", got)
	}
	v.Release()
	r := NewReader(Config{Limits: testLimits(), Trees: []TreeConfig{
		{Name: "beta", Title: "Beta docs", Access: "anonymous"},
		{Name: "gated", Title: "Gated", Access: "signed_in"},
		{Name: "alpha", Title: "Alpha docs", Access: "anonymous"},
	}}, FromStore(st))
	ctx := context.Background()

	entries, err := r.Catalog(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ID+"|"+e.Title)
	}
	if want := []string{"docs:beta|Beta docs: index", "docs:beta:full|Beta docs: whole text", "docs:alpha|Alpha docs: index", "docs:alpha:full|Alpha docs: whole text"}; !slices.Equal(got, want) {
		t.Errorf("catalog %q, want %q", got, want)
	}

	a, _, err := r.ReadDocumentation(ctx, DocRequest{Query: str("stamp offset")})
	if err != nil {
		t.Fatal(err)
	}
	routes := regexp.MustCompile(`\]\(/(alpha|beta)/([^)]*)\)`).FindAllStringSubmatch(a.Text, -1)
	if len(routes) < 4 {
		t.Fatalf("too few hits to see ties:\n%s", a.Text)
	}
	// Twins tie, and a tie goes to the tree configured first: each alpha
	// page comes after its beta twin, and the first hit is beta's.
	seen := map[string]bool{}
	for i, m := range routes {
		if m[1] == "beta" {
			seen[m[2]] = true
		} else if !seen[m[2]] {
			t.Fatalf("hit %d, %s, comes before its beta twin:\n%s", i, m[0], a.Text)
		}
	}
	if routes[0][1] != "beta" {
		t.Errorf("the first hit is %s, not beta's", routes[0][0])
	}

	_, _, err = r.ReadDocumentation(ctx, DocRequest{Tree: str("gated")})
	var te *tzctx.Error
	if !errors.As(err, &te) || te.Code != tzctx.InvalidRequest || !strings.HasSuffix(te.Detail, "it may read beta and alpha") {
		t.Errorf("refusal of the gated tree: %v", err)
	}
	// A tree of the contract is no tree of this reader: its IDs do not
	// parse, and naming it is refused as any unknown tree.
	if _, err := r.ParseID("docs:cloud"); !errors.Is(err, ErrInvalidID) {
		t.Errorf("ParseID(docs:cloud) = %v", err)
	}
	if id, err := r.ParseID("docs:beta:page:guides/reading"); err != nil || id.Tree != "beta" {
		t.Errorf("ParseID(docs:beta:page:…) = %+v, %v", id, err)
	}
	if _, _, err := r.ReadDocumentation(ctx, DocRequest{Page: str("/cloud/")}); err == nil {
		t.Error("a page of an unconfigured tree was read")
	}
}
