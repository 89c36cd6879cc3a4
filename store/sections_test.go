package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// buildWithSections writes a one-tree version of one page whose section
// index the builder is given, as ingest gives it.
func buildWithSections(t *testing.T, s *Store, name, copyText string, o BuildOptions) {
	t.Helper()
	b, err := s.NewBuilderWith(o)
	if err != nil {
		t.Fatal(err)
	}
	pages := []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}}
	if err := b.PutTree("cloud", "Cloud", pages); err != nil {
		t.Fatal(err)
	}
	m := textmap.Scan(copyText)
	if err := b.PutText("cloud", "/cloud/", copyText, Layout{Total: m.Len, LineStarts: m.LineStarts, Bases: m.Bases}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutPageSections(t.Context(), "cloud", "Home", copyText, m, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.IndexPage(0, PageGrams{All: "a ab abc"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(t.Context(), Meta{Name: name, Created: time.Now(), Digest: name, Pages: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestSectionIndexStored: a version given its section index holds it,
// one built without it (as before it was stored) holds none, and a
// damaged postings value reads as the version's damage, naming it.
func TestSectionIndexStored(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	buildWithSections(t, s, "new", "Words about stamps and offsets, stamps again.\n", BuildOptions{})
	// Held to one byte, the postings go to a work file and back.
	buildWithSections(t, s, "spilled", "Words about stamps and offsets, stamps again.\n", BuildOptions{SectionsHeld: 1})
	build(t, s, "old", "Words about stamps.\n")
	if left, _ := filepath.Glob(filepath.Join(s.versionDir("spilled"), "sections-run-*")); len(left) != 0 {
		t.Fatalf("work files left in the version: %v", left)
	}
	if _, err := s.NewBuilderWith(BuildOptions{SectionsHeld: -1}); err == nil || !strings.Contains(err.Error(), "section postings held") {
		t.Fatalf("a negative bound is taken: %v", err)
	}
	checkDB(t, s.versionDir("new"))
	for _, name := range []string{"new", "spilled", "old"} {
		if err := s.Activate(t.Context(), name); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		v, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		ix := v.Sections()
		if name == "old" {
			if ix != nil {
				t.Fatal("a version built without a section index holds one")
			}
			v.Release()
			continue
		}
		if ix == nil || ix.Len() != 1 {
			t.Fatalf("section index %v", ix)
		}
		raw := ix.Postings("stamp")
		ps, err := ix.Decode(raw, nil)
		if err != nil || len(ps.List) != 1 || ps.List[0].Text != 2 {
			t.Fatalf("postings of stamp = %+v, %v", ps.List, err)
		}
		_, err = ix.Decode(raw[:len(raw)-1], nil)
		var de *DamagedError
		if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) || de.Version != name || de.File != dbFile || !strings.Contains(err.Error(), "section index") {
			t.Fatalf("a short postings value reads as %v; want the version's damage", err)
		}
		v.Release()
	}
}
