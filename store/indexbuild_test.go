package store

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// indexTestGrams are the n-gram lists of page i of the index tests: a
// gram every page holds, grams a few hold, non-ASCII grams, a gram listed
// twice, runs of spaces and empty lists.
func indexTestGrams(i int) PageGrams {
	all := fmt.Sprintf("the  p%d g%d é%d 日本 the", i, i%7, i%3)
	if i%5 == 0 {
		all += " five"
	}
	g := PageGrams{All: all, Title: fmt.Sprintf("t%d", i%11)}
	if i%4 != 0 {
		g.Headings = fmt.Sprintf("h%d x", i%13)
	}
	return g
}

// dumpIndex lists, for every field and term of idx, the identifiers of
// the documents that hold it, sorted.
func dumpIndex(t *testing.T, idx bleve.Index) map[string][]string {
	t.Helper()
	r := indexReader(t, idx)
	defer r.Close()
	out := map[string][]string{}
	for _, field := range []string{FieldAll, FieldTitle, FieldHeadings, "_id"} {
		d, err := r.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		var terms []string
		for e, err := d.Next(); e != nil || err != nil; e, err = d.Next() {
			if err != nil {
				t.Fatal(err)
			}
			terms = append(terms, e.Term)
		}
		d.Close()
		for _, term := range terms {
			tr, err := r.TermFieldReader(t.Context(), []byte(term), field, true, true, true)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for doc, err := tr.Next(nil); doc != nil || err != nil; doc, err = tr.Next(nil) {
				if err != nil {
					t.Fatal(err)
				}
				id, err := r.ExternalID(doc.ID)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, fmt.Sprintf("%s freq %d norm %g", id, doc.Freq, doc.Norm))
			}
			tr.Close()
			slices.Sort(ids)
			out[field+" "+term] = ids
		}
	}
	return out
}

// indexReader returns a reader of idx, which the caller closes.
func indexReader(t *testing.T, idx bleve.Index) index.IndexReader {
	t.Helper()
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIndexWorkersBuildBlevesIndex: the n-gram index the workers build,
// with 1, 2 or 5 of them, holds for every field and term the documents,
// frequencies and norms that bleve's own offline builder gives the same
// pages through the index's mapping, so search answers the same; and the
// same pages make a segment of the same size whatever the workers (its
// bytes' order within follows bleve's map iteration, so it is not fixed:
// the same pages cut into the same segments, merged in the same order).
func TestIndexWorkersBuildBlevesIndex(t *testing.T) {
	const n = 2*indexBatch + 50
	ref := filepath.Join(t.TempDir(), "ref.bleve")
	rb, err := bleve.NewBuilder(ref, gramMapping(), map[string]any{"buildPathPrefix": t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		g := indexTestGrams(i)
		if err := rb.Index(fmt.Sprint(i), map[string]any{FieldAll: g.All, FieldTitle: g.Title, FieldHeadings: g.Headings}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rb.Close(); err != nil {
		t.Fatal(err)
	}
	ri, err := bleve.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	want := dumpIndex(t, ri)
	ri.Close()
	if len(want[FieldAll+" the"]) != n {
		t.Fatalf("the reference index holds %d pages with \"the\", want %d", len(want[FieldAll+" the"]), n)
	}

	var segs [][]byte
	for _, c := range []struct{ workers, fanIn int }{{1, 64}, {2, 64}, {5, 64}, {2, 2}} {
		workers := c.workers
		// A fan-in of 2 merges the three batches' segments in two rounds.
		defer func(was int) { mergeFanIn = was }(mergeFanIn)
		mergeFanIn = c.fanIn
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		b := stagedBuilder(t, s, n, workers)
		if err := b.Commit(t.Context(), Meta{Name: "v", Created: time.Now(), Digest: "d", Pages: n}); err != nil {
			t.Fatal(err)
		}
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
		got := dumpIndex(t, v.idx)
		v.Release()
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if !strings.HasPrefix(k, "_id ") && !slices.Equal(got[k], want[k]) {
				t.Errorf("%d workers, fan-in %d: %q holds %v, bleve's builder %v", workers, c.fanIn, k, got[k], want[k])
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%d workers, fan-in %d: %q is not in bleve's builder's index", workers, c.fanIn, k)
			}
		}
		seg, err := os.ReadFile(segmentOf(t, s, "v"))
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, seg)
		s.Close()
	}
	for i := 1; i < len(segs); i++ {
		if len(segs[i]) != len(segs[0]) {
			t.Errorf("the segment's size differs with the number of workers or the merge's rounds: %d bytes against %d", len(segs[i]), len(segs[0]))
		}
	}
}

// TestIndexWorkersBound: a number of index workers out of its bounds is
// refused, naming the bounds.
func TestIndexWorkersBound(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{-1, MaxIndexWorkers + 1} {
		if _, err := s.NewBuilderWith(BuildOptions{IndexWorkers: w}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("give 1 to %d", MaxIndexWorkers)) {
			t.Errorf("%d workers: %v, want a refusal naming the bounds", w, err)
		}
	}
}
