package store

// This file is the only one of the store that reaches past bleve's public
// API (bleve.Index, bleve.NewBuilder, index.IndexReader and the documents
// it takes) into scorch, its segment API and the zap plugin. The public
// API does not serve three needs at the search's speed:
//
//   - Building: bleve's offline builder maps and writes every batch under
//     one lock, on one core, and merges no segment of another index, where
//     the workers write segments side by side and the merge takes a base
//     version's segment less its dropped pages. So the plugin writes and
//     merges them, and the merged segment replaces the one file of the
//     folder the builder lays out for a placeholder document, whose root
//     names it by file name and format alone.
//   - Reuse: a base's segment is read by the document numbers the merge's
//     drop bitmap is given in.
//   - Search: a posting list is read as its segments' bitmaps, a few
//     nanoseconds a posting where a term reader takes some tens.
//
// TestBleveWire pins each assumption. In production a broken one is
// errBleveWire, naming the bleve this was written for, or, for the
// bitmaps, the term reader's slower, same answer
// (contracts/choices/ingest.md#ch-bleve-wire).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"
)

// errBleveWire is the fault of a bleve whose insides are not those this
// file relies on: the build holds a bleve other than the one it was
// written for.
var errBleveWire = errors.New("the search index's bleve is not the one this build was written for (bleve v2.6 with scorch and zapx v17 segments)")

// wireFault is errBleveWire, with what was found instead.
func wireFault(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errBleveWire}, args...)...)
}

// indexPlugin is the segment format the index is written in: the workers
// write their segments with it, and bleve's builder is told to use it.
var indexPlugin = &zap.ZapPlugin{}

// builderSegmentVersion is the segment version bleve's builder is told to
// lay the index folder out for: the plugin's. A variable for the tests,
// which stand for a builder that writes another.
var builderSegmentVersion = indexPlugin.Version()

// writeSegmentFile writes the segment of docs to the file path.
func writeSegmentFile(docs []index.Document, path string) error {
	seg, _, err := indexPlugin.New(docs)
	if err != nil {
		return fmt.Errorf("build index segment: %w", err)
	}
	defer seg.Close()
	us, ok := seg.(segment.UnpersistedSegment)
	if !ok {
		return wireFault("a new index segment is a %T, which cannot be written to a file", seg)
	}
	if err := us.Persist(path); err != nil {
		return fmt.Errorf("write index segment: %w", err)
	}
	return nil
}

// segmentPart is one segment file of a merge and the numbers of its
// documents the merge drops (nil for none).
type segmentPart struct {
	path string
	drop *roaring.Bitmap
}

// mergeSegmentFiles merges parts, in their order, into the file out, in
// one pass: the kept documents are numbered in the parts' order and, in
// each part, in its own. Closing closed ends the merge at its next
// segment or field. The parts' files are left as they are.
func mergeSegmentFiles(parts []segmentPart, out string, closed chan struct{}) error {
	segs := make([]segment.Segment, 0, len(parts))
	drops := make([]*roaring.Bitmap, 0, len(parts))
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	for _, p := range parts {
		s, err := indexPlugin.Open(p.path)
		if err != nil {
			return fmt.Errorf("open index segment %s: %w", filepath.Base(p.path), err)
		}
		segs = append(segs, s)
		drops = append(drops, p.drop)
	}
	if _, _, err := indexPlugin.Merge(segs, drops, out, closed, nil); err != nil {
		return fmt.Errorf("merge index segments: %w", err)
	}
	for _, s := range segs {
		if err := s.Close(); err != nil {
			return err
		}
	}
	segs = nil
	return nil
}

// segmentDocIDs calls each with the count of the documents of the
// segment file path and the number and name of each, in number order, and
// returns their count; it stops at each's first error.
func segmentDocIDs(path string, each func(count, num uint64, id string) error) (uint64, error) {
	seg, err := indexPlugin.Open(path)
	if err != nil {
		return 0, err
	}
	defer seg.Close()
	for num := range seg.Count() {
		id, err := seg.DocID(num)
		if err != nil {
			return 0, err
		}
		if err := each(seg.Count(), num, string(id)); err != nil {
			return 0, err
		}
	}
	return seg.Count(), nil
}

