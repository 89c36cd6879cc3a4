// Package textmap is the one fence scanner and chunk-place engine of the
// documentation server.
//
// It implements the chunk boundary rules of the served-context contract
// (CTX-07) as read by readings:
// Scan lays out a plain or Markdown text (line starts, the line starts that
// are places by the fence rule, and the ATX headings outside fenced code),
// ScanJSON lays out a JSON entry by the member-depth rule, and Chunk answers
// the chunk asked at an offset under a limit from either layout.
//
// Every offset in this package is a count of Unicode code points (runes),
// never of bytes. Texts are expected to be valid UTF-8.
package textmap

import (
	"strings"
	"unicode/utf8"
)

// Heading is one ATX heading outside fenced code.
//
// The syntax follows A-19: 1 to 6 '#' characters after 0 to 3 spaces of
// indentation, followed by a space, a tab or the end of the line. The text is
// the content after the '#' characters with an optional closing '#' sequence
// (preceded by a space or a tab) removed and then trimmed of spaces and tabs;
// inline Markdown is kept verbatim. Setext headings are not recognised. A
// heading line inside a block-level HTML comment still counts.
type Heading struct {
	Depth  int    // 1..6
	Text   string // raw heading text, verbatim
	Offset int    // code-point offset of the line start (including indentation)
	// Anchor is the anchor the page sets for the heading where it sets
	// one (an attribute list's id, as MkDocs and Docusaurus read
	// "## Install { #install }"); "" derives it from Text. Scan never
	// sets it.
	Anchor string
}

// Fence is one fenced code block found by Scan.
type Fence struct {
	// Start is the code-point offset of the opening line's start.
	Start int
	// End is the code-point offset of the line start after the closing line,
	// or the text's length when the block is unterminated or its closing
	// line is the last line.
	End int
	// Closed reports whether a closing fence line was found.
	Closed bool
}

// Comment is one block-level HTML comment found by Scan, in the same pass
// as the fences, so that each suppresses the other's markers.
type Comment struct {
	// Start is the code-point offset of the opening line's start.
	Start int
	// End is the code-point offset of the line start after the line
	// holding "-->", or the text's length when the comment is unterminated
	// or that line is the last line.
	End int
	// Closed reports whether a line holding "-->" was found.
	Closed bool
}

// Map is the limit-independent layout of a plain (non-JSON) text.
//
// *Map implements Layout. ScanJSON also answers a *Map (without headings or
// fences) whose Bases follow the JSON member rule for one limit. Offsets are
// stored as uint32, so a text must hold fewer than 2^32 code points.
type Map struct {
	// Len is the text's length in code points; Total returns it.
	Len int
	// LineStarts holds the code-point offset of every line start in
	// ascending order, starting with 0 (also for the empty text). A line
	// start at Len (after a final '\n') is not included.
	LineStarts []uint32
	// Bases holds, in ascending order, 0 and then every line start that is a
	// place by the fence rule: a line start outside fenced code, a fence's
	// opening line, and the line start after a fence's closing line. Len is
	// implicitly a place and is not included.
	Bases []uint32
	// Headings holds every ATX heading outside fenced code in page order.
	Headings []Heading
	// Fences holds every fenced code block in page order.
	Fences []Fence
	// Comments holds every block-level HTML comment in page order.
	Comments []Comment
}

// scanState is the block the single-pass scanner is in at a line start.
type scanState int

const (
	stateNormal scanState = iota
	stateFence
	stateComment
)

