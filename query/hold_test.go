package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/hold"
	"github.com/turnzerocloud/tzctx/store"
)

// TestHeldReadOutlivesVersionSwitch: a page read under a request's
// holder answers the stored text itself, which stays readable after the
// served version is switched away and the store drops its reference, and
// until the holder releases it; the answer equals a copying read's. A
// read that did not keep the version would read the unmapped file after
// the switch and fault.
func TestHeldReadOutlivesVersionSwitch(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	testkit.IngestInto(t, dataDir, "a", true, testkit.SiteTrees(t, testkit.SampleSite(t))...)
	other := filepath.Join(t.TempDir(), "site-b")
	testkit.CopyTree(t, testkit.SampleSite(t), other)
	f := filepath.Join(other, "cloud", "reference", "http.mdx")
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strings.ReplaceAll(string(raw), "the", "THE")), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.IngestInto(t, dataDir, "b", false, testkit.SiteTrees(t, other)...)
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	r := NewReader(Config{Limits: testLimits()}, FromStore(st))
	page := "/cloud/reference/http/"
	limit := 100000
	req := DocRequest{Page: &page, Paging: Paging{Limit: &limit}}
	want, _, err := r.ReadDocumentation(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	tree := "cloud"
	reqTree := DocRequest{Tree: &tree, Paging: Paging{Limit: &limit}}
	wantTree, _, err := r.ReadDocumentation(ctx, reqTree)
	if err != nil {
		t.Fatal(err)
	}

	h := new(hold.Holder)
	got, _, err := r.ReadDocumentation(hold.With(ctx, h), req)
	if err != nil {
		t.Fatal(err)
	}
	gotTree, _, err := r.ReadDocumentation(hold.With(ctx, h), reqTree)
	if err != nil {
		t.Fatal(err)
	}
	// Switch: the store drops its reference to version a, whose last
	// reference is now the holder's.
	if err := st.Activate(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if changed, err := st.Refresh(ctx); err != nil || !changed {
		t.Fatalf("refresh to b: changed %v, %v", changed, err)
	}
	if got.Text != want.Text || got.Stamp != want.Stamp || gotTree.Text != wantTree.Text || gotTree.Stamp != wantTree.Stamp {
		t.Errorf("the held read differs from the copying read after the switch:\n%.200q\nwant\n%.200q", got.Text, want.Text)
	}
	h.Release()
	// The store serves b now, and a copying read answers b's text.
	b, _, err := r.ReadDocumentation(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if b.Text == want.Text || !strings.Contains(b.Text, "THE") {
		t.Errorf("after the switch the read still answers a's text")
	}
}
