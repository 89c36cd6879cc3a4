package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// buildIndexed writes a one-tree version of the pages named (route
// /cloud/NAME/, n-grams "common NAME"), its index documents added by
// index, its metadata recording the derivation rules.
func buildIndexed(t *testing.T, s *Store, version string, rules int, names []string, index func(b *Builder, i int, route string, g PageGrams) error) error {
	t.Helper()
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	var pages []tzctx.Page
	for _, n := range names {
		pages = append(pages, tzctx.Page{Path: n, Route: "/cloud/" + n + "/", Title: n})
	}
	if err := b.PutTree("cloud", "Cloud", pages); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if err := b.PutText("cloud", p.Route, p.Title, Layout{Total: len(p.Title), LineStarts: []uint32{0}, Bases: []uint32{0}}); err != nil {
			t.Fatal(err)
		}
		if err := index(b, i, p.Route, PageGrams{All: "common " + p.Path, Title: p.Path}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Commit(t.Context(), Meta{Name: version, Created: time.Now(), Digest: "digest-" + version, Pages: len(pages), Derivation: rules})
}

// pagesHolding returns the ordinals of the pages of version whose
// n-grams include gram.
func pagesHolding(t *testing.T, s *Store, version, gram string) string {
	t.Helper()
	v, err := s.OpenVersion(t.Context(), version)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	set := make([]uint64, 1)
	if err := v.Postings(t.Context(), FieldAll, gram, set); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range 64 {
		if set[0]&(1<<i) != 0 {
			out = append(out, fmt.Sprint(i))
		}
	}
	return strings.Join(out, " ")
}

// TestIndexDocumentsByRoute: documents named by route map to their pages'
// ordinals, and two documents naming one page make the version damaged
// rather than one page unsearchable.
func TestIndexDocumentsByRoute(t *testing.T) {
	s := testStore(t)
	byRoute := func(b *Builder, _ int, route string, g PageGrams) error { return b.IndexRoute("cloud", route, g) }
	if err := buildIndexed(t, s, "routes", 1, []string{"a", "b", "c"}, byRoute); err != nil {
		t.Fatal(err)
	}
	if got := pagesHolding(t, s, "routes", "b"); got != "1" {
		t.Errorf("pages holding b: %q, want 1", got)
	}
	if got := pagesHolding(t, s, "routes", "common"); got != "0 1 2" {
		t.Errorf("pages holding common: %q, want 0 1 2", got)
	}
	twice := func(b *Builder, _ int, _ string, g PageGrams) error { return b.IndexPage(0, g) }
	if err := buildIndexed(t, s, "twice", 1, []string{"a", "b"}, twice); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenVersion(t.Context(), "twice"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a version whose index names page 0 twice opened: %v", err)
	}
}

// TestReuseIndex: a version built on a base takes the base's documents of
// the pages it names, whatever their new places, beside documents built
// anew, and answers as if every document were built anew; a base of
// other rules, or whose documents are named by ordinal, is not reused.
func TestReuseIndex(t *testing.T) {
	s := testStore(t)
	byRoute := func(b *Builder, _ int, route string, g PageGrams) error { return b.IndexRoute("cloud", route, g) }
	if err := buildIndexed(t, s, "base", 7, []string{"a", "b", "c"}, byRoute); err != nil {
		t.Fatal(err)
	}
	base, err := s.OpenVersion(t.Context(), "base")
	if err != nil {
		t.Fatal(err)
	}
	defer base.Release()
	if ok, err := func() (bool, error) {
		b, err := s.NewBuilder()
		if err != nil {
			t.Fatal(err)
		}
		defer b.Abort()
		return b.ReuseIndex(t.Context(), base, 8)
	}(); ok || err != nil {
		t.Errorf("a base of other rules is reused: %v, %v", ok, err)
	}
	reused := 0
	err = buildIndexed(t, s, "built", 7, []string{"d", "c", "a"}, func(b *Builder, i int, route string, g PageGrams) error {
		if i == 0 {
			if ok, err := b.ReuseIndex(t.Context(), base, 7); !ok || err != nil {
				t.Fatalf("the base is not reused: %v, %v", ok, err)
			}
		}
		if b.ReusePage("cloud", route) {
			reused++
			return nil
		}
		return b.IndexRoute("cloud", route, g)
	})
	if err != nil {
		t.Fatal(err)
	}
	if reused != 2 {
		t.Errorf("%d documents reused, want c's and a's", reused)
	}
	for gram, want := range map[string]string{"common": "0 1 2", "a": "2", "c": "1", "d": "0", "b": ""} {
		if got := pagesHolding(t, s, "built", gram); got != want {
			t.Errorf("built: pages holding %s: %q, want %q", gram, got, want)
		}
	}
	byOrdinal := func(b *Builder, i int, _ string, g PageGrams) error { return b.IndexPage(i, g) }
	if err := buildIndexed(t, s, "ordinals", 7, []string{"a"}, byOrdinal); err != nil {
		t.Fatal(err)
	}
	old, err := s.OpenVersion(t.Context(), "ordinals")
	if err != nil {
		t.Fatal(err)
	}
	defer old.Release()
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if ok, err := b.ReuseIndex(t.Context(), old, 7); ok || err != nil || b.ReusePage("cloud", "/cloud/a/") {
		t.Errorf("a base whose documents are named by ordinal is reused: %v, %v", ok, err)
	}
}

func testStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRouteDocumentsFormat: a version whose documents are named by route
// is of format 4, one named by ordinal (as builds before named them) of
// format 3, and both are served; the names are read by the format, so a
// format 3 reader, as the builds before are, would take route names for
// damage, and is refused by format instead: as a build refuses a version
// whose meta.json (which its checksums do not cover) names a format newer
// than its own, naming the upgrade. A version indexed both ways is
// refused at commit.
func TestRouteDocumentsFormat(t *testing.T) {
	s := testStore(t)
	byRoute := func(b *Builder, _ int, route string, g PageGrams) error { return b.IndexRoute("cloud", route, g) }
	byOrdinal := func(b *Builder, i int, _ string, g PageGrams) error { return b.IndexPage(i, g) }
	for name, c := range map[string]struct {
		index  func(b *Builder, i int, route string, g PageGrams) error
		format int
	}{"routes": {byRoute, 4}, "ordinals": {byOrdinal, 3}} {
		if err := buildIndexed(t, s, name, 1, []string{"a", "b"}, c.index); err != nil {
			t.Fatal(err)
		}
		v, err := s.OpenVersion(t.Context(), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := v.Meta().Format; got != c.format {
			t.Errorf("%s: format %d, want %d", name, got, c.format)
		}
		v.Release()
		if got := pagesHolding(t, s, name, "b"); got != "1" {
			t.Errorf("%s: pages holding b: %q, want 1", name, got)
		}
	}
	relabel := func(name string, format int) {
		t.Helper()
		p := filepath.Join(s.versionDir(name), metaFile)
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		m["format"] = format
		if raw, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A format 3 reader, as the builds before are, takes a route name for
	// damage, and a format 4 reader an ordinal.
	for format, id := range map[int]string{3: "cloud:/cloud/a/", 4: "0"} {
		v := &Version{meta: Meta{Format: format}}
		if _, ok := v.docOrdinal(id); ok {
			t.Errorf("format %d reads document %q", format, id)
		}
	}
	if err := buildIndexed(t, s, "routes5", 1, []string{"a", "b"}, byRoute); err != nil {
		t.Fatal(err)
	}
	relabel("routes5", FormatVersion+1)
	if _, err := s.OpenVersion(t.Context(), "routes5"); err == nil || !strings.Contains(err.Error(), "newer than this build's") || !strings.Contains(err.Error(), "upgrade tzctx") {
		t.Errorf("a version of a format newer than this build's: %v, want a refusal naming the upgrade", err)
	}
	mixed := func(b *Builder, i int, route string, g PageGrams) error {
		if i == 0 {
			return b.IndexPage(i, g)
		}
		return b.IndexRoute("cloud", route, g)
	}
	if err := buildIndexed(t, s, "mixed", 1, []string{"a", "b"}, mixed); err == nil || !strings.Contains(err.Error(), "index them all one way") {
		t.Errorf("a version indexed both ways: %v, want a refusal", err)
	}
}
