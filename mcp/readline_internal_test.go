package mcp

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"testing"
)

// repeatReader yields n bytes of b, then a newline, without allocating.
type repeatReader struct {
	b    byte
	n    int64
	done bool
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	if r.n == 0 {
		p[0], r.done = '\n', true
		return 1, nil
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

// TestReadLineKeepsAtMostTheBound: a 50 MB line over a 1 MiB bound is read
// to its end while keeping at most the bound: the bytes allocated while it
// is read (a count, not a measure of memory the machine's load changes)
// stay within a few times the bound (the kept prefix's growth), where keeping the line would
// allocate over 50 MB.
func TestReadLineKeepsAtMostTheBound(t *testing.T) {
	const limit = 1 << 20
	r := bufio.NewReader(&repeatReader{b: 'x', n: 50 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, over, err := readLine(r, limit)
	runtime.ReadMemStats(&after)
	if err != nil || !over || len(line) != limit || !bytes.Equal(line[:8], []byte("xxxxxxxx")) {
		t.Fatalf("readLine of a 50 MB line: %d bytes kept, over %v, %v; want the first %d bytes, over", len(line), over, err, limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*limit {
		t.Errorf("reading a 50 MB line allocated %d bytes; want at most %d, far under the line's 50 MB: the line is read, not kept", alloc, 16*limit)
	}
	// The next line reads whole.
	r = bufio.NewReader(io.MultiReader(&repeatReader{b: 'y', n: limit + 1}, bytes.NewReader([]byte("{}\n"))))
	if _, over, err := readLine(r, limit); !over || err != nil {
		t.Fatalf("the long line: over %v, %v", over, err)
	}
	if line, over, err := readLine(r, limit); over || err != nil || string(line) != "{}\n" {
		t.Errorf("the line after a long one: %q, over %v, %v", line, over, err)
	}
}
