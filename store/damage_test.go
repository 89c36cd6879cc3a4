package store

import (
	"context"
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

// buildPages writes a one-tree version of n pages, page i holding the
// n-grams "common" (every page), "even" (even pages) and "p<i>".
func buildPages(t *testing.T, s *Store, name string, n int) {
	t.Helper()
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	var pages []tzctx.Page
	for i := range n {
		pages = append(pages, tzctx.Page{Path: fmt.Sprintf("p%d", i), Route: fmt.Sprintf("/cloud/p%d/", i), Title: fmt.Sprintf("Page %d", i)})
	}
	if err := b.PutTree("cloud", "Cloud", pages); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		text := fmt.Sprintf("page %d of %s", i, name)
		if err := b.PutText("cloud", p.Route, text, Layout{Total: len(text), LineStarts: []uint32{0}, Bases: []uint32{0}}); err != nil {
			t.Fatal(err)
		}
		g := fmt.Sprintf("common p%d", i)
		if i%2 == 0 {
			g += " even"
		}
		if err := b.IndexPage(i, PageGrams{All: g, Title: "page"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(t.Context(), Meta{Name: name, Created: time.Now(), Digest: "digest-" + name, Pages: n}); err != nil {
		t.Fatal(err)
	}
}

// segmentOf returns the path of the version's one bleve segment file.
func segmentOf(t *testing.T, s *Store, name string) string {
	t.Helper()
	path, err := indexSegment(filepath.Join(s.versionDir(name), indexDir))
	if err != nil {
		t.Fatalf("segment of %s: %v", name, err)
	}
	return path
}

// flipByte inverts the bits of the byte at off (negative: from the end).
func flipByte(t *testing.T, file string, off int64) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += int64(len(data))
	}
	data[off] ^= 0xff
	// The version's files are read-only for their owner's group and
	// others; write through a fresh file.
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pointAt writes the ACTIVE pointer by hand, as a crash, an older tzctx
// or an operator's editor could: Activate itself refuses damaged versions.
func pointAt(t *testing.T, s *Store, name string) {
	t.Helper()
	if err := writeFileAtomic(filepath.Join(s.dir, activeFile), []byte(name+"\n")); err != nil {
		t.Fatal(err)
	}
}

// reseal records the version's current checksums in its meta.json, so
// that only the structure and read-through checks stand between a damaged
// file and the server.
func reseal(t *testing.T, s *Store, name string) {
	t.Helper()
	dir := s.versionDir(name)
	m, err := readMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Files, err = checksums(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(m)
	if err := writeFileAtomic(filepath.Join(dir, metaFile), raw); err != nil {
		t.Fatal(err)
	}
}

func served(t *testing.T, s *Store) string {
	t.Helper()
	v, err := s.Acquire()
	if err != nil {
		return ""
	}
	defer v.Release()
	return v.Name()
}

// TestDamagedVersionIsRefused: damage to the search index or to the pages
// file is caught by the checksums; Activate refuses the version, and a
// pointer naming it by hand leaves the old version served, with the fault
// reported.
func TestDamagedVersionIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, s *Store)
		file   string
	}{
		{"index segment", func(t *testing.T, s *Store) { flipByte(t, segmentOf(t, s, "bad"), 200) }, "index.bleve/store/"},
		{"index footer", func(t *testing.T, s *Store) { flipByte(t, segmentOf(t, s, "bad"), -20) }, "index.bleve/store/"},
		{"pages.db", func(t *testing.T, s *Store) { flipByte(t, filepath.Join(s.versionDir("bad"), dbFile), 4096+100) }, "pages.db"},
		{"truncated pages.db", func(t *testing.T, s *Store) {
			if err := os.Truncate(filepath.Join(s.versionDir("bad"), dbFile), 8192); err != nil {
				t.Fatal(err)
			}
		}, "pages.db"},
		{"missing segment", func(t *testing.T, s *Store) { os.Remove(segmentOf(t, s, "bad")) }, "index.bleve/store/"},
		{"extra file", func(t *testing.T, s *Store) {
			os.WriteFile(filepath.Join(s.versionDir("bad"), "stray"), []byte("x"), 0o644)
		}, "stray"},
		{"meta.json", func(t *testing.T, s *Store) {
			os.WriteFile(filepath.Join(s.versionDir("bad"), metaFile), []byte("{"), 0o644)
		}, "meta.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := Open(t.TempDir())
			buildPages(t, s, "good", 40)
			buildPages(t, s, "bad", 40)
			if err := s.Activate(t.Context(), "good"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, s)

			err := s.Activate(t.Context(), "bad")
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), "tzctx activate") {
				t.Fatalf("Activate(bad) = %v, want ErrDamaged naming %s and what to do", err, tc.file)
			}
			if n, _ := s.ActiveName(); n != "good" {
				t.Fatalf("the pointer names %q after a refused activation", n)
			}
			if err := s.Verify(t.Context(), "bad"); !errors.Is(err, ErrDamaged) {
				t.Errorf("Verify(bad) = %v, want ErrDamaged", err)
			}
			if err := s.Verify(t.Context(), "good"); err != nil {
				t.Errorf("Verify(good) = %v", err)
			}

			pointAt(t, s, "bad")
			changed, err := s.Refresh(t.Context())
			if changed || !errors.Is(err, ErrDamaged) {
				t.Fatalf("Refresh onto the damaged version = %v, %v; want a refusal", changed, err)
			}
			if got := served(t, s); got != "good" {
				t.Fatalf("serving %q after the refusal, want good", got)
			}
			h := s.Health()
			if h.Serving != "good" || h.Active != "bad" || !errors.Is(h.Fault, ErrDamaged) {
				t.Errorf("Health = %+v", h)
			}
			// Asking again costs nothing and says the same.
			if _, err2 := s.Refresh(t.Context()); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("second Refresh = %v, want %v", err2, err)
			}
			// Back to a good version: the fault clears.
			pointAt(t, s, "good")
			if _, err := s.Refresh(t.Context()); err != nil || s.Health().Fault != nil {
				t.Errorf("Refresh back onto good = %v, health %+v", err, s.Health())
			}
		})
	}
}

