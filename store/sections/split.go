package sections

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// shortSection is the fewest code points other than white space a
// section's text, its heading line aside, holds without joining another
// (Split): a heading with no text of its own before its
// subsections joins them.
const shortSection = 1

// PieceMax is the most code points a section holds before splitLong cuts
// it into pieces at its paragraphs, so that a long section's best part
// is ranked and packed on its own.
const PieceMax = 1500

// CodePieceMin is the fewest code points a fenced code block holds to be
// a piece of its own (splitCode): its lines are ranked and packed apart
// from the prose around it, so that a long listing neither carries the
// prose beside it into a pack nor crowds it out of one. ProseMin is the
// fewest code points other than white space the text on either side of
// such a block holds to be a piece apart from it; less (a caption, a
// closing tag, a heading line alone) stays with the block.
const (
	CodePieceMin = 400
	ProseMin     = 80
)

// Span is one section of a page's served text: code points [Start, End),
// and the page heading it starts at (Head, an index into the page's
// headings), -1 for the lead.
type Span struct {
	Start, End int
	Head       int
	// Code is set for a piece that is a long fenced code block
	// (splitCode), whose terms count once each (FirstOnly).
	Code bool
}

// Split cuts a page's served text, of n code points, into its
// sections: the lead before the first heading, then one per heading (the
// page's headings are those of depth 2 or deeper outside fenced code, so
// no cut falls inside a fence). A section whose text, its heading line
// aside, holds fewer than shortSection code points that are not white
// space takes in the sections after it while they are deeper (its
// subsections); one still short joins the section before it. A lead of
// white space alone is no section. Where places (the text's places a
// read starts) is given, a section longer than PieceMax is then cut
// into pieces at its paragraphs (splitLong).
func Split(text string, n int, hs []tzctx.Heading, places textmap.Layout) []Span {
	var out []Span
	if len(hs) == 0 || hs[0].Offset > 0 {
		end := n
		if len(hs) > 0 {
			end = hs[0].Offset
		}
		out = append(out, Span{Start: 0, End: end, Head: -1})
	}
	for i, h := range hs {
		end := n
		if i+1 < len(hs) {
			end = hs[i+1].Offset
		}
		out = append(out, Span{Start: h.Offset, End: end, Head: i})
	}
	// Code-point offsets to byte offsets, for measuring the sections'
	// texts: one pass over the text.
	bytesAt := CodePointBytes(text, n)
	depth := func(s Span) int {
		if s.Head < 0 {
			return 1
		}
		return hs[s.Head].Depth
	}
	body := func(s Span) int {
		t := text[bytesAt[s.Start]:bytesAt[s.End]]
		if s.Head >= 0 {
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
	merged := make([]Span, 0, len(out))
	for i := 0; i < len(out); i++ {
		s := out[i]
		for body(s) < shortSection && i+1 < len(out) && depth(out[i+1]) > depth(s) {
			s.End = out[i+1].End
			i++
		}
		if len(merged) > 0 && body(s) < shortSection {
			merged[len(merged)-1].End = s.End
			continue
		}
		if s.Head < 0 && body(s) == 0 && i+1 < len(out) {
			continue // a lead of white space alone
		}
		merged = append(merged, s)
	}
	if places == nil {
		return merged
	}
	var pieces []Span
	for _, s := range merged {
		for _, c := range splitCode(text, bytesAt, places, s) {
			pieces = splitLong(pieces, text, bytesAt, places, c, PieceMax)
		}
	}
	return pieces
}

// splitCode cuts section s at the fenced code blocks of at least
// CodePieceMin code points it holds: each such block is a piece of its
// own, and so is the text between two of them, or before the first or
// after the last, where it holds at least ProseMin code points other
// than white space; less joins the block after it where it comes first,
// else the block before it. A block runs from a place a read starts
// whose line opens a fence to the next place, the line after the fence's
// closing line (the places follow the fence rule), so every cut is a
// place a read starts.
func splitCode(text string, bytesAt []int, places textmap.Layout, s Span) []Span {
	var blocks []Span
	for p := s.Start; p < s.End; {
		q := min(places.NextBaseAfter(p), s.End)
		if q-p >= CodePieceMin && opensFence(text[bytesAt[p]:bytesAt[q]]) {
			// The blank lines after the block are the block's, so that the
			// text after it starts a paragraph.
			for q < s.End && text[bytesAt[q]] == '\n' {
				q = min(places.NextBaseAfter(q), s.End)
			}
			blocks = append(blocks, Span{p, q, s.Head, true})
		}
		p = q
	}
	if len(blocks) == 0 {
		return []Span{s}
	}
	short := func(a, b int) bool { return prose(text[bytesAt[a]:bytesAt[b]]) < ProseMin }
	var out []Span
	if short(s.Start, blocks[0].Start) {
		blocks[0].Start = s.Start
	} else {
		out = append(out, Span{Start: s.Start, End: blocks[0].Start, Head: s.Head})
	}
	for i, b := range blocks {
		end := s.End
		if i+1 < len(blocks) {
			end = blocks[i+1].Start
		}
		if short(b.End, end) {
			b.End = end
			out = append(out, b)
			continue
		}
		out = append(out, b, Span{Start: b.End, End: end, Head: s.Head})
	}
	return out
}

// opensFence reports whether the first line of run opens a fenced code
// block: three or more backticks or tildes after its indentation.
func opensFence(run string) bool {
	line, _, _ := strings.Cut(run, "\n")
	line = strings.TrimLeft(line, " \t")
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}

// prose returns the code points other than white space of t.
func prose(t string) int {
	c := 0
	for _, r := range t {
		if !unicode.IsSpace(r) {
			c++
		}
	}
	return c
}

// splitLong appends section s to out, cut into pieces of at most most
// code points where it is longer: into the fewest such pieces, of about
// even length, each cut at the paragraph start (a place a read starts,
// after a blank line) nearest the even split that leaves both sides at
// least a quarter of most, else at the place a read starts nearest it
// there, else at the first paragraph start, or place a read starts,
// past most (a long fence stays whole). Each piece keeps the section's
// heading.
func splitLong(out []Span, text string, bytesAt []int, places textmap.Layout, s Span, most int) []Span {
	least := most / 4
	for s.End-s.Start > most {
		lo, hi := s.Start+least, min(s.Start+most, s.End-least)
		// Pieces of about even length: the cut nearest the place that
		// splits the rest evenly into the fewest pieces of at most most.
		target := s.Start + (s.End-s.Start)/((s.End-s.Start+most-1)/most)
		para, base := -1, -1
		for p := places.NextBaseAfter(s.Start); p <= hi && p < s.End; p = places.NextBaseAfter(p) {
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
			cut = pastFence(text, bytesAt, places, hi, s.End-least)
			if cut < 0 {
				break
			}
		}
		out = append(out, Span{s.Start, cut, s.Head, s.Code})
		s.Start = cut
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

// CodePointBytes returns the byte offset of every code point of text, of n
// code points, and len(text) at n.
func CodePointBytes(text string, n int) []int {
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

// HeadingPath returns the indexes of the headings enclosing heading h and
// h itself, outer to inner; none for the lead (h < 0).
func HeadingPath(hs []tzctx.Heading, h int) []int {
	if h < 0 {
		return nil
	}
	path := []int{h}
	d := hs[h].Depth
	for i := h - 1; i >= 0; i-- {
		if hs[i].Depth < d {
			path = append(path, i)
			d = hs[i].Depth
		}
	}
	slices.Reverse(path)
	return path
}

// Title is the text of a section's title field: the page's title and the
// texts of its heading path.
func Title(title string, hs []tzctx.Heading, head int) string {
	for _, i := range HeadingPath(hs, head) {
		title += "\n" + hs[i].Text
	}
	return title
}

// FirstOnly returns emit where code is false, else an emit that passes on
// each term's first place alone: in a code piece a name repeats because
// the code's syntax needs it (a parameter, a type, a receiver), not
// because the piece is more about it, so each term counts once there.
// The piece's length still counts every term.
func FirstOnly(code bool, emit func(term string, pos int)) func(term string, pos int) {
	if !code {
		return emit
	}
	seen := map[string]bool{}
	return func(term string, pos int) {
		if !seen[term] {
			seen[term] = true
			emit(term, pos)
		}
	}
}
