package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/turnzerocloud/tzctx"
)

// build writes a one-tree version holding the given page copy.
func build(t *testing.T, s *Store, name, copyText string) {
	t.Helper()
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	pages := []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}}
	if err := b.PutTree("cloud", "Cloud", pages); err != nil {
		t.Fatal(err)
	}
	lay := Layout{Total: len([]rune(copyText)), LineStarts: []uint32{0}, Bases: []uint32{0}}
	if err := b.PutText("cloud", "/cloud/", copyText, lay); err != nil {
		t.Fatal(err)
	}
	if err := b.IndexPage(0, PageGrams{All: "a ab abc"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(t.Context(), Meta{Name: name, Created: time.Now(), Digest: name + ":" + copyText, Pages: 1}); err != nil {
		t.Fatal(err)
	}
}

func checkDB(t *testing.T, dir string) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, dbFile), 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("bbolt consistency: %v", err)
	}
}

func TestVersionsLifecycle(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	build(t, s, "v1", "one ünïcode")
	build(t, s, "v2", "two")
	checkDB(t, s.versionDir("v1"))
	checkDB(t, s.versionDir("v2"))
	if err := s.Activate(t.Context(), "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	v1, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	// Activation swaps the served version; a reader holding v1 keeps it.
	if err := s.Activate(t.Context(), "v2"); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Refresh(t.Context()); err != nil || !changed {
		t.Fatalf("refresh = %v, %v", changed, err)
	}
	txt, err := v1.Tree("cloud").Text("/cloud/")
	if err != nil || txt.Slice(0, txt.Total()) != "one ünïcode" || txt.Slice(4, 7) != "ünï" {
		t.Fatalf("held v1 text = %v, %v", txt, err)
	}
	v1.Release()
	v2, _ := s.Acquire()
	if v2.Name() != "v2" {
		t.Errorf("served %s, want v2", v2.Name())
	}
	v2.Release()
	if err := s.Delete("v2"); err == nil || !strings.Contains(err.Error(), "is active") {
		t.Errorf("delete active = %v, want a refusal", err)
	}
	if err := s.Delete("v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup("v1"); err == nil {
		t.Error("v1 still listed after delete")
	}
	if err := s.Activate(t.Context(), "nope"); err == nil || !strings.Contains(err.Error(), "tzctx versions") {
		t.Errorf("activate unknown = %v", err)
	}
	if err := ValidName("../x"); err == nil {
		t.Error("../x accepted as a version name")
	}
}

func TestAbortAndStagingCleanup(t *testing.T) {
	s, _ := Open(t.TempDir())
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	b.Abort()
	// A folder left by a killed builder (no lock held) is removed by the
	// next builder; a live builder's folder is not.
	stale := filepath.Join(s.dir, stagingDir, "build-stale")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, lockFile), nil, 0o644)
	live, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale staging folder survived")
	}
	other, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Abort()
	if _, err := os.Stat(live.dir); err != nil {
		t.Error("a live builder's staging folder was removed")
	}
	if ms, _ := s.List(); len(ms) != 0 {
		t.Errorf("versions after abort: %v", ms)
	}
}

func TestTextTable(t *testing.T) {
	text := strings.Repeat("é", 200) + "\n" + strings.Repeat("x😀", 100)
	lay := Layout{Total: 401, LineStarts: []uint32{0, 201}, Bases: []uint32{0, 201}}
	enc, err := encodeLayout(text, lay)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := decodeText([]byte(text), enc)
	if err != nil {
		t.Fatal(err)
	}
	rs := []rune(text)
	for _, c := range [][2]int{{0, 0}, {0, 401}, {63, 65}, {199, 203}, {300, 401}, {401, 401}} {
		if got, want := tx.Slice(c[0], c[1]), string(rs[c[0]:c[1]]); got != want {
			t.Errorf("Slice(%d,%d) = %q, want %q", c[0], c[1], got, want)
		}
	}
	if tx.LastBaseAtOrBefore(200) != 0 || tx.LastBaseAtOrBefore(201) != 201 || tx.NextBaseAfter(201) != 401 || tx.NextBaseAfter(0) != 201 {
		t.Error("base lookups wrong")
	}
	if s, ok := tx.LastLineStartIn(0, 300); !ok || s != 201 {
		t.Errorf("LastLineStartIn = %d, %v", s, ok)
	}
	if _, ok := tx.LastLineStartIn(201, 300); ok {
		t.Error("LastLineStartIn found a start at lo")
	}
	if _, err := encodeLayout(text, Layout{Total: 3}); err == nil {
		t.Error("a wrong total was accepted")
	}
}

