package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// shortSection is the fewest code points other than white space a
// section's text, its heading line aside, holds without joining another
// (splitSections): a heading with no text of its own before its
// subsections joins them.
const shortSection = 1

// pieceMax is the most code points a section holds before splitLong cuts
// it into pieces at its paragraphs, so that a long section's best part
// is ranked and packed on its own.
const pieceMax = 1500

// span is one section of a page's served text: code points [start, end),
// and the page heading it starts at (an index into the page's headings),
// -1 for the lead.
type span struct {
	start, end int
	head       int
}

// splitSections cuts a page's served text, of n code points, into its
// sections: the lead before the first heading, then one per heading (the
// page's headings are those of depth 2 or deeper outside fenced code, so
// no cut falls inside a fence). A section whose text, its heading line
// aside, holds fewer than shortSection code points that are not white
// space takes in the sections after it while they are deeper (its
// subsections); one still short joins the section before it. A lead of
// white space alone is no section. Where places (the text's places a
// read starts) is given, a section longer than pieceMax is then cut
// into pieces at its paragraphs (splitLong).
func splitSections(text string, n int, hs []tzctx.Heading, places textmap.Layout) []span {
	var out []span
	if len(hs) == 0 || hs[0].Offset > 0 {
		end := n
		if len(hs) > 0 {
			end = hs[0].Offset
		}
		out = append(out, span{0, end, -1})
	}
	for i, h := range hs {
		end := n
		if i+1 < len(hs) {
			end = hs[i+1].Offset
		}
		out = append(out, span{h.Offset, end, i})
	}
	// Code-point offsets to byte offsets, for measuring the sections'
	// texts: one pass over the text.
	bytesAt := codePointBytes(text, n)
	depth := func(s span) int {
		if s.head < 0 {
			return 1
		}
		return hs[s.head].Depth
	}
	body := func(s span) int {
		t := text[bytesAt[s.start]:bytesAt[s.end]]
		if s.head >= 0 {
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				t = t[i+1:]
			} else {
				t = ""
			}
		}
		c := 0
		for _, r := range t {
			if !unicode.IsSpace(r) {
				c++
			}
		}
		return c
	}
	merged := make([]span, 0, len(out))
	for i := 0; i < len(out); i++ {
		s := out[i]
		for body(s) < shortSection && i+1 < len(out) && depth(out[i+1]) > depth(s) {
			s.end = out[i+1].end
			i++
		}
		if len(merged) > 0 && body(s) < shortSection {
			merged[len(merged)-1].end = s.end
			continue
		}
		if s.head < 0 && body(s) == 0 && i+1 < len(out) {
			continue // a lead of white space alone
		}
		merged = append(merged, s)
	}
	if places == nil {
		return merged
	}
	var pieces []span
	for _, s := range merged {
		pieces = splitLong(pieces, text, bytesAt, places, s, pieceMax)
	}
	return pieces
}

// splitLong appends section s to out, cut into pieces of at most most
// code points where it is longer: into the fewest such pieces, of about
// even length, each cut at the paragraph start (a place a read starts,
// after a blank line) nearest the even split that leaves both sides at
// least a quarter of most, else at the place a read starts nearest it
// there, else at the first paragraph start, or place a read starts,
// past most (a long fence stays whole). Each piece keeps the section's
// heading.
func splitLong(out []span, text string, bytesAt []int, places textmap.Layout, s span, most int) []span {
	least := most / 4
	for s.end-s.start > most {
		lo, hi := s.start+least, min(s.start+most, s.end-least)
		// Pieces of about even length: the cut nearest the place that
		// splits the rest evenly into the fewest pieces of at most most.
		target := s.start + (s.end-s.start)/((s.end-s.start+most-1)/most)
		para, base := -1, -1
		for p := places.NextBaseAfter(s.start); p <= hi && p < s.end; p = places.NextBaseAfter(p) {
			if p < lo {
				continue
			}
			if base < 0 || absInt(p-target) < absInt(base-target) {
				base = p
			}
			if blankBefore(text, bytesAt[p]) && (para < 0 || absInt(p-target) < absInt(para-target)) {
				para = p
			}
		}
		cut := para
		if cut < 0 {
			cut = base
		}
		if cut < 0 {
			cut = pastFence(text, bytesAt, places, hi, s.end-least)
			if cut < 0 {
				break
			}
		}
		out = append(out, span{s.start, cut, s.head})
		s.start = cut
	}
	return append(out, s)
}

// pastFence returns the first paragraph start after hi and before end,
// else the first place a read starts there, else -1.
func pastFence(text string, bytesAt []int, places textmap.Layout, hi, end int) int {
	first := -1
	for p := places.NextBaseAfter(hi); p < end; p = places.NextBaseAfter(p) {
		if blankBefore(text, bytesAt[p]) {
			return p
		}
		if first < 0 {
			first = p
		}
	}
	return first
}

// blankBefore reports whether the line before byte offset at of text
// (a line start) is blank.
func blankBefore(text string, at int) bool {
	if at < 2 || text[at-1] != '\n' {
		return false
	}
	prev := strings.LastIndexByte(text[:at-1], '\n')
	return strings.TrimSpace(text[prev+1:at-1]) == ""
}

// codePointBytes returns the byte offset of every code point of text, of n
// code points, and len(text) at n.
func codePointBytes(text string, n int) []int {
	at := make([]int, 0, n+1)
	for i := 0; i < len(text); {
		at = append(at, i)
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
	}
	return append(at, len(text))
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
