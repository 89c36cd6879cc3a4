package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"
)

// Layout is the limit-independent place table of a text that ingest
// computes once: the code-point offsets of every line start and of the
// base places (line starts outside fenced code).
type Layout struct {
	Total      int
	LineStarts []uint32
	Bases      []uint32
}

const (
	layoutMagic     = "TZL1"
	checkpointEvery = 64
	headerSize      = 4 + 4*5 + sha256.Size
)

// checkpoints appends to checks the byte offset, plus base, of every
// code point of text whose index, plus n, is a multiple of
// checkpointEvery.
func checkpoints(text string, base uint32, n int, checks []uint32) []uint32 {
	for i := range text {
		if n%checkpointEvery == 0 {
			checks = append(checks, base+uint32(i))
		}
		n++
	}
	return checks
}

// encodeLayout serialises a text's layout with its stamp sum and its
// code-point checkpoints, so that a read at any offset costs the same as
// at 0.
func encodeLayout(text string, l Layout, sum [sha256.Size]byte, checks []uint32) ([]byte, error) {
	if len(text) > 1<<32-1 {
		return nil, fmt.Errorf("text of %d bytes is over the 4 GiB bound", len(text))
	}
	if n := utf8.RuneCountInString(text); n != l.Total {
		return nil, fmt.Errorf("layout total %d does not match the text's %d code points", l.Total, n)
	}
	return encodeLayoutParts(l, sum, checks)
}

// encodeLayoutParts serialises a layout whose text the caller checked.
func encodeLayoutParts(l Layout, sum [sha256.Size]byte, checks []uint32) ([]byte, error) {
	if want := (l.Total + checkpointEvery - 1) / checkpointEvery; len(checks) != want {
		return nil, fmt.Errorf("%d code-point checkpoints for %d code points, want %d", len(checks), l.Total, want)
	}
	buf := make([]byte, 0, headerSize+4*(len(l.LineStarts)+len(l.Bases)+len(checks)))
	buf = append(buf, layoutMagic...)
	for _, v := range []int{l.Total, len(l.LineStarts), len(l.Bases), checkpointEvery, len(checks)} {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	buf = append(buf, sum[:]...)
	for _, arr := range [][]uint32{l.LineStarts, l.Bases, checks} {
		for _, v := range arr {
			buf = binary.LittleEndian.AppendUint32(buf, v)
		}
	}
	return buf, nil
}

// Text is one stored text: its bytes and its place table, both read in
// place from the version's memory-mapped file, so nothing is decoded per
// read. It satisfies the chunker's layout interface.
type Text struct {
	raw    []byte
	total  int
	lines  []byte
	bases  []byte
	checks []byte
	every  int
	stamp  [sha256.Size]byte
}

func decodeText(raw, layout []byte) (*Text, error) {
	if len(layout) < headerSize || string(layout[:4]) != layoutMagic {
		return nil, errors.New("corrupt text layout")
	}
	u := func(i int) int { return int(binary.LittleEndian.Uint32(layout[4+4*i:])) }
	t := &Text{raw: raw, total: u(0), every: u(3)}
	nl, nb, nc := u(1), u(2), u(4)
	copy(t.stamp[:], layout[24:24+sha256.Size])
	rest := layout[headerSize:]
	if len(rest) != 4*(nl+nb+nc) || t.every != checkpointEvery || nc != (t.total+t.every-1)/t.every {
		return nil, errors.New("corrupt text layout")
	}
	t.lines, rest = rest[:4*nl], rest[4*nl:]
	t.bases, t.checks = rest[:4*nb], rest[4*nb:]
	return t, nil
}

// Total returns the text's length in code points.
func (t *Text) Total() int { return t.total }

// Stamp returns the SHA-256 of the whole text in lower-case hex.
func (t *Text) Stamp() string { return hex.EncodeToString(t.stamp[:]) }

// Bytes returns the whole text's bytes; the caller must not modify them.
func (t *Text) Bytes() []byte { return t.raw }

func at(tab []byte, i int) int { return int(binary.LittleEndian.Uint32(tab[4*i:])) }

// lastAtOrBefore returns the index of the last entry <= x, or -1.
func lastAtOrBefore(tab []byte, x int) int {
	lo, hi := 0, len(tab)/4 // first index with value > x lies in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if at(tab, m) <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// LastBaseAtOrBefore returns the largest base place <= x.
func (t *Text) LastBaseAtOrBefore(x int) int {
	if i := lastAtOrBefore(t.bases, x); i >= 0 {
		return at(t.bases, i)
	}
	return 0
}

// NextBaseAfter returns the smallest base place > x, or the total.
func (t *Text) NextBaseAfter(x int) int {
	i := lastAtOrBefore(t.bases, x) + 1
	if i < len(t.bases)/4 {
		return at(t.bases, i)
	}
	return t.total
}

// LastLineStartIn returns the largest line start s with lo < s <= hi.
func (t *Text) LastLineStartIn(lo, hi int) (int, bool) {
	i := lastAtOrBefore(t.lines, hi)
	if i < 0 {
		return 0, false
	}
	s := at(t.lines, i)
	return s, s > lo
}

// byteOffset maps a code-point offset to a byte offset. A damaged table
// gives a wrong offset, never one outside the text.
func (t *Text) byteOffset(cp int) int {
	if cp >= t.total {
		return len(t.raw)
	}
	if cp <= 0 {
		return 0
	}
	k := cp / t.every
	b := min(at(t.checks, k), len(t.raw))
	for n := cp - k*t.every; n > 0 && b < len(t.raw); n-- {
		_, sz := utf8.DecodeRune(t.raw[b:])
		b += sz
	}
	return b
}

// Slice returns the code points [begin, end) as a new string.
func (t *Text) Slice(begin, end int) string {
	b, e := t.byteOffset(begin), t.byteOffset(end)
	if e < b {
		return ""
	}
	return string(t.raw[b:e])
}

// check reports the first way the text and its table disagree: invalid
// UTF-8, a total, stamp or checkpoint that is not the text's, or place
// tables that do not ascend within the text.
func (t *Text) check() error {
	if !utf8.Valid(t.raw) {
		return errors.New("is not valid UTF-8")
	}
	if sha256.Sum256(t.raw) != t.stamp {
		return errors.New("does not match its stamp")
	}
	n := 0
	for i := range string(t.raw) {
		if n%t.every == 0 && at(t.checks, n/t.every) != i {
			return fmt.Errorf("has a wrong checkpoint at code point %d", n)
		}
		n++
	}
	if n != t.total {
		return fmt.Errorf("has %d code points, its table says %d", n, t.total)
	}
	for name, tab := range map[string][]byte{"line starts": t.lines, "places": t.bases} {
		prev := -1
		for i := 0; i < len(tab)/4; i++ {
			v := at(tab, i)
			if v <= prev || v > t.total || i == 0 && v != 0 {
				return fmt.Errorf("has %s that do not ascend from 0 within the text", name)
			}
			prev = v
		}
	}
	return nil
}

// Borrow returns the code points [begin, end) as a string that shares
// the version's memory-mapped file, without a copy. It is valid only
// while the caller holds a reference to the version (Acquire): the
// version's last Release unmaps the file, after which reading the string
// faults.
func (t *Text) Borrow(begin, end int) string {
	b, e := t.byteOffset(begin), t.byteOffset(end)
	if e <= b {
		return ""
	}
	return unsafe.String(&t.raw[b], e-b)
}
