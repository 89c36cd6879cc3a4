package textmap

import (
	"strings"
	"testing"
)

// countingLayout wraps a Layout and counts the calls Chunk makes, so the
// tests can hold Chunk to its cost bound through the interface alone.
type countingLayout struct {
	Layout
	calls int
}

func (c *countingLayout) LastBaseAtOrBefore(x int) int {
	c.calls++
	return c.Layout.LastBaseAtOrBefore(x)
}

func (c *countingLayout) NextBaseAfter(x int) int {
	c.calls++
	return c.Layout.NextBaseAfter(x)
}

func (c *countingLayout) LastLineStartIn(lo, hi int) (int, bool) {
	c.calls++
	return c.Layout.LastLineStartIn(lo, hi)
}

// TestChunkCost checks that Chunk does not walk the text: on a text of a
// million code points its interface calls stay logarithmic, or bounded by
// the chain steps of the base gap it touches.
func TestChunkCost(t *testing.T) {
	const n = 1 << 20
	tests := []struct {
		name     string
		text     string
		limit    int
		maxCalls int
	}{
		// One long line: a run of long-line places is one chain step.
		{"text without line end, limit 1", strings.Repeat("x", n), 1, 100},
		{"text without line end, limit 7", strings.Repeat("x", n), 7, 100},
		// Every line start is a base: no chain at all.
		{"short lines, limit 1", strings.Repeat("ab\n", n/3), 1, 10},
		{"short lines, limit 50", strings.Repeat("ab\n", n/3), 50, 10},
		// An unterminated fence of short lines is one base gap whose
		// chain takes one step per limit of text: (n/4)/limit steps at
		// most, each a handful of calls.
		{"unterminated fence, limit 4096", "```\n" + strings.Repeat("abc\n", n/4), 4096, 4 * (n / 4096)},
		// Long lines inside a fence: each line's run is one step.
		{"fence of long lines, limit 3", "```\n" + strings.Repeat(strings.Repeat("y", 4095)+"\n", n/4096), 3, 100 * (n / 4096)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Scan(tt.text)
			total := m.Total()
			for _, off := range []int{0, 1, total / 3, total / 2, total - tt.limit - 1, total - 1} {
				if off < 0 {
					continue
				}
				c := &countingLayout{Layout: m}
				b, e := Chunk(c, off, tt.limit)
				if c.calls > tt.maxCalls {
					t.Errorf("Chunk(%d, %d) made %d calls, want at most %d", off, tt.limit, c.calls, tt.maxCalls)
				}
				if off-b >= tt.limit || e <= off || e-b > 2*tt.limit {
					t.Errorf("Chunk(%d, %d) = [%d,%d)", off, tt.limit, b, e)
				}
			}
		})
	}
}
