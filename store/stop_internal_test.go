package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/stepctx"
)

// stagedBuilder starts a build in s, with workers index workers, holding
// n pages of one tree, each of the copy "x" and indexTestGrams.
func stagedBuilder(t *testing.T, s *Store, n, workers int) *Builder {
	t.Helper()
	b, err := s.NewBuilderWith(BuildOptions{IndexWorkers: workers})
	if err != nil {
		t.Fatal(err)
	}
	var pages []tzctx.Page
	for i := range n {
		pages = append(pages, tzctx.Page{Path: fmt.Sprintf("p%d", i), Route: fmt.Sprintf("/cloud/p%d/", i), Title: "P"})
	}
	if err := b.PutTree("cloud", "Cloud", pages); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if err := b.PutText("cloud", p.Route, "x", Layout{Total: 1, LineStarts: []uint32{0}, Bases: []uint32{0}}); err != nil {
			t.Fatal(err)
		}
		if err := b.IndexPage(i, indexTestGrams(i)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestWriteDBStopsAtTheNextKey: writing the bbolt file sees a stop at
// the next key: a site of a million pages puts two million.
func TestWriteDBStopsAtTheNextKey(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := stagedBuilder(t, s, 20, 1)
	defer b.Abort()
	ctx := stepctx.New(3)
	if err := b.writeDB(ctx, []byte("{}")); !errors.Is(err, context.Canceled) || ctx.Checks() != 4 {
		t.Fatalf("writeDB = %v after %d checks, want context.Canceled at check 4 (the fourth key)", err, ctx.Checks())
	}
}

// TestSyncTreeStopsAtTheNextFile: syncing the staging folder sees a stop
// at the next file.
func TestSyncTreeStopsAtTheNextFile(t *testing.T) {
	dir := t.TempDir()
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := stepctx.New(2)
	if err := syncTree(ctx, dir); !errors.Is(err, context.Canceled) || ctx.Checks() != 3 {
		t.Fatalf("syncTree = %v after %d checks, want context.Canceled at check 3", err, ctx.Checks())
	}
}

// feedOf starts an index feed of one worker in work and adds n pages.
func feedOf(t *testing.T, work string, n int) *indexFeed {
	t.Helper()
	f, err := newIndexFeed(filepath.Join(work, indexDir), work, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := f.add(fmt.Sprint(i), indexTestGrams(i)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestIndexMergeStopsBetweenMerges: the index's merge sees a stop before
// each merge: with a fan-in of 2, five segments merge in rounds, and a
// stop at the second merge leaves the first one's output alone, returning
// context.Canceled rather than waiting out the merge.
func TestIndexMergeStopsBetweenMerges(t *testing.T) {
	defer func(was int) { mergeFanIn = was }(mergeFanIn)
	mergeFanIn = 2
	work := t.TempDir()
	f := feedOf(t, work, 5*indexBatch)
	// Check 1 follows the workers, 2 and 3 precede the first two merges;
	// close then reports the stop (check 4).
	ctx := stepctx.New(2)
	if err := f.close(ctx); !errors.Is(err, context.Canceled) || ctx.Checks() != 4 {
		t.Fatalf("close = %v after %d checks, want context.Canceled at check 3 (the second merge), reported at 4", err, ctx.Checks())
	}
	rounds, _ := filepath.Glob(filepath.Join(work, "index-round*.zap"))
	if len(rounds) != 1 {
		t.Errorf("%d merges ran, want 1: %v", len(rounds), rounds)
	}
}

// TestIndexMergeEndsWhenClosed: a merge ends once its channel is closed,
// writing no output: the stop of a build under way ends the merge it is
// in (the last merge of a large site took 0.65 s, waited out before).
func TestIndexMergeEndsWhenClosed(t *testing.T) {
	work := t.TempDir()
	f := feedOf(t, work, 2*indexBatch)
	f.send()
	close(f.batches)
	f.closed = true
	f.wg.Wait()
	closed := make(chan struct{})
	close(closed)
	out := filepath.Join(work, "merged.zap")
	if err := mergeSegments(f.segs, out, closed); err == nil {
		t.Fatal("a merge with its channel closed succeeded")
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped merge left its output: %v", err)
	}
}

// TestFailedBuildLeavesNoFolder: a build into a data directory that
// OpenDeferred opened and that did not exist leaves no folder when it is
// stopped at any check of its commit, or aborted; a committed one keeps
// the directory.
func TestFailedBuildLeavesNoFolder(t *testing.T) {
	defer func(was int) { mergeFanIn = was }(mergeFanIn)
	mergeFanIn = 2
	const n = 3 * indexBatch
	// The commit checks once, then at each of n keys, then as the index
	// closes and merges, then as it syncs and sums.
	for _, passes := range []int{0, 1, n / 2, n + 1, n + 2, n + 3, n + 4, n + 6, n + 10} {
		t.Run(fmt.Sprint(passes), func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			s, err := OpenDeferred(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("OpenDeferred made the data directory: %v", err)
			}
			b := stagedBuilder(t, s, n, 1)
			ctx := stepctx.New(passes)
			err = b.Commit(ctx, Meta{Name: "v", Created: time.Now(), Digest: "d", Pages: n})
			t.Logf("commit after %d checks: %v", ctx.Checks(), err)
			if err == nil {
				if _, err := os.Stat(filepath.Join(data, versionsDir, "v")); err != nil {
					t.Fatalf("the committed version is not there: %v", err)
				}
				return
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Commit = %v, want context.Canceled", err)
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a build stopped at check %d left the data directory: %v", ctx.Checks(), err)
			}
		})
	}
	t.Run("abort", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		s, err := OpenDeferred(data)
		if err != nil {
			t.Fatal(err)
		}
		stagedBuilder(t, s, 3, 1).Abort()
		if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("an aborted build left the data directory: %v", err)
		}
	})
	t.Run("existing directory stays", func(t *testing.T) {
		data := t.TempDir()
		s, err := OpenDeferred(data)
		if err != nil {
			t.Fatal(err)
		}
		stagedBuilder(t, s, 3, 1).Abort()
		if _, err := os.Stat(data); err != nil {
			t.Errorf("an aborted build removed a data directory it did not make: %v", err)
		}
	})
}
