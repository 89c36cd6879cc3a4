package sections

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// testPage is one page of a test version.
type testPage struct {
	tree, title, text string
}

func headingsOf(text string) []tzctx.Heading {
	var hs []tzctx.Heading
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			hs = append(hs, tzctx.Heading{Depth: 2, Text: strings.TrimSpace(line[3:]), Offset: off})
		}
		off += utf8.RuneCountInString(line)
	}
	return hs
}

var testPages = []testPage{
	{"cloud", "Home", "Intro text about Remove-PSReadLineKeyHandler.\n\n## Install\n\nRun the installer, then run it again.\n\n## Shared\n\nThe same words in two places.\n"},
	{"cloud", "Guide", "## Shared\n\nThe same words in two places.\n## Other\n\nbuild.target and Iterator::any\n"},
	{"tzdocs", "Docs", "Nothing shared here, only docs: run, run, run.\n"},
}

// stored is a written index held in maps, as the store holds it.
type stored struct {
	table, terms map[string][]byte
	termOrder    []string
}

var errTestDamage = errors.New("test damage")

func damagedFunc(problem string) error { return fmt.Errorf("%w: %s", errTestDamage, problem) }

func build(t *testing.T, pages []testPage, trees []string) *stored {
	t.Helper()
	return buildWith(t, NewBuilder(), pages, trees)
}

func buildWith(t *testing.T, b *Builder, pages []testPage, trees []string) *stored {
	t.Helper()
	givePages(t, b, pages)
	return writeStored(t, b, trees)
}

func givePages(t *testing.T, b *Builder, pages []testPage) {
	t.Helper()
	for _, p := range pages {
		if err := b.Page(t.Context(), p.tree, p.title, p.text, textmap.Scan(p.text), headingsOf(p.text)); err != nil {
			t.Fatal(err)
		}
	}
}

