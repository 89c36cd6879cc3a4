package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	enc, err := encodeLayout(text, lay, sha256.Sum256([]byte(text)), checkpoints(text, 0, 0, nil))
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
	if _, err := encodeLayout(text, Layout{Total: 3}, sha256.Sum256([]byte(text)), checkpoints(text, 0, 0, nil)); err == nil {
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

// TestSpanSharesPageBytes: a text composed of the pages stored between
// BeginSpan and EndSpan reads back whole, with its own stamp and places,
// while each page reads back as itself; the page bytes are stored once.
// A page with a lower-cased copy stored is matched against it, one
// without against its own text, folded.
func TestSpanSharesPageBytes(t *testing.T) {
	s, _ := Open(t.TempDir())
	b, err := s.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	pages := []tzctx.Page{{Path: "a", Route: "/cloud/a/", Title: "A"}, {Path: "b", Route: "/cloud/b/", Title: "B"}}
	texts := []string{"# Über\nÄÖ café\n", strings.Repeat("Plain ASCII Text\n", 40)}
	lay := func(s string) Layout {
		l := Layout{Total: len([]rune(s)), LineStarts: []uint32{0}, Bases: []uint32{0}}
		n := 0
		for _, r := range s {
			n++
			if r == '\n' && n < l.Total {
				l.LineStarts = append(l.LineStarts, uint32(n))
				l.Bases = append(l.Bases, uint32(n))
			}
		}
		return l
	}
	if err := b.BeginSpan(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if i > 0 {
			if err := b.PutGap("\n"); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.PutText("cloud", p.Route, texts[i], lay(texts[i])); err != nil {
			t.Fatal(err)
		}
	}
	full := texts[0] + "\n" + texts[1]
	if err := b.EndSpan("cloud", "full", lay(full)); err != nil {
		t.Fatal(err)
	}
	if err := b.PutPageSearch("cloud", pages[0].Route, []byte(strings.ToLower(texts[0])), []tzctx.Heading{{Depth: 1, Text: "Über"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutPageSearch("cloud", pages[1].Route, nil, nil); err != nil {
		t.Fatal(err)
	}
	b.PutTree("cloud", "Cloud", pages)
	b.IndexPage(0, PageGrams{All: "a"})
	b.IndexPage(1, PageGrams{All: "b"})
	if err := b.Commit(t.Context(), Meta{Name: "v", Pages: 2}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(s.versionDir("v"), textsFile)); err != nil || fi.Size() != int64(len(full)) {
		t.Fatalf("text file: %v, %v; want the %d bytes of the whole text alone", fi, err, len(full))
	}
	if err := s.Activate(t.Context(), "v"); err != nil {
		t.Fatal(err)
	}
	s.Refresh(t.Context())
	v, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	tr := v.Tree("cloud")
	for key, want := range map[string]string{"full": full, pages[0].Route: texts[0], pages[1].Route: texts[1]} {
		x, err := tr.Text(key)
		if err != nil || x == nil {
			t.Fatalf("Text(%s): %v, %v", key, x, err)
		}
		sum := sha256.Sum256([]byte(want))
		rs := []rune(want)
		if string(x.Bytes()) != want || x.Total() != len(rs) || x.Stamp() != hex.EncodeToString(sum[:]) {
			t.Errorf("Text(%s) = %q (%d code points, stamp %s)", key, x.Bytes(), x.Total(), x.Stamp())
		}
		for _, c := range [][2]int{{0, len(rs)}, {3, 70}, {63, 129}, {len(rs) - 1, len(rs)}} {
			if c[1] > len(rs) {
				continue
			}
			if got := x.Slice(c[0], c[1]); got != string(rs[c[0]:c[1]]) {
				t.Errorf("Text(%s).Slice(%d, %d) = %q", key, c[0], c[1], got)
			}
		}
	}
	if body, fold := tr.SearchBody(pages[0].Route); fold || string(body) != strings.ToLower(texts[0]) {
		t.Errorf("SearchBody(a) = %q, %v; want the stored lower-cased copy", body, fold)
	}
	if body, fold := tr.SearchBody(pages[1].Route); !fold || string(body) != texts[1] {
		t.Errorf("SearchBody(b) = %q, %v; want the copy, folded", body, fold)
	}
	if hs, err := tr.Headings(pages[0].Route); err != nil || len(hs) != 1 || hs[0].Text != "Über" {
		t.Errorf("Headings(a) = %v, %v", hs, err)
	}
	if body, _ := tr.SearchBody("/cloud/none/"); body != nil {
		t.Error("SearchBody of no page answered")
	}
}
