package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// countingWriter counts the writes it takes.
type countingWriter struct {
	mu     sync.Mutex
	b      strings.Builder
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.b.Write(p)
}

// TestLineWriterKeepsEveryLineInOrder: lines from several goroutines all
// arrive, each whole and each goroutine's in its order, with no more
// writes than lines; lines written after Close arrive too.
func TestLineWriterKeepsEveryLineInOrder(t *testing.T) {
	t.Parallel()
	dst := &countingWriter{}
	lw := NewLineWriter(dst)
	const writers, each = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				fmt.Fprintf(lw, "g%d line %d\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(lw, "after close\n")
	lines := strings.Split(strings.TrimSuffix(dst.b.String(), "\n"), "\n")
	if len(lines) != writers*each+1 || lines[len(lines)-1] != "after close" {
		t.Fatalf("%d lines, last %q; want %d, last \"after close\"", len(lines), lines[len(lines)-1], writers*each+1)
	}
	next := make([]int, writers)
	for _, l := range lines[:len(lines)-1] {
		var g, i int
		if _, err := fmt.Sscanf(l, "g%d line %d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("line %q out of order or torn (want line %d of g%d)", l, next[g], g)
		}
		next[g]++
	}
	if dst.writes > len(lines) {
		t.Errorf("%d writes for %d lines", dst.writes, len(lines))
	}
	t.Logf("%d lines in %d writes", len(lines), dst.writes)
}

// TestLineWriterWritesAnIdleLine: a line written to an idle writer
// reaches the destination without Close.
func TestLineWriterWritesAnIdleLine(t *testing.T) {
	t.Parallel()
	dst := &testkit.SyncBuffer{}
	lw := NewLineWriter(dst)
	defer lw.Close()
	fmt.Fprintf(lw, "one line\n")
	if !waitFor(5e9, func() bool { return dst.String() == "one line\n" }) {
		t.Fatalf("the line did not arrive: %q", dst.String())
	}
}
