package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/grams"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// oldVersion stores a one-tree version as builds before the section
// index was stored wrote it: its texts, search data and n-grams, and no
// section index.
func oldVersion(t *testing.T, name string) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	page := "# Home\n\nStamps and offsets of the served text.\n\n## Reading on\n\nRead on from an offset with its stamp.\n"
	texts := map[string]string{"/cloud/": page, "index": "# Cloud\n\n- [Home](/cloud/)\n", "full": page, "outline": "# Cloud\n\n- [Home](/cloud/)\n"}
	for _, key := range []string{"/cloud/", "index", "full", "outline"} {
		m := textmap.Scan(texts[key])
		if err := b.PutText("cloud", key, texts[key], store.Layout{Total: m.Len, LineStarts: m.LineStarts, Bases: m.Bases}); err != nil {
			t.Fatal(err)
		}
	}
	hs := []tzctx.Heading{{Depth: 2, Text: "Reading on", Offset: strings.Index(page, "## ")}}
	if err := b.PutPageSearch("cloud", "/cloud/", nil, hs); err != nil {
		t.Fatal(err)
	}
	if err := b.IndexPage(0, store.PageGrams{All: grams.Of("home\n" + strings.ToLower(page)), Title: grams.Of("home"), Headings: grams.Of("reading on\n")}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutTree("cloud", "Cloud", []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(t.Context(), store.Meta{Name: name, Created: time.Now(), Digest: name, Pages: 1}); err != nil {
		t.Fatal(err)
	}
	if err := st.Activate(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSearchDocumentationOnAnOldVersion: a version built before ingest
// stored the section index answers search_documentation 503
// context_unavailable naming the version and the fix, over POST and GET;
// every other read of it serves as before.
func TestSearchDocumentationOnAnOldVersion(t *testing.T) {
	t.Parallel()
	s := newServer(t, oldVersion(t, "before-sections"))
	for _, r := range []reply{
		s.post(t, "search_documentation", `{"query":"how do I read on from an offset?"}`),
		s.get(t, "search_documentation", "query=stamps&tree=cloud"),
	} {
		if r.status != 503 || r.code() != "context_unavailable" || !strings.Contains(r.detail(), "before-sections") || !strings.Contains(r.detail(), "ingest the site again") {
			t.Fatalf("search_documentation on an old version = %d %s", r.status, r.raw)
		}
		if strings.Contains(r.raw, "offset?") || strings.Contains(r.raw, "stamps") {
			t.Fatalf("the refusal repeats the query's words: %s", r.raw)
		}
	}
	if r := s.post(t, "read_documentation", `{"page":"/cloud/"}`); r.status != 200 || !strings.Contains(r.str("text"), "Read on from an offset") {
		t.Fatalf("page read on an old version = %d %s", r.status, r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":"stamps"}`); r.status != 200 || !strings.Contains(r.str("text"), "/cloud/") {
		t.Fatalf("search on an old version = %d %s", r.status, r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud"}`); r.status != 200 {
		t.Fatalf("index read on an old version = %d %s", r.status, r.raw)
	}
}
