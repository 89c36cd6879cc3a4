package api

import (
	"context"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
	"github.com/turnzerocloud/tzctx/query"
)

// The cache reads the reader's answers through its own interface.
var _ storedText = (*query.Answer)(nil)

// TestAnswerCacheKeepsNoSearchAnswer: a page's text is kept, and a
// search's answer, composed from the caller's words, never is, however
// long; both encode as jsonwire encodes them.
func TestAnswerCacheKeepsNoSearchAnswer(t *testing.T) {
	t.Parallel()
	st, err := testkit.SampleStoreIn(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	limits, err := plane.Limits()
	if err != nil {
		t.Fatal(err)
	}
	r := query.NewReader(query.Config{Limits: limits}, query.FromStore(st))
	page, q, limit := "/cloud/reference/http/", "the", 16000
	ctx := context.Background()
	pa, _, err := r.ReadDocumentation(ctx, query.DocRequest{Page: &page, Paging: query.Paging{Limit: &limit}})
	if err != nil {
		t.Fatal(err)
	}
	sa, _, err := r.ReadDocumentation(ctx, query.DocRequest{Query: &q, Paging: query.Paging{Limit: &limit}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Text) < minCachedText || len(pa.Text) < minCachedText {
		t.Fatalf("texts of %d and %d bytes; the test needs both over %d", len(pa.Text), len(sa.Text), minCachedText)
	}
	c := newTextCache(32 << 20)
	for range 2 {
		for _, a := range []*query.Answer{pa, sa} {
			got, err := c.appendAnswer(nil, a)
			want, werr := jsonwire.Append(nil, a)
			if err != nil || werr != nil || string(got) != string(want) {
				t.Fatalf("the answer of %s encodes otherwise than jsonwire's (%v, %v)", a.ID, err, werr)
			}
		}
	}
	if len(c.m) != 1 {
		t.Fatalf("the cache keeps %d texts, want 1, the page's", len(c.m))
	}
	for k := range c.m {
		if k.stamp != pa.Stamp {
			t.Errorf("the cache keeps the text of stamp %s, not the page's %s", k.stamp, pa.Stamp)
		}
	}
}
