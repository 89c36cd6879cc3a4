package textmap

import (
	"strconv"
	"strings"
	"unicode"
)

// Anchor answers the GitHub-style anchor of one heading text as A-21 reads
// it: the text is lower-cased with strings.ToLower, every character that is
// not a letter (unicode.IsLetter), a digit (unicode.IsDigit), '-', '_' or a
// space (' ') is dropped, and each space becomes '-'. Repeats within a page
// are resolved by Anchors.
func Anchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors answers the anchors of one page's headings in page order. A
// repeated anchor gets the suffix -1, -2, ... in page order; as in GitHub's
// slugger, a suffixed anchor that is already taken moves on to the next
// suffix, so every answer is distinct within the page.
func Anchors(headings []Heading) []string {
	out := make([]string, len(headings))
	seen := make(map[string]int, len(headings)) // anchor -> repeats so far
	for i, h := range headings {
		base := Anchor(h.Text)
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
