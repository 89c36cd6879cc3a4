package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	index "github.com/blevesearch/bleve_index_api"
)

// indexBatch is how many pages, consecutive in ordinal order, one index
// segment holds: larger batches make fewer segments to merge at the end,
// smaller ones hold less in memory, each worker one batch at a time.
const indexBatch = 125

// DefaultIndexWorkers is how many workers build a version's n-gram index
// at once unless told otherwise (BuildOptions.IndexWorkers), and
// MaxIndexWorkers the most a build accepts.
const (
	DefaultIndexWorkers = 2
	MaxIndexWorkers     = 64
)

// indexFeed builds the n-gram index on goroutines of its own, so that the
// builder's caller reads and derives the next pages meanwhile.
//
// bleve's offline builder maps, analyses and writes each batch's segment
// under one lock, on one core, and merges its segments in passes of ten.
// The feed instead cuts the pages, in the order they come, into batches
// of indexBatch, and runs workers goroutines, each taking the next batch
// from one queue, building its documents directly from the pages' n-grams
// (gramDoc) and writing its segment with bleve's segment plugin, side by
// side; at close it merges every segment in one pass, in batch order, so
// the same pages make the same index whatever the workers' timing. The index folder around the merged segment (its metadata, its
// mapping and the root that names its one segment) is bleve's builder's,
// made for a placeholder document, whose segment file the merged segment
// then replaces. A page's document number in the index is thus not its
// ordinal; the version maps one to the other through the document's
// identifier when it opens.
type indexFeed struct {
	batches chan indexBatchDocs
	pending []indexDoc // the batch being filled
	seq     int        // batches sent
	wg      sync.WaitGroup
	path    string // the index folder the version holds
	err     error
	errs    chan error // the workers' first faults
	closed  bool
	stop    atomic.Bool // set by abort: the pending pages are dropped

	mu   sync.Mutex
	segs []string // the segment files written

	workDir string // where the index and its work files are written

	// carried are the base's segments the index takes in (ReuseIndex).
	carried []carriedSegment
}

type indexDoc struct {
	id string
	g  PageGrams
}

// indexBatchDocs is batch number seq of the pages.
type indexBatchDocs struct {
	seq  int
	docs []indexDoc
}

// newIndexFeed starts workers builders of the index at path, writing
// their work files in workDir.
func newIndexFeed(path, workDir string, workers int) (*indexFeed, error) {
	if workers < 1 || workers > MaxIndexWorkers {
		return nil, fmt.Errorf("%d index workers: give 1 to %d", workers, MaxIndexWorkers)
	}
	f := &indexFeed{batches: make(chan indexBatchDocs, 1), path: path, errs: make(chan error, workers), workDir: workDir}
	for range workers {
		f.wg.Add(1)
		go f.run()
	}
	return f, nil
}

func (f *indexFeed) run() {
	defer f.wg.Done()
	failed := false
	for b := range f.batches {
		if failed || f.stop.Load() {
			continue
		}
		if err := f.batch(b); err != nil {
			failed = true
			f.errs <- indexFault(f.workDir, err)
		}
	}
}

// batch writes the segment of b. A panic in it is its fault, which the
// builder's caller gets and aborts on, so that it removes its staging
// folder: a panic on a worker's goroutine would end the process before
// any clean-up.
func (f *indexFeed) batch(b indexBatchDocs) (err error) {
	defer recovered(&err)
	docs := make([]index.Document, len(b.docs))
	for i, d := range b.docs {
		doc := newGramDoc(d.id, d.g)
		doc.AddIDField()
		docs[i] = doc
	}
	return f.writeSegment(b.seq, docs)
}

// writeSegment writes the segment of batch seq, docs, to a file of its
// own.
func (f *indexFeed) writeSegment(seq int, docs []index.Document) error {
	path := filepath.Join(f.workDir, fmt.Sprintf("index-%09d.zap", seq))
	if err := writeSegmentFile(docs, path); err != nil {
		return err
	}
	f.mu.Lock()
	f.segs = append(f.segs, path)
	f.mu.Unlock()
	return nil
}

// fault returns the workers' first fault, once one has reported it.
func (f *indexFeed) fault() error {
	select {
	case err := <-f.errs:
		f.err = err
	default:
	}
	return f.err
}

