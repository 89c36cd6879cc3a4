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
	"unicode"
	"unicode/utf8"
)

// Words lower-cases s with strings.ToLower and splits it with
// strings.Fields: the query normalisation of the contract.
func Words(s string) []string { return strings.Fields(strings.ToLower(s)) }

// Of returns the distinct 1-, 2- and 3-grams of the whitespace-separated
// tokens of lower, which the caller has lower-cased, joined by one space.
func Of(lower string) string {
	seen := make(map[uint64]struct{}, len(lower)/4)
	var b strings.Builder
	var win [3]rune
	n := 0 // runes in the current token so far
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
