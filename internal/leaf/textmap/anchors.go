package textmap

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Anchor answers the GitHub-style anchor of one heading text as A-21 reads
// it: the text is lower-cased with strings.ToLower, every character that is
// not a letter (unicode.IsLetter), a digit (unicode.IsDigit), '-', '_' or a
// space (' ') is dropped, and each space becomes '-'. Repeats within a page
// are resolved by Anchors. The text is the heading as a reader sees it:
// inline HTML and JSX tags outside code spans (`<Badge color="red">`,
// `</Badge>`, `<br/>`) are markup, not text, and are dropped first, their
// content kept, as a renderer's slugger drops them.
func Anchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(dropTags(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// DropTags returns text without its inline HTML and JSX tags outside code
// spans, their content kept, as Anchor drops them.
func DropTags(text string) string { return dropTags(text) }

// Anchors answers the anchors of one page's headings in page order: a
// heading's Anchor where it has one, else Anchor of its text. A
// repeated anchor gets the suffix -1, -2, ... in page order; as in GitHub's
// slugger, a suffixed anchor that is already taken moves on to the next
// suffix, so every answer is distinct within the page.
func Anchors(headings []Heading) []string {
	out := make([]string, len(headings))
	seen := make(map[string]int, len(headings)) // anchor -> repeats so far
	for i, h := range headings {
		base := h.Anchor
		if base == "" {
			base = Anchor(h.Text)
		}
		a := base
		for {
			if _, taken := seen[a]; !taken {
				break
			}
			seen[base]++
			a = base + "-" + strconv.Itoa(seen[base])
		}
		seen[a] = 0
		out[i] = a
	}
	return out
}

// tagRE matches, at the start of a string, an open or closing tag as
// CommonMark reads raw inline HTML (a tag name of ASCII letters, digits and
// '-', attributes with unquoted, quoted or, as MDX writes them, {braced}
// values), which MDX reads as a JSX element.
var tagRE = regexp.MustCompile(`^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>{}\x60]+|'[^']*'|"[^"]*"|\{[^{}]*\}))?)*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)`)

// dropTags returns text without its inline tags: those outside code
// spans (a run of backticks to the next run of as many) and not escaped
// by a backslash. Text without '<' is returned as it is.
func dropTags(text string) string {
	if !strings.Contains(text, "<") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\\' && i+1 < len(text):
			b.WriteString(text[i : i+2])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(text) && text[i+n] == '`' {
				n++
			}
			end := codeSpanEnd(text, i+n, n)
			if end < 0 {
				b.WriteString(text[i : i+n])
				i += n
				continue
			}
			b.WriteString(text[i:end])
			i = end
		case c == '<':
			if m := tagRE.FindString(text[i:]); m != "" {
				i += len(m)
				continue
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// codeSpanEnd returns the index just past the run of exactly n backticks
// that closes a code span whose content starts at from, or -1 where none
// does.
func codeSpanEnd(text string, from, n int) int {
	for j := from; j < len(text); {
		if text[j] != '`' {
			j++
			continue
		}
		k := 0
		for j+k < len(text) && text[j+k] == '`' {
			k++
		}
		if k == n {
			return j + k
		}
		j += k
	}
	return -1
}