// indexSegment returns the path of the one segment file of the closed
// bleve index dir.
func indexSegment(dir string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		return "", err
	}
	if len(m) != 1 {
		return "", wireFault("the index folder holds %d segment files, not one", len(m))
	}
	return m[0], nil
}

// placeSegment makes dir the bleve index of mapping m whose one segment
// is the segment file merged, which it moves there; bleve's builder
// writes its work files in workDir. The builder makes the index folder
// for one placeholder document, in the segment format it is told to
// write; its root names that segment by file name alone, so the merged
// segment takes the name.
func placeSegment(dir, workDir, merged string, m mapping.IndexMapping) error {
	b, err := bleve.NewBuilder(dir, m, map[string]any{
		"buildPathPrefix":     workDir,
		"forceSegmentType":    indexPlugin.Type(),
		"forceSegmentVersion": int(builderSegmentVersion),
	})
	if err != nil {
		return err
	}
	if err := b.Index("placeholder", map[string]any{}); err != nil {
		return err
	}
	if err := b.Close(); err != nil {
		return err
	}
	placeholder, err := indexSegment(dir)
	if err != nil {
		return err
	}
	seg, err := indexPlugin.Open(merged)
	if err != nil {
		return fmt.Errorf("open the merged index segment: %w", err)
	}
	count := seg.Count()
	if err := seg.Close(); err != nil {
		return err
	}
	if err := os.Rename(merged, placeholder); err != nil {
		return err
	}
	return checkPlaced(dir, count)
}

// checkPlaced opens the index dir as a version opens it and checks that
// it holds the count documents of the segment put in place: a builder
// that wrote its folder in another segment format, or whose root records
// more of its segment than its file name, gives another count (or none).
func checkPlaced(dir string, count uint64) error {
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return wireFault("the index folder does not open with the merged segment in it: %v", err)
	}
	n, err := idx.DocCount()
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != count {
		return wireFault("the index folder holds %d documents with the merged segment of %d in it", n, count)
	}
	return nil
}

// bitmapPostings sets, in set, the bit of page ordinal ordOf[num] of every
// document number num of the index reader r whose field holds gram, read
// from the segments' own bitmaps less each one's deleted documents, with
// the numbers scorch gives: a segment's local number plus the counts of
// the segments before it. It reports false, having set nothing, where r
// is not scorch's snapshot or a segment's postings are not bitmaps.
func bitmapPostings(r index.IndexReader, field, gram string, ordOf []int32, set []uint64) (bool, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return false, nil
	}
	segs := snap.Segments()
	lists := make([]segment.OptimizablePostingsIterator, len(segs))
	for i, ss := range segs {
		d, err := ss.Segment().Dictionary(field)
		if err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
		pl, err := d.PostingsList([]byte(gram), ss.Deleted(), nil)
		if err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
		if pl.Count() == 0 {
			continue
		}
		it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
		if !ok {
			return false, nil
		}
		lists[i] = it
	}
	mark := func(num uint64) {
		if num < uint64(len(ordOf)) && ordOf[num] >= 0 {
			ord := uint32(ordOf[num])
			set[ord>>6] |= 1 << (ord & 63)
		}
	}
	var base uint64
	var buf [256]uint32
	for i, ss := range segs {
		if it := lists[i]; it != nil {
			if bm := it.ActualBitmap(); bm != nil {
				many := bm.ManyIterator()
				for n := many.NextMany(buf[:]); n > 0; n = many.NextMany(buf[:]) {
					for _, x := range buf[:n] {
						mark(base + uint64(x))
					}
				}
			} else if num, ok := it.DocNum1Hit(); ok {
				mark(base + num)
			}
		}
		base += ss.Segment().Count()
	}
	return true, nil
}