// Scan builds the Map of a plain or Markdown text in one pass.
//
// The pass recognises CommonMark fenced code blocks (backtick or tilde, at
// least three, 0 to 3 spaces of indentation, a backtick fence's info string
// holding no backtick; the closing line uses the same character, at least as
// many, followed only by spaces or tabs; an unterminated fence runs to the
// end) and block-level HTML comments (a line starting with "<!--" after 0 to
// 3 spaces runs to the first line holding "-->", which may be the same line)
// together: inside a comment fence markers are content, and inside a fence
// "<!--" is content. Lines end at '\n'; a '\r' before it belongs to the line
// and is ignored for the syntax, and a lone '\r' is not a line end. Container
// blocks (block quotes, list items) are not recognised.
func Scan(text string) *Map {
	m := &Map{LineStarts: []uint32{0}, Bases: []uint32{0}}
	state := stateNormal
	var fenceChar byte
	var fenceLen int
	fenceIdx := -1
	cp := 0 // code-point offset of the current line start
	for pos := 0; pos < len(text) || pos == 0; {
		nl := strings.IndexByte(text[pos:], '\n')
		lineEnd := len(text) // byte index just past the line's terminator
		if nl >= 0 {
			lineEnd = pos + nl + 1
		}
		content := lineContent(text[pos:lineEnd], nl >= 0)
		next := cp + utf8.RuneCountInString(text[pos:lineEnd])
		if cp > 0 {
			m.LineStarts = append(m.LineStarts, uint32(cp))
			if state != stateFence {
				m.Bases = append(m.Bases, uint32(cp))
			}
		}
		switch state {
		case stateFence:
			if isFenceCloser(content, fenceChar, fenceLen) {
				state = stateNormal
				m.Fences[fenceIdx].Closed = true
				m.Fences[fenceIdx].End = next
			}
		case stateComment:
			if h, ok := parseATX(content); ok {
				h.Offset = cp
				m.Headings = append(m.Headings, h)
			}
			if strings.Contains(content, "-->") {
				state = stateNormal
				m.Comments[len(m.Comments)-1].Closed = true
				m.Comments[len(m.Comments)-1].End = next
			}
		default:
			if c, n, ok := parseFenceOpener(content); ok {
				state, fenceChar, fenceLen = stateFence, c, n
				m.Fences = append(m.Fences, Fence{Start: cp})
				fenceIdx = len(m.Fences) - 1
			} else if isCommentOpener(content) {
				c := Comment{Start: cp}
				if strings.Contains(content, "-->") {
					c.End, c.Closed = next, true
				} else {
					state = stateComment
				}
				m.Comments = append(m.Comments, c)
			} else if h, ok := parseATX(content); ok {
				h.Offset = cp
				m.Headings = append(m.Headings, h)
			}
		}
		cp = next
		if nl < 0 {
			break
		}
		pos = lineEnd
	}
	m.Len = cp
	if fenceIdx >= 0 && !m.Fences[fenceIdx].Closed {
		m.Fences[fenceIdx].End = cp
	}
	if n := len(m.Comments); n > 0 && !m.Comments[n-1].Closed {
		m.Comments[n-1].End = cp
	}
	return m
}

// lineContent returns line without its '\n' and without a '\r' that comes
// right before that '\n'. A final line with no '\n' keeps a trailing '\r'
// (a lone '\r' is content, A-32).
func lineContent(line string, terminated bool) string {
	if !terminated {
		return line
	}
	line = line[:len(line)-1]
	return strings.TrimSuffix(line, "\r")
}

// indent returns the number of leading spaces of s when it is at most 3,
// and -1 when s starts with 4 or more spaces. A tab is no indentation: it
// reaches column 4, and since the callers then find a tab where they need
// a fence or heading marker, a line indented by a tab opens neither.
func indent(s string) int {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
		if i > 3 {
			return -1
		}
	}
	return i
}

// parseFenceOpener reports whether content opens a fenced code block and
// answers the fence character and the length of its run.
func parseFenceOpener(content string) (byte, int, bool) {
	i := indent(content)
	if i < 0 || i >= len(content) {
		return 0, 0, false
	}
	c := content[i]
	if c != '`' && c != '~' {
		return 0, 0, false
	}
	j := i
	for j < len(content) && content[j] == c {
		j++
	}
	n := j - i
	if n < 3 {
		return 0, 0, false
	}
	if c == '`' && strings.IndexByte(content[j:], '`') >= 0 {
		return 0, 0, false
	}
	return c, n, true
}

// isFenceCloser reports whether content closes a fence opened with n
// characters c.
func isFenceCloser(content string, c byte, n int) bool {
	i := indent(content)
	if i < 0 {
		return false
	}
	j := i
	for j < len(content) && content[j] == c {
		j++
	}
	if j-i < n {
		return false
	}
	return strings.Trim(content[j:], " \t") == ""
}

// isCommentOpener reports whether content starts a block-level HTML comment.
func isCommentOpener(content string) bool {
	i := indent(content)
	return i >= 0 && strings.HasPrefix(content[i:], "<!--")
}

// parseATX parses an ATX heading line; Offset is left for the caller.
func parseATX(content string) (Heading, bool) {
	i := indent(content)
	if i < 0 || i >= len(content) || content[i] != '#' {
		return Heading{}, false
	}
	j := i
	for j < len(content) && content[j] == '#' {
		j++
	}
	depth := j - i
	if depth > 6 {
		return Heading{}, false
	}
	if j < len(content) && content[j] != ' ' && content[j] != '\t' {
		return Heading{}, false
	}
	return Heading{Depth: depth, Text: headingText(content[j:])}, true
}

// headingText removes an optional closing '#' sequence from rest, the
// content after the opening '#' characters, and trims it.
func headingText(rest string) string {
	t := strings.Trim(rest, " \t")
	k := len(t)
	for k > 0 && t[k-1] == '#' {
		k--
	}
	switch {
	case k == len(t):
		// No closing sequence.
	case k == 0:
		// The whole content is a closing sequence (e.g. "### ###").
		t = ""
	case t[k-1] == ' ' || t[k-1] == '\t':
		t = strings.TrimRight(t[:k], " \t")
	}
	return t
}
