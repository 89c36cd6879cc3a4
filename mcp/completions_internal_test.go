package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCompletionBoundsOver: a value is over the bounds past
// MaxValueChars code points or MaxWords words, and not at them.
func TestCompletionBoundsOver(t *testing.T) {
	t.Parallel()
	b := CompletionBounds{MaxValueChars: 8, MaxWords: 3}.withDefaults()
	for _, tc := range []struct {
		value string
		over  bool
	}{
		{"", false}, {"abcdefgh", false}, {"abcdefghi", true},
		{"ééééééé", false}, // 8 code points, 16 bytes
		{"a b c", false}, {"a b c d", true}, {"   a   ", false},
	} {
		if got := b.over(tc.value); got != tc.over {
			t.Errorf("over(%q) = %v, want %v", tc.value, got, tc.over)
		}
	}
	if d := (CompletionBounds{}).withDefaults(); d.MaxValueChars != DefaultCompletionValueChars || d.MaxWords != DefaultCompletionWords || d.MaxCandidates != DefaultCompletionCandidates {
		t.Errorf("defaults %+v", d)
	}
}

// pagesOf are n candidates whose titles each begin with "page", so every
// one is looked at by a title match of the word "p".
func pagesOf(n int) []candidate {
	c := make([]candidate, n)
	for i := range c {
		c[i] = candidate{value: fmt.Sprintf("/t/part/page%06d/", i), title: fmt.Sprintf("Page %d planning notes", i)}
	}
	return c
}

// TestCompletionScansBoundedCandidates: of more candidates than
// MaxCandidates, a completion keeps MaxCandidates, looks at each at most
// twice (route, then title) and says there may be more, without a total.
func TestCompletionScansBoundedCandidates(t *testing.T) {
	t.Parallel()
	g := candidates{max: 1000}
	for _, c := range pagesOf(5000) {
		if !g.add(c) {
			break
		}
	}
	if len(g.list) != 1000 || !g.cut {
		t.Fatalf("kept %d candidates of 5000, cut %v; want the bound of 1000, cut", len(g.list), g.cut)
	}
	out, scanned, err := complete(context.Background(), g, "p p p p")
	if err != nil {
		t.Fatal(err)
	}
	if scanned != 2000 {
		t.Errorf("looked at candidates %d times, want 2000: each of 1000 twice", scanned)
	}
	if len(out.Values) != maxCompletions || !out.HasMore || out.Total != 0 {
		t.Errorf("answer of %d values, hasMore %v, total %d; want %d, true, no total", len(out.Values), out.HasMore, out.Total, maxCompletions)
	}
}

// countingCtx is a context whose Err is nil for its first n calls and
// context.Canceled after, as a request's is once its client has gone.
type countingCtx struct {
	context.Context
	mu    sync.Mutex
	n     int
	calls int
}

func (c *countingCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

func (c *countingCtx) Done() <-chan struct{}       { return nil }
func (c *countingCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestCompletionObservesCancellation: a completion whose request ends
// while it looks through candidates stops at the next check, every
// completionCheckEvery candidates, with the context's error, rather
// than going on for a client that has gone.
func TestCompletionObservesCancellation(t *testing.T) {
	t.Parallel()
	g := candidates{max: 100000}
	g.list = pagesOf(100000)
	ctx := &countingCtx{Context: context.Background(), n: 3}
	_, scanned, err := complete(ctx, g, "p "+strings.Repeat("x ", 10))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("complete with its request ended: %v, want context.Canceled", err)
	}
	if want := 4 * completionCheckEvery; scanned != want || ctx.calls != 4 {
		t.Errorf("stopped after %d candidates and %d checks; want %d, at the 4th check", scanned, ctx.calls, want)
	}
}