func (f *indexFeed) add(id string, g PageGrams) error {
	if err := f.fault(); err != nil {
		return err
	}
	f.pending = append(f.pending, indexDoc{id, g})
	if len(f.pending) == indexBatch {
		f.send()
	}
	return nil
}

// send queues the batch being filled.
func (f *indexFeed) send() {
	f.batches <- indexBatchDocs{f.seq, f.pending}
	f.seq++
	f.pending = nil
}

// close waits for the pending pages and builds the index: the segments'
// merge, in bleve's index folder. A stop (ctx's end) drops the batches
// not yet begun, is seen before each merge, and ends a merge under way at
// its next segment or field, so a stopped build does not wait the merge
// out; close then returns ctx's error.
func (f *indexFeed) close(ctx context.Context) error {
	f.closed = true
	if len(f.pending) > 0 {
		f.send()
	}
	close(f.batches)
	stop := context.AfterFunc(ctx, func() { f.stop.Store(true) })
	f.wg.Wait()
	stop()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.fault(); err != nil {
		return err
	}
	if len(f.segs) == 0 && f.kept() == 0 {
		return errors.New("the search index has no page")
	}
	sort.Strings(f.segs)
	if err := f.build(ctx); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return indexFault(f.workDir, err)
	}
	return nil
}

// kept counts the documents of base segments the index takes in.
func (f *indexFeed) kept() uint64 {
	var n uint64
	for _, c := range f.carried {
		n += c.keep.GetCardinality()
	}
	return n
}

// mergeFanIn is how many segments one merge opens at most: each holds a
// file descriptor and a mapping while it merges, so a site of many
// batches (800 at 100,000 pages) merges in rounds, consecutive segments
// in batch order, rather than all at once. A variable for the tests.
var mergeFanIn = 64

// build merges the segments into one and puts it in bleve's index folder.
func (f *indexFeed) build(ctx context.Context) error {
	// The merges end at their next segment or field once closed is.
	closed := make(chan struct{})
	defer context.AfterFunc(ctx, func() { close(closed) })()
	segs := f.segs
	// Rounds of at most mergeFanIn consecutive segments, in batch order,
	// until one merge takes the rest: the same pages in the same order,
	// so the same index.
	for round := 0; len(segs) > mergeFanIn; round++ {
		var next []string
		for i := 0; i < len(segs); i += mergeFanIn {
			group := segs[i:min(i+mergeFanIn, len(segs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			out := filepath.Join(f.workDir, fmt.Sprintf("index-round%d-%06d.zap", round, i/mergeFanIn))
			if err := mergeSegments(group, out, closed); err != nil {
				return err
			}
			next = append(next, out)
		}
		segs = next
	}
	var merged string
	if len(segs) == 1 && f.kept() == 0 {
		merged = segs[0]
	} else {
		if err := ctx.Err(); err != nil {
			return err
		}
		merged = filepath.Join(f.workDir, "index-merged.zap")
		if err := mergeCarried(segs, f.carried, merged, closed); err != nil {
			return err
		}
	}
	return placeSegment(f.path, f.workDir, merged, gramMapping())
}

// mergeSegments merges the segment files paths into the file merged, in
// one pass, and removes them. Closing closed ends the merge at its next
// segment or field.
func mergeSegments(paths []string, merged string, closed chan struct{}) error {
	return mergeCarried(paths, nil, merged, closed)
}

// mergeCarried is mergeSegments, the merge also taking the segments
// carried after paths', less each one's dropped documents. The carried
// segments' files are a base version's: they are left as they are.
func mergeCarried(paths []string, carried []carriedSegment, merged string, closed chan struct{}) error {
	parts := make([]segmentPart, 0, len(paths)+len(carried))
	for _, p := range paths {
		parts = append(parts, segmentPart{path: p})
	}
	for i := range carried {
		if !carried[i].keep.IsEmpty() {
			parts = append(parts, segmentPart{path: carried[i].path, drop: carried[i].drop()})
		}
	}
	if err := mergeSegmentFiles(parts, merged, closed); err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// abort stops the goroutines without building the index. The segments
// written live in the staging folder and go with it, and the pending
// batches are dropped.
func (f *indexFeed) abort() {
	if f == nil || f.closed {
		return
	}
	f.closed = true
	f.stop.Store(true)
	f.pending = nil
	close(f.batches)
	f.wg.Wait()
}
