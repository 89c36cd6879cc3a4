package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// wireDocs writes the segment file of the documents named names, page
// i's n-grams those of indexTestGrams(i), and returns its path.
func wireDocs(t *testing.T, dir, file string, names ...string) string {
	t.Helper()
	docs := make([]index.Document, len(names))
	for i, name := range names {
		d := newGramDoc(name, indexTestGrams(i))
		d.AddIDField()
		docs[i] = d
	}
	path := filepath.Join(dir, file)
	if err := writeSegmentFile(docs, path); err != nil {
		t.Fatalf("assumption broken: the segment plugin writes a new segment to a file: %v", err)
	}
	return path
}

// wireIDs returns the names of the segment file path's documents, in
// number order.
func wireIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	count, err := segmentDocIDs(path, func(count, num uint64, id string) error {
		if num != uint64(len(ids)) {
			return fmt.Errorf("document number %d read after %d documents", num, len(ids))
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		t.Fatalf("assumption broken: a segment file is read by document number: %v", err)
	}
	if count != uint64(len(ids)) {
		t.Fatalf("assumption broken: a segment's count (%d) is its number of documents (%d)", count, len(ids))
	}
	return ids
}

// TestBleveWire pins, one by one, the assumptions about bleve's insides
// that blevewire.go relies on, naming the one a bleve or zap upgrade
// breaks: the search would otherwise fail, or silently slow down, only
// in production.
func TestBleveWire(t *testing.T) {
	work := t.TempDir()
	a := wireDocs(t, work, "a.zap", "t:a0", "t:a1", "t:a2")
	b := wireDocs(t, work, "b.zap", "t:b0", "t:b1", "t:b2")
	if got := wireIDs(t, a); !slices.Equal(got, []string{"t:a0", "t:a1", "t:a2"}) {
		t.Fatalf("assumption broken: a written segment numbers its documents in the order given: %v", got)
	}

	// The merge keeps every document of its parts less their drops, in
	// the parts' order, each part's in its own: a base's segment merged
	// after the new pages keeps the order ReuseIndex read it in.
	merged := filepath.Join(work, "merged.zap")
	drop := roaring.BitmapOf(1)
	if err := mergeSegmentFiles([]segmentPart{{path: a}, {path: b, drop: drop}}, merged, nil); err != nil {
		t.Fatalf("assumption broken: the plugin's Merge merges segment files with a drop bitmap each: %v", err)
	}
	want := []string{"t:a0", "t:a1", "t:a2", "t:b0", "t:b2"}
	if got := wireIDs(t, merged); !slices.Equal(got, want) {
		t.Fatalf("assumption broken: Merge keeps the documents not dropped, renumbered in the parts' order: got %v, want %v", got, want)
	}
	if got := wireIDs(t, b); len(got) != 3 {
		t.Fatalf("assumption broken: Merge leaves its parts' files as they are: the part now holds %v", got)
	}

	// bleve's builder makes the index folder for one placeholder, with
	// one segment file, in the format it is told, which its root names by
	// file name alone: the merged segment put in its place is the index.
	dir := filepath.Join(t.TempDir(), "index")
	if err := placeSegment(dir, work, merged, gramMapping()); err != nil {
		t.Fatalf("assumption broken: bleve's builder leaves one segment file under store/, of the plugin's format: %v", err)
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		t.Fatalf("assumption broken: the builder's root names its segment by file name and the forced format alone, so the merged segment opens in its place: %v", err)
	}
	defer idx.Close()
	if n, err := idx.DocCount(); err != nil || n != uint64(len(want)) {
		t.Fatalf("assumption broken: the index opened holds the merged segment's documents, not the placeholder: %d, %v", n, err)
	}
	r := indexReader(t, idx)
	defer r.Close()

	// The reader is scorch's snapshot, whose segments' postings are
	// bitmaps, numbered as the reader numbers its documents.
	ordOf := make([]int32, len(want))
	for num := range ordOf {
		ordOf[num] = int32(num)
	}
	for _, c := range []struct{ field, gram string }{{FieldAll, "the"}, {FieldAll, "five"}, {FieldAll, "g1"}, {FieldTitle, "t2"}, {FieldHeadings, "x"}, {FieldAll, "none"}} {
		got := make([]uint64, 1)
		done, err := bitmapPostings(r, c.field, c.gram, ordOf, got)
		if err != nil || !done {
			t.Fatalf("assumption broken: the index reader is scorch's snapshot (it is a %T) and its postings are bitmaps: %v, %v", r, done, err)
		}
		wantSet := make([]uint64, 1)
		tr, err := r.TermFieldReader(t.Context(), []byte(c.gram), c.field, false, false, false)
		if err != nil {
			t.Fatal(err)
		}
		for d, err := tr.Next(nil); d != nil || err != nil; d, err = tr.Next(nil) {
			if err != nil {
				t.Fatal(err)
			}
			wantSet[0] |= 1 << d.ID.Value()
		}
		tr.Close()
		if got[0] != wantSet[0] {
			t.Fatalf("assumption broken: a segment's bitmap numbers are the reader's document numbers: field %s, n-gram %q, bitmaps %b, term reader %b", c.field, c.gram, got[0], wantSet[0])
		}
	}
}

// TestBleveWireFaultNamesBleve: an index folder not as bleve's builder
// leaves it (two segment files) is refused with errBleveWire, naming the
// bleve the build was written for, and a reader not scorch's is read
// through the term reader (bitmapPostings reports it does not serve).
func TestBleveWireFaultNamesBleve(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"000000000002.zap", "000000000003.zap"} {
		if err := os.WriteFile(filepath.Join(dir, "store", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := indexSegment(dir)
	if !errors.Is(err, errBleveWire) || !strings.Contains(err.Error(), "bleve v2.6") || !strings.Contains(err.Error(), "2 segment files") {
		t.Errorf("an index folder of two segments gives %v, want errBleveWire naming bleve v2.6 and the 2 segment files", err)
	}
	if done, err := bitmapPostings(nil, FieldAll, "x", nil, nil); done || err != nil {
		t.Errorf("a reader not scorch's gives %v, %v, want false, nil (the term reader reads it)", done, err)
	}
}

// TestPlaceSegmentRefusesAnotherFormat: where bleve's builder lays the
// index folder out for a segment format other than the plugin's (as a
// bleve upgrade that ignored the forced version would), the index opens
// reading the merged segment as that format and counts garbage; the
// build is refused with errBleveWire, naming the bleve it was written
// for, before anything is committed.
func TestPlaceSegmentRefusesAnotherFormat(t *testing.T) {
	defer func(was uint32) { builderSegmentVersion = was }(builderSegmentVersion)
	builderSegmentVersion = 16
	work := t.TempDir()
	merged := wireDocs(t, work, "merged.zap", "t:a0", "t:a1")
	err := placeSegment(filepath.Join(t.TempDir(), "index"), work, merged, gramMapping())
	if !errors.Is(err, errBleveWire) || !strings.Contains(err.Error(), "zapx v17") {
		t.Fatalf("an index folder laid out for zap v16 holding a v17 segment gives %v, want errBleveWire naming zapx v17", err)
	}
}