// TestGramsSurviveReplacementCharacter is the regression test for bleve's
// character tokenizer, which ends a field at U+FFFD.
func TestGramsSurviveReplacementCharacter(t *testing.T) {
	s, _ := Open(t.TempDir())
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	b.PutTree("cloud", "Cloud", []tzctx.Page{{Path: "index", Route: "/cloud/", Title: "Home"}})
	b.PutText("cloud", "/cloud/", "x", Layout{Total: 1, LineStarts: []uint32{0}, Bases: []uint32{0}})
	b.IndexPage(0, PageGrams{All: "ab \ufffd\ufffd x\ufffdy now ow, μ 𝄞 a", Title: "ab"})
	if err := b.Commit(t.Context(), Meta{Name: "v", Pages: 1}); err != nil {
		t.Fatal(err)
	}
	s.Activate(t.Context(), "v")
	s.Refresh(t.Context())
	v, _ := s.Acquire()
	defer v.Release()
	for _, g := range []string{"ab", "\ufffd\ufffd", "x\ufffdy", "now", "ow,", "μ", "𝄞", "a"} {
		set := make([]uint64, 1)
		if err := v.Postings(t.Context(), FieldAll, g, set); err != nil || set[0] != 1 {
			t.Errorf("gram %q: set %b, %v", g, set[0], err)
		}
	}
	set := make([]uint64, 1)
	if v.Postings(t.Context(), FieldAll, "zz", set); set[0] != 0 {
		t.Error("absent gram found")
	}
	if v.Postings(t.Context(), FieldTitle, "ab", set); set[0] != 1 {
		t.Error("title gram not found")
	}
	set[0] = 0
	if v.Postings(t.Context(), FieldHeadings, "ab", set); set[0] != 0 {
		t.Error("title gram found among headings")
	}
}

// TestReusedNameIsANewVersion: a name deleted and ingested again with other
// content is another version; the server must not keep the old one.
func TestReusedNameIsANewVersion(t *testing.T) {
	s, _ := Open(t.TempDir())
	build(t, s, "a", "first content")
	build(t, s, "b", "other")
	s.Activate(t.Context(), "a")
	if changed, _ := s.Refresh(t.Context()); !changed {
		t.Fatal("a not loaded")
	}
	// Between two checks: b activated, a deleted and ingested anew.
	s.Activate(t.Context(), "b")
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	build(t, s, "a", "second content")
	s.Activate(t.Context(), "a")
	if changed, err := s.Refresh(t.Context()); !changed || err != nil {
		t.Fatalf("refresh after reuse = %v, %v", changed, err)
	}
	v, _ := s.Acquire()
	defer v.Release()
	txt, _ := v.Tree("cloud").Text("/cloud/")
	if got := txt.Slice(0, txt.Total()); got != "second content" {
		t.Errorf("served %q after the name was reused", got)
	}
	// Same name, same content: nothing to reload.
	if changed, _ := s.Refresh(t.Context()); changed {
		t.Error("an unchanged version was reloaded")
	}
}

// TestWarmRunsBeforeTheSwap: SetWarm warms the version served now; each
// activation runs the warm function on the new version before it is
// served, so a reader never sees it cold; a failing warm refuses the
// version as damaged and keeps the one served.
func TestWarmRunsBeforeTheSwap(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	build(t, s, "v1", "one")
	build(t, s, "v2", "two")
	build(t, s, "v3", "three")
	if err := s.Activate(t.Context(), "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	var warmed []string
	served := func() string {
		v, err := s.Acquire()
		if err != nil {
			return ""
		}
		defer v.Release()
		return v.Name()
	}
	err = s.SetWarm(t.Context(), func(_ context.Context, v *Version) error {
		// The version warmed is not yet the one served, except the one
		// SetWarm warms at once.
		warmed = append(warmed, v.Name()+" while serving "+served())
		if v.Name() == "v3" {
			return errors.New("cannot read its headings")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Activate(t.Context(), "v2"); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Refresh(t.Context()); err != nil || !changed {
		t.Fatalf("refresh to v2 = %v, %v", changed, err)
	}
	if err := s.Activate(t.Context(), "v3"); err != nil {
		t.Fatal(err)
	}
	changed, err := s.Refresh(t.Context())
	var damaged *DamagedError
	if changed || !errors.As(err, &damaged) || !strings.Contains(err.Error(), "cannot read its headings") {
		t.Errorf("refresh to a version that fails to warm = %v, %v; want it refused as damaged", changed, err)
	}
	if got := served(); got != "v2" {
		t.Errorf("served %s after the refused warm, want v2", got)
	}
	want := []string{"v1 while serving v1", "v2 while serving v1", "v3 while serving v2"}
	if strings.Join(warmed, "; ") != strings.Join(want, "; ") {
		t.Errorf("warmed %q, want %q", warmed, want)
	}
}