// TestDamagedVersionAtStart: a store whose active version is damaged
// serves nothing, says why, and serves the next good version activated.
func TestDamagedVersionAtStart(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	buildPages(t, s, "a", 20)
	buildPages(t, s, "b", 20)
	pointAt(t, s, "a")
	flipByte(t, segmentOf(t, s, "a"), 300)

	s2, _ := Open(dir)
	if _, err := s2.Refresh(t.Context()); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Refresh = %v, want ErrDamaged", err)
	}
	if _, err := s2.Acquire(); !errors.Is(err, ErrNoVersion) {
		t.Errorf("Acquire = %v, want ErrNoVersion", err)
	}
	if h := s2.Health(); h.Serving != "" || h.Active != "a" || h.Fault == nil {
		t.Errorf("Health = %+v", h)
	}
	if err := s2.Activate(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if changed, err := s2.Refresh(t.Context()); !changed || err != nil || served(t, s2) != "b" {
		t.Fatalf("Refresh onto b = %v, %v, serving %q", changed, err, served(t, s2))
	}
}

// TestDamageBehindGoodChecksums: with the checksums resealed over the
// damage, the read-through at open still refuses the version, whatever
// byte of the segment is damaged, and never panics.
func TestDamageBehindGoodChecksums(t *testing.T) {
	s, _ := Open(t.TempDir())
	buildPages(t, s, "good", 64)
	if err := s.Activate(t.Context(), "good"); err != nil {
		t.Fatal(err)
	}
	s.Refresh(t.Context())
	seg := segmentOf(t, s, "good")
	fi, _ := os.Stat(seg)
	pristine, _ := os.ReadFile(seg)
	refused, served := 0, 0
	for i := range 48 {
		name := fmt.Sprintf("bad%d", i)
		buildPages(t, s, name, 64)
		off := fi.Size() * int64(i) / 48
		if i >= 40 {
			off = fi.Size() - int64(48-i)*4 // the footer
		}
		flipByte(t, segmentOf(t, s, name), off)
		reseal(t, s, name)
		pointAt(t, s, name)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("Refresh panicked with damage at byte %d: %v", off, r)
				}
			}()
			changed, err := s.Refresh(t.Context())
			switch {
			case err != nil:
				refused++
				if !errors.Is(err, ErrDamaged) {
					t.Errorf("damage at byte %d: %v, want ErrDamaged", off, err)
				}
			case changed:
				served++ // damage bleve does not read at open
				// Reads of a version served with unnoticed damage
				// answer or fail, but never panic.
				v, _ := s.Acquire()
				set := make([]uint64, 1)
				_ = v.Postings(t.Context(), FieldAll, "p3", set)
				v.Release()
			}
		}()
		pointAt(t, s, "good")
		s.Refresh(t.Context())
		if err := s.Delete(name); err != nil {
			t.Fatal(err)
		}
	}
	if refused == 0 {
		t.Error("no damage was refused at open")
	}
	t.Logf("damage at 48 places: %d refused at open, %d not read at open", refused, served)
	if now, _ := os.ReadFile(seg); string(now) != string(pristine) {
		t.Fatal("the good version's segment changed")
	}
}

// TestCommitFailureLeavesNothing: a commit refused for its name leaves no
// staging folder and releases its lock.
func TestCommitFailureLeavesNothing(t *testing.T) {
	s, _ := Open(t.TempDir())
	buildPages(t, s, "taken", 3)
	for _, name := range []string{"taken", "../bad", ""} {
		b, err := s.NewBuilder()
		if err != nil {
			t.Fatal(err)
		}
		b.PutTree("cloud", "Cloud", []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}})
		b.IndexPage(0, PageGrams{All: "a"})
		if err := b.Commit(t.Context(), Meta{Name: name, Pages: 1}); err == nil {
			t.Fatalf("Commit(%q) succeeded", name)
		}
		if left, _ := os.ReadDir(filepath.Join(s.dir, stagingDir)); len(left) != 0 {
			t.Fatalf("Commit(%q) failed and left %v in staging", name, left)
		}
		if b.texts.f != nil || b.aux.f != nil || b.index != nil {
			t.Errorf("Commit(%q) failed and left its builders open", name)
		}
	}
	if ms, _ := s.List(); len(ms) != 1 {
		t.Errorf("versions after refused commits: %v", ms)
	}
}

