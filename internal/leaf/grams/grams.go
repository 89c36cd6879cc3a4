// Package grams turns lower-cased text into the n-grams the search index
// holds and query words into the n-grams to look up, so that for every
// word the pages whose n-grams hold all of the word's are a superset of the
// pages holding the word as a substring.
//
// A query word holds no whitespace, so each of its occurrences in a page
// lies inside one whitespace-separated token of the page. The index keeps
// every distinct 1-, 2- and 3-gram (in code points) of every token; a word
// of three or more code points is looked up as the AND of its 3-grams, a
// shorter word as itself.
package grams

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Words lower-cases s with strings.ToLower and splits it with
// strings.Fields: the query normalisation of the contract.
func Words(s string) []string { return strings.Fields(strings.ToLower(s)) }

// Of returns the distinct 1-, 2- and 3-grams of the whitespace-separated
// tokens of lower, which the caller has lower-cased, joined by one space,
// in the order of their first ends.
func Of(lower string) string {
	if !utf8.ValidString(lower) {
		return ofRunes(lower)
	}
	set := sets.Get().(*gramSet)
	defer sets.Put(set)
	set.reset(len(lower))
	out := make([]byte, 0, len(lower)*2)
	// s0, s1 and s2 are the byte offsets of the last three code points
	// of the current token, oldest first, and r0, r1, r2 the code
	// points: each n-gram is a substring of lower.
	var s0, s1, s2 int
	var r0, r1, r2 rune
	n := 0 // code points in the current token so far
	for i, r := range lower {
		if r < utf8.RuneSelf {
			if asciiSpace[r] {
				n = 0
				continue
			}
		} else if unicode.IsSpace(r) {
			n = 0
			continue
		}
		end := i + utf8.RuneLen(r)
		r0, r1, r2 = r1, r2, r
		s0, s1, s2 = s1, s2, i
		n++
		if set.add(1<<21 | uint64(r2)) {
			out = appendGram(out, lower[s2:end])
		}
		if n >= 2 && set.add((2<<21|uint64(r1))<<21|uint64(r2)) {
			out = appendGram(out, lower[s1:end])
		}
		if n >= 3 && set.add(((3<<21|uint64(r0))<<21|uint64(r1))<<21|uint64(r2)) {
			out = appendGram(out, lower[s0:end])
		}
	}
	_ = r0
	return string(out)
}

func appendGram(out []byte, g string) []byte {
	if len(out) > 0 {
		out = append(out, ' ')
	}
	return append(out, g...)
}

// asciiSpace marks the ASCII code points unicode.IsSpace holds.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// ofRunes is Of for a text that is not valid UTF-8, whose invalid bytes
// count as U+FFFD, as ranging over it decodes them.
func ofRunes(lower string) string {
	seen := map[uint64]struct{}{}
	var b strings.Builder
	var win [3]rune
	n := 0
	add := func(rs []rune) {
		k := uint64(len(rs))
		for _, r := range rs {
			k = k<<21 | uint64(r)
		}
		if _, ok := seen[k]; ok {
			return
		}
		seen[k] = struct{}{}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for _, r := range rs {
			b.WriteRune(r)
		}
	}
	for _, r := range lower {
		if unicode.IsSpace(r) {
			n = 0
			continue
		}
		win[0], win[1], win[2] = win[1], win[2], r
		n++
		add(win[2:])
		if n >= 2 {
			add(win[1:])
		}
		if n >= 3 {
			add(win[:])
		}
	}
	return b.String()
}

// gramSet is an open-addressing set of n-gram keys, reused across calls
// of Of through sets. A key is never 0: it holds its n-gram's length.
type gramSet struct {
	keys []uint64
	n    int
}

var sets = sync.Pool{New: func() any { return &gramSet{} }}

// reset empties the set, sized for a text of size bytes.
func (s *gramSet) reset(size int) {
	want := 1024
	for want < size/2 {
		want <<= 1
	}
	if len(s.keys) < want || len(s.keys) > 16*want {
		s.keys = make([]uint64, want)
	} else {
		clear(s.keys)
	}
	s.n = 0
}

// add inserts k and reports whether it was absent.
func (s *gramSet) add(k uint64) bool {
	keys := s.keys
	mask := uint64(len(keys) - 1)
	i := (k * 0x9e3779b97f4a7c15) >> 40 & mask
	for {
		switch keys[i] {
		case k:
			return false
		case 0:
			keys[i] = k
			s.n++
			if 2*s.n > len(keys) {
				s.grow()
			}
			return true
		}
		i = (i + 1) & mask
	}
}

// grow doubles the table.
func (s *gramSet) grow() {
	old := s.keys
	s.keys = make([]uint64, 2*len(old))
	s.n = 0
	for _, o := range old {
		if o != 0 {
			s.add(o)
		}
	}
}

// Lookup returns the n-grams to look up for one lower-cased query word:
// the word itself under three code points, else its distinct 3-grams.
func Lookup(word string) []string {
	if utf8.RuneCountInString(word) < 3 {
		return []string{word}
	}
	rs := []rune(word)
	var out []string
	seen := map[string]bool{}
	for i := 0; i+3 <= len(rs); i++ {
		g := string(rs[i : i+3])
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}
