package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"
)

// indexBatch is how many pages the offline index builders turn into
// segments at a time, together: each builder's segment holds its share of
// them. Larger batches make fewer segments to merge at the end, smaller
// ones hold less in memory.
const indexBatch = 250

// indexMergeMax is how many segments a builder merges at a time: more
// than it builds, so that it merges them in one pass.
const indexMergeMax = 1 << 16

// DefaultIndexWorkers is how many bleve builders build a version's n-gram
// index at once unless told otherwise (BuildOptions.IndexWorkers), and
// MaxIndexWorkers the most a build accepts.
const (
	DefaultIndexWorkers = 2
	MaxIndexWorkers     = 64
)

// indexPlugin is the segment format the index is written in. Each
// builder is told to write it, so that the segments they build can be
// merged into one by the same plugin.
var indexPlugin = &zap.ZapPlugin{}

// indexFeed builds the n-gram index on goroutines of its own, so that the
// builder's caller reads and derives the next pages meanwhile.
//
// bleve's offline builder analyses a batch and writes its segment under
// one lock, so one builder uses one core. The feed runs workers builders,
// each on its own goroutine taking the next page from one queue, each
// writing its own index in the staging folder; at close each merges its
// segments into one, side by side, and the builders' segments are merged
// into the first builder's index, which becomes the version's. A page's
// document number in the index is thus not its ordinal; the version maps
// one to the other through the document's identifier when it opens.
type indexFeed struct {
	docs   chan indexDoc
	wg     sync.WaitGroup
	parts  []*indexPart
	path   string // the index folder the version holds
	err    error
	errs   chan error // the workers' first faults
	closed bool
	stop   atomic.Bool // set by abort: the pending pages are dropped

	workDir string // where the index and its work files are written
}

// indexPart is one builder of an indexFeed.
type indexPart struct {
	path string
	b    bleve.Builder
	n    int // pages given to b
}

type indexDoc struct {
	id   string
	data map[string]any
}

// newIndexFeed starts workers builders of the index at path, writing
// their work files in workDir.
func newIndexFeed(path, workDir string, workers int) (*indexFeed, error) {
	if workers < 1 || workers > MaxIndexWorkers {
		return nil, fmt.Errorf("%d index workers: give 1 to %d", workers, MaxIndexWorkers)
	}
	f := &indexFeed{docs: make(chan indexDoc, 64), path: path, errs: make(chan error, workers), workDir: workDir}
	for i := range workers {
		p := &indexPart{path: path}
		if workers > 1 {
			p.path = filepath.Join(workDir, fmt.Sprintf("index-part-%d", i))
		}
		var err error
		p.b, err = bleve.NewBuilder(p.path, gramMapping(), map[string]any{
			"batchSize":           max(indexBatch/workers, 1),
			"mergeMax":            indexMergeMax,
			"buildPathPrefix":     workDir,
			"forceSegmentType":    indexPlugin.Type(),
			"forceSegmentVersion": int(indexPlugin.Version()),
		})
		if err != nil {
			f.abort()
			return nil, err
		}
		f.parts = append(f.parts, p)
	}
	for _, p := range f.parts {
		f.wg.Add(1)
		go f.run(p)
	}
	return f, nil
}

func (f *indexFeed) run(p *indexPart) {
	defer f.wg.Done()
	failed := false
	for d := range f.docs {
		if failed || f.stop.Load() {
			continue
		}
		p.n++
		if err := p.b.Index(d.id, d.data); err != nil {
			failed = true
			f.errs <- indexFault(f.workDir, err)
		}
	}
}

func (f *indexFeed) add(id string, data map[string]any) error {
	select {
	case err := <-f.errs:
		f.err = err
	default:
	}
	if f.err != nil {
		return f.err
	}
	f.docs <- indexDoc{id, data}
	return nil
}

// close waits for the pending pages and builds the index: each builder's
// own, side by side, then their merge.
func (f *indexFeed) close() error {
	f.closed = true
	close(f.docs)
	f.wg.Wait()
	select {
	case err := <-f.errs:
		f.err = err
	default:
	}
	if f.err != nil {
		return f.err
	}
	// A builder given no page cannot be closed (it has no segment): it
	// is dropped, and its folder goes with the staging folder.
	var used []*indexPart
	for _, p := range f.parts {
		if p.n > 0 {
			used = append(used, p)
		}
	}
	if len(used) == 0 {
		return errors.New("the search index has no page")
	}
	errs := make([]error, len(used))
	var wg sync.WaitGroup
	for i, p := range used {
		wg.Go(func() { errs[i] = p.b.Close() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return indexFault(f.workDir, err)
	}
	if err := f.mergeParts(used); err != nil {
		return indexFault(f.workDir, err)
	}
	return nil
}

// mergeParts merges the one segment of each builder's index into the
// first's, and moves that index to the feed's path.
func (f *indexFeed) mergeParts(used []*indexPart) error {
	first := used[0]
	if len(used) > 1 {
		segs := make([]segment.Segment, 0, len(used))
		defer func() {
			for _, s := range segs {
				s.Close()
			}
		}()
		var firstSeg string
		for _, p := range used {
			path, err := partSegment(p.path)
			if err != nil {
				return err
			}
			if firstSeg == "" {
				firstSeg = path
			}
			s, err := indexPlugin.Open(path)
			if err != nil {
				return fmt.Errorf("open index segment %s: %w", filepath.Base(path), err)
			}
			segs = append(segs, s)
		}
		merged := filepath.Join(f.workDir, "index-merged.zap")
		if _, _, err := indexPlugin.Merge(segs, make([]*roaring.Bitmap, len(segs)), merged, nil, nil); err != nil {
			return fmt.Errorf("merge index segments: %w", err)
		}
		for _, s := range segs {
			if err := s.Close(); err != nil {
				return err
			}
		}
		segs = nil
		// The first builder's index records its one segment by its file
		// name alone, with the segment format every builder was told to
		// write: the merged segment takes that name.
		if err := os.Rename(merged, firstSeg); err != nil {
			return err
		}
	}
	if first.path != f.path {
		if err := os.Rename(first.path, f.path); err != nil {
			return err
		}
	}
	for _, p := range f.parts {
		if p != first {
			if err := os.RemoveAll(p.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// partSegment returns the path of the one segment file of a builder's
// closed index.
func partSegment(dir string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		return "", err
	}
	if len(m) != 1 {
		return "", fmt.Errorf("index builder left %d segments in %s, not one", len(m), filepath.Base(dir))
	}
	return m[0], nil
}

// abort stops the goroutines without building the index. The builders
// are not closed: closing one would build its index first. Their work
// files live in the staging folder and go with it, and dropping them frees
// their pending batches.
func (f *indexFeed) abort() {
	if f == nil || f.closed {
		return
	}
	f.closed = true
	f.stop.Store(true)
	close(f.docs)
	f.wg.Wait()
}