// writeStored writes b's index into maps, as the store holds it.
func writeStored(t *testing.T, b *Builder, trees []string) *stored {
	t.Helper()
	s := &stored{table: map[string][]byte{}, terms: map[string][]byte{}}
	err := b.Write(t.Context(), trees,
		func(k, v []byte) error { s.table[string(k)] = v; return nil },
		func(k, v []byte) error {
			s.terms[string(k)] = v
			s.termOrder = append(s.termOrder, string(k))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *stored) open(t *testing.T) *Index {
	t.Helper()
	ix, err := Open(func(k []byte) []byte { return s.table[string(k)] }, func(k []byte) []byte { return s.terms[string(k)] }, damagedFunc)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestStoredIndexReadsBack: the written index reads back the sections
// Split cuts, in tree and page order, each term's postings in section
// order with the frequencies and positions Analyze gives, duplicates
// chained to the first, and trees without pages as empty spans.
func TestStoredIndexReadsBack(t *testing.T) {
	s := build(t, testPages, []string{"blueprint", "cloud", "tzdocs"})
	if !slices.IsSorted(s.termOrder) {
		t.Fatal("terms are not put in order")
	}
	ix := s.open(t)
	recs, err := ix.Records()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		page int
		sp   Span
	}
	var wants []want
	for i, p := range testPages {
		for _, sp := range Split(p.text, utf8.RuneCountInString(p.text), headingsOf(p.text), textmap.Scan(p.text)) {
			wants = append(wants, want{i, sp})
		}
	}
	if len(recs) != len(wants) || ix.Len() != len(wants) {
		t.Fatalf("%d records, want %d", len(recs), len(wants))
	}
	treeOf := map[string]int32{"blueprint": 0, "cloud": 1, "tzdocs": 2}
	for i, r := range recs {
		w := wants[i]
		if int(r.Page) != w.page || int(r.Ord) != w.page || int(r.Start) != w.sp.Start || int(r.End) != w.sp.End || int(r.Head) != w.sp.Head || r.Tree != treeOf[testPages[w.page].tree] {
			t.Errorf("record %d = %+v, want page %d span %+v", i, r, w.page, w.sp)
		}
	}
	if bp := ix.Tree(0); bp.First != 0 || bp.End != 0 || bp.Pages != 0 {
		t.Errorf("tree blueprint, given no pages, = %+v", bp)
	}
	// The two "Shared" sections: the second chained to the first.
	var shared []int
	for i, r := range recs {
		if r.Dup != int32(i) || r.Next >= 0 {
			shared = append(shared, i)
		}
	}
	if len(shared) != 2 || recs[shared[0]].Next != int32(shared[1]) || recs[shared[1]].Dup != int32(shared[0]) || recs[shared[1]].Next != -1 {
		t.Fatalf("duplicate chain %v", shared)
	}
	// Every term's postings against a fresh analysis of each section.
	for term, raw := range s.terms {
		ps, err := ix.Decode(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, p := range ps.List {
			pos, err := ps.Positions(i)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("sec %d title %d text %d at %v", p.Sec, p.Title, p.Text, pos))
		}
		var want []string
		for i, w := range wants {
			p := testPages[w.page]
			hs := headingsOf(p.text)
			title := 0
			Analyze(Title(p.title, hs, w.sp.Head), 0, func(x string, _ int) {
				if x == term {
					title++
				}
			})
			var pos []uint32
			Analyze(textmap.Slice(p.text, w.sp.Start, w.sp.End), 0, func(x string, at int) {
				if x == term {
					pos = append(pos, uint32(at))
				}
			})
			if title+len(pos) > 0 {
				want = append(want, fmt.Sprintf("sec %d title %d text %d at %v", i, title, len(pos), pos))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("term %q: postings %q, want %q", term, got, want)
		}
		if !bytes.Equal(ix.Postings(term), raw) {
			t.Errorf("term %q is not looked up", term)
		}
	}
	if ix.Postings("absent") != nil {
		t.Error("an absent term has postings")
	}
}

// TestDamagedPostingsAreReported: every cut short, lengthened or altered
// postings value decodes to the damage error, or to postings whose
// sections and positions lie within the index, never a panic.
func TestDamagedPostingsAreReported(t *testing.T) {
	s := build(t, testPages, []string{"cloud", "tzdocs"})
	ix := s.open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	damaged := 0
	check := func(raw []byte) {
		ps, err := ix.Decode(raw, nil)
		if err != nil {
			if !errors.Is(err, errTestDamage) {
				t.Fatalf("decode error %v is not the damage error", err)
			}
			damaged++
			return
		}
		for i, p := range ps.List {
			if int(p.Sec) >= ix.Len() {
				t.Fatalf("posting of section %d of %d", p.Sec, ix.Len())
			}
			if _, err := ps.Positions(i); err != nil && !errors.Is(err, errTestDamage) {
				t.Fatalf("positions error %v is not the damage error", err)
			}
		}
	}
	for _, term := range s.termOrder {
		raw := s.terms[term]
		for n := range len(raw) {
			check(raw[:n])
		}
		check(append(slices.Clone(raw), 0))
		for range 50 {
			b := slices.Clone(raw)
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			check(b)
		}
	}
	check(nil)
	check([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if damaged == 0 {
		t.Fatal("no damaged value was reported")
	}
	// A table that does not match its counts.
	s.table[string(SecsKey)] = s.table[string(SecsKey)][:RecordSize+3]
	if _, err := Open(func(k []byte) []byte { return s.table[string(k)] }, func(k []byte) []byte { return s.terms[string(k)] }, damagedFunc); !errors.Is(err, errTestDamage) {
		t.Fatalf("a short section table opens: %v", err)
	}
}

// stopAfter is a context whose Err answers context.Canceled from its
// n+1st call on, counting its calls.
type stopAfter struct {
	context.Context
	n, calls int
}

func (c *stopAfter) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// TestBuildObservesCancellation: Page checks its context before every
// section and Write before every term: a context cancelled after n checks
// stops each at check n+1.
func TestBuildObservesCancellation(t *testing.T) {
	text := "lead\n" + strings.Repeat("## part\n\nwords here\n\n", 10)
	b := NewBuilder()
	ctx := &stopAfter{Context: context.Background(), n: 4}
	if err := b.Page(ctx, "cloud", "T", text, textmap.Scan(text), headingsOf(text)); !errors.Is(err, context.Canceled) || ctx.calls != 5 {
		t.Fatalf("Page = %v after %d checks; want context.Canceled at the 5th of 11 sections", err, ctx.calls)
	}
	b = NewBuilder()
	if err := b.Page(t.Context(), "cloud", "T", text, textmap.Scan(text), headingsOf(text)); err != nil {
		t.Fatal(err)
	}
	put := 0
	ctx = &stopAfter{Context: context.Background(), n: 2}
	err := b.Write(ctx, []string{"cloud"}, func(k, v []byte) error { return nil }, func(k, v []byte) error { put++; return nil })
	if !errors.Is(err, context.Canceled) || ctx.calls != 3 || put != 2 {
		t.Fatalf("Write = %v after %d checks and %d terms; want context.Canceled at the 3rd check, 2 terms put", err, ctx.calls, put)
	}
}

// TestTreesInOrder: pages of a tree given apart, or trees given out of
// the version's order, are refused.
func TestTreesInOrder(t *testing.T) {
	b := NewBuilder()
	for _, tree := range []string{"cloud", "tzdocs"} {
		if err := b.Page(t.Context(), tree, "T", "text\n", textmap.Scan("text\n"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Page(t.Context(), "cloud", "T", "text\n", textmap.Scan("text\n"), nil); err == nil {
		t.Error("a tree's pages given apart are taken")
	}
	nop := func(k, v []byte) error { return nil }
	if err := b.Write(t.Context(), []string{"tzdocs", "cloud"}, nop, nop); err == nil {
		t.Error("trees out of the version's order are taken")
	}
}

// TestSpilledRunsMerge: a builder holding at most a few bytes of
// postings writes them to run files after each page and merges them at
// Write into exactly the values of one that holds them all, then removes
// the runs; Close removes the runs of a build that stops before Write.
func TestSpilledRunsMerge(t *testing.T) {
	var pages []testPage
	for i := range 6 {
		for _, p := range testPages {
			pages = append(pages, testPage{p.tree + string(rune('a'+i%2)), p.title, p.text + strings.Repeat("more run words\n", i)})
		}
	}
	slices.SortStableFunc(pages, func(a, b testPage) int { return strings.Compare(a.tree, b.tree) })
	trees := []string{"clouda", "cloudb", "tzdocsa", "tzdocsb"}
	want := build(t, pages, trees)
	dir := t.TempDir()
	b := NewBuilder()
	b.SpillTo(dir, 1)
	givePages(t, b, pages)
	if b.Runs() != len(pages) {
		t.Fatalf("%d runs for %d pages, each over the bound", b.Runs(), len(pages))
	}
	got := writeStored(t, b, trees)
	if !slices.Equal(got.termOrder, want.termOrder) {
		t.Fatalf("merged terms %d, want %d in order", len(got.termOrder), len(want.termOrder))
	}
	for k, v := range want.terms {
		if !bytes.Equal(got.terms[k], v) {
			t.Fatalf("term %q merged to %x, want %x", k, got.terms[k], v)
		}
	}
	for k, v := range want.table {
		if !bytes.Equal(got.table[k], v) {
			t.Fatalf("table %s differs", k)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("runs left after Write: %v", left)
	}
	b = NewBuilder()
	b.SpillTo(dir, 1)
	if err := b.Page(t.Context(), "cloud", "T", "text\n", textmap.Scan("text\n"), nil); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if left, _ := os.ReadDir(dir); len(left) != 0 || b.Runs() != 0 {
		t.Fatalf("runs left after Close: %v", left)
	}
}