// TestFrequentGramsAtOpen: the frequent n-grams' bit sets are read when a
// version opens, before it is served, and equal the posting lists; a
// caller's cancelled context does not disturb them.
func TestFrequentGramsAtOpen(t *testing.T) {
	const n = 100
	v := servedPages(t, n)
	for _, g := range []string{"common", "even"} {
		f, ok := v.frequent[FieldAll+"\x00"+g]
		if !ok {
			t.Fatalf("frequent n-gram %q has no bit set once the version is served", g)
		}
		want := make([]uint64, (n+63)/64)
		if err := v.walkPostings(t.Context(), FieldAll, g, want); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(f) != fmt.Sprint(want) {
			t.Errorf("bit set of %q = %x, posting list %x", g, f, want)
		}
	}
	if _, ok := v.frequent[FieldAll+"\x00p3"]; ok {
		t.Error("a rare n-gram has a bit set")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	set := make([]uint64, 2)
	if err := v.Postings(ctx, FieldAll, "even", set); err != nil || set[0]&1 != 1 || set[0]&2 != 0 {
		t.Errorf("Postings(even) with a cancelled context = %x, %v", set, err)
	}
}

// TestCommitCancelled: a commit whose context ends leaves no version and
// no staging folder.
func TestCommitCancelled(t *testing.T) {
	s, _ := Open(t.TempDir())
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	b.PutTree("cloud", "Cloud", []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}})
	b.IndexPage(0, PageGrams{All: "a"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.Commit(ctx, Meta{Name: "v", Pages: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit with a cancelled context = %v", err)
	}
	if ms, _ := s.List(); len(ms) != 0 {
		t.Errorf("versions after a cancelled commit: %v", ms)
	}
	if left, _ := os.ReadDir(filepath.Join(s.dir, stagingDir)); len(left) != 0 {
		t.Errorf("staging after a cancelled commit: %v", left)
	}
}

// TestRefreshCancelled: a Refresh whose context ends during verification
// returns the context's error, remembers no fault, and the next one
// serves the version.
func TestRefreshCancelled(t *testing.T) {
	s, _ := Open(t.TempDir())
	buildPages(t, s, "v", 10)
	pointAt(t, s, "v")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if changed, err := s.Refresh(ctx); changed || !errors.Is(err, context.Canceled) {
		t.Fatalf("Refresh with a cancelled context = %v, %v", changed, err)
	}
	if h := s.Health(); h.Fault != nil || h.Serving != "" {
		t.Errorf("Health after a cancelled Refresh = %+v", h)
	}
	if changed, err := s.Refresh(t.Context()); !changed || err != nil || served(t, s) != "v" {
		t.Errorf("Refresh after the cancelled one = %v, %v", changed, err)
	}
}

// TestBitmapPostingsMatchTermReader: every posting list of every field,
// read from the segments' bitmaps, equals the one a term reader gives.
func TestBitmapPostingsMatchTermReader(t *testing.T) {
	const n = 300
	v := servedPages(t, n)
	terms := 0
	for _, field := range []string{FieldAll, FieldTitle, FieldHeadings} {
		d, err := v.reader.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := d.Next()
			if err != nil {
				t.Fatal(err)
			}
			if e == nil {
				break
			}
			got, want := make([]uint64, (n+63)/64), make([]uint64, (n+63)/64)
			if done, err := bitmapPostings(v.reader, field, e.Term, v.ordOf, got); !done || err != nil {
				t.Fatalf("bitmapPostings(%s, %q) = %v, %v", field, e.Term, done, err)
			}
			if err := v.readPostings(t.Context(), field, e.Term, want); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("field %s, n-gram %q: bitmaps give %x, the term reader %x", field, e.Term, got, want)
			}
			terms++
		}
		d.Close()
	}
	if terms == 0 {
		t.Fatal("no terms read")
	}
	got := make([]uint64, (n+63)/64)
	if done, err := bitmapPostings(v.reader, FieldAll, "no such gram", v.ordOf, got); !done || err != nil || fmt.Sprint(got) != fmt.Sprint(make([]uint64, len(got))) {
		t.Errorf("an absent n-gram gives %x, %v, %v", got, done, err)
	}
}

// servedPages returns the served version "v" of n pages (buildPages) of a
// new store, held until the test ends.
func servedPages(t *testing.T, n int) *Version {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	buildPages(t, s, "v", n)
	if err := s.Activate(t.Context(), "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	v, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Release)
	return v
}
