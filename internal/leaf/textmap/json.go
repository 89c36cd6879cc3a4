package textmap

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Member is one object member of a JSON text, located as CTX-07 and A-04
// define it.
type Member struct {
	// Start is the code-point offset of the start of the line holding the
	// member's name.
	Start int
	// End is the code-point offset of the start of the line after the one
	// holding the end of the member's value, or the text's length when no
	// line follows.
	End int
	// Depth is the number of braces and brackets open around the name: a
	// member of the root object has depth 1, a member of an object inside a
	// root-level array or inside a root member's object has depth 2.
	Depth int
}

// ScanJSON answers the Layout of a JSON entry under limit, and ok=false when
// text is not valid JSON by encoding/json.Valid (a BOM makes it invalid); the
// caller then uses Scan.
//
// The base places are 0 and every line start that is not strictly inside a
// short member of depth 1 or 2, short meaning 2*length < limit. The
// chain places of A-02, which give the shared-line fallback, come from
// Chunk's generic rule. The work is O(n) per call; a caller that pages one
// text at several limits parses it once (ParseJSON) and lays it out per
// limit.
func ScanJSON(text string, limit int) (Layout, bool) {
	p, ok := ParseJSON(text)
	if !ok {
		return nil, false
	}
	return p.Layout(limit), true
}

// ParsedJSON is what laying out a JSON text under any limit needs of it,
// found once: its line starts, its length in code points and its
// members.
type ParsedJSON struct {
	starts  []uint32
	len     int
	members []Member
}

// ParseJSON parses a JSON text for Layout, and ok=false when text is not
// valid JSON by encoding/json.Valid, as ScanJSON. The work is O(n).
func ParseJSON(text string) (*ParsedJSON, bool) {
	if !json.Valid([]byte(text)) {
		return nil, false
	}
	starts := lineStarts(text)
	n := utf8.RuneCountInString(text)
	return &ParsedJSON{starts: starts, len: n, members: jsonMembers(text, starts, n)}, true
}

// Layout answers the Layout of the parsed text under limit, as ScanJSON
// does; its work is in the text's lines and members, not its bytes.
func (p *ParsedJSON) Layout(limit int) Layout {
	m := &Map{LineStarts: p.starts, Len: p.len}
	// suppressed[i] > 0 when line start i lies strictly inside a short
	// depth-1 or depth-2 member; built as a difference array over line
	// start indices.
	diff := make([]int, len(m.LineStarts)+1)
	for _, mb := range p.members {
		if mb.Depth > 2 || 2*(mb.End-mb.Start) >= limit {
			continue
		}
		lo := upperBound(m.LineStarts, mb.Start) // first line start > Start
		hi := lowerBound(m.LineStarts, mb.End)   // first line start >= End
		if lo < hi {
			diff[lo]++
			diff[hi]--
		}
	}
	m.Bases = make([]uint32, 0, len(m.LineStarts))
	run := 0
	for i, s := range m.LineStarts {
		run += diff[i]
		if i == 0 || run == 0 {
			m.Bases = append(m.Bases, s)
		}
	}
	return m
}

// JSONMembers lists the object members of a JSON text in the order of their
// names, and ok=false when text is not valid JSON (encoding/json.Valid).
func JSONMembers(text string) (members []Member, ok bool) {
	if !json.Valid([]byte(text)) {
		return nil, false
	}
	return jsonMembers(text, lineStarts(text), utf8.RuneCountInString(text)), true
}

// jsonMembers locates the members of a valid JSON text whose line starts
// and length in code points are given.
func jsonMembers(text string, starts []uint32, total int) []Member {
	p := jsonParser{src: []rune(text)}
	p.value(0)
	out := make([]Member, len(p.members))
	for i, r := range p.members {
		start := int(starts[upperBound(starts, r.name)-1])
		end := total
		if j := upperBound(starts, r.valueLast); j < len(starts) {
			end = int(starts[j])
		}
		out[i] = Member{Start: start, End: end, Depth: r.depth}
	}
	return out
}

// lineStarts answers the code-point offsets of the line starts of text:
// 0, then the offset after every '\n' that is not the text's end.
func lineStarts(text string) []uint32 {
	out := []uint32{0}
	cp := 0
	for pos := 0; ; {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 || pos+nl+1 == len(text) {
			return out
		}
		cp += utf8.RuneCountInString(text[pos : pos+nl+1])
		out = append(out, uint32(cp))
		pos += nl + 1
	}
}

// lowerBound answers the index of the first element of a that is >= x.
func lowerBound(a []uint32, x int) int {
	return upperBound(a, x-1)
}

// rawMember is a member as the parser sees it: code-point offsets of the
// name's opening quote and of the value's last code point.
type rawMember struct {
	name, valueLast, depth int
}

// jsonParser walks a text already known to be valid JSON.
type jsonParser struct {
	src     []rune
	i       int
	members []rawMember
}

func (p *jsonParser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses one value whose surroundings hold open brackets; it leaves
// p.i just past the value's last code point.
func (p *jsonParser) value(open int) {
	p.ws()
	if p.i >= len(p.src) {
		return
	}
	switch p.src[p.i] {
	case '{':
		p.i++
		depth := open + 1
		for {
			p.ws()
			if p.i >= len(p.src) || p.src[p.i] == '}' {
				p.i++
				return
			}
			if p.src[p.i] == ',' {
				p.i++
				continue
			}
			name := p.i
			p.str()
			p.ws()
			p.i++ // ':'
			idx := len(p.members)
			p.members = append(p.members, rawMember{name: name, depth: depth})
			p.value(depth)
			p.members[idx].valueLast = p.i - 1
		}
	case '[':
		p.i++
		for {
			p.ws()
			if p.i >= len(p.src) || p.src[p.i] == ']' {
				p.i++
				return
			}
			if p.src[p.i] == ',' {
				p.i++
				continue
			}
			p.value(open + 1)
		}
	case '"':
		p.str()
	default:
		// Number, true, false or null: runs to the next delimiter.
		for p.i < len(p.src) {
			switch p.src[p.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			p.i++
		}
	}
}

// str parses a string starting at its opening quote.
func (p *jsonParser) str() {
	p.i++
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			p.i += 2
		case '"':
			p.i++
			return
		default:
			p.i++
		}
	}
}
