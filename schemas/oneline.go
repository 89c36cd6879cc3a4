package schemas

import (
	"fmt"
	"strings"
	"unicode"
)

// CharacterError is CheckOneLine's error: the first character of a
// one-line text that a reader could not see, or would see otherwise than
// it is stored, with what kind of character it is. Its message says
// what to do, in words fit to follow the name of the member at fault.
type CharacterError struct {
	// Rune is the character.
	Rune rune
	// Index is its place in the text, counted in characters from 1.
	Index int
	// Kind says what it is: a line break, a control character, a
	// bidirectional control character or a zero-width character.
	Kind string
	// Fix says what to do.
	Fix string
}

func (e *CharacterError) Error() string {
	return fmt.Sprintf("holds %s, U+%04X (character %d); %s", e.Kind, e.Rune, e.Index, e.Fix)
}

// CheckOneLine returns a *CharacterError for the first character of text
// that a one-line text an operator sets for readers (the site's name, a
// tree's title and description) may not hold, nil where it holds none:
//
//   - a line break: U+000A to U+000D, U+0085, U+2028, U+2029;
//   - any other control character (C0, DEL, C1), which a terminal acts on;
//   - a bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E,
//     U+2066 to U+2069), which shows the text around it in another order
//     than it is stored, so a name can read as another's;
//   - a zero-width character (U+200B to U+200D, U+2060, U+FEFF), which no
//     reader sees, so two names that look alike can differ.
//
// It is the one rule of every such member, so each refuses the same
// characters.
func CheckOneLine(text string) error {
	i := 0
	for _, r := range text {
		i++
		if kind, fix := oneLineFault(r); kind != "" {
			return &CharacterError{Rune: r, Index: i, Kind: kind, Fix: fix}
		}
	}
	return nil
}

// oneLineFault names the kind of r, and what to do, where CheckOneLine
// refuses it; "" where it does not.
func oneLineFault(r rune) (kind, fix string) {
	switch {
	case isLineBreak(r):
		return "a line break", "give it on one line"
	case unicode.IsControl(r):
		return "a control character", "remove it: a terminal or a log viewer acts on it"
	case r == 0x061C || r == 0x200E || r == 0x200F || 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069:
		return "a bidirectional control character", "remove it: it shows the text around it in another order than it is written"
	case 0x200B <= r && r <= 0x200D || r == 0x2060 || r == 0xFEFF:
		return "a zero-width character", "remove it: no reader sees it, so the text would differ from one that looks the same"
	}
	return "", ""
}

func isLineBreak(r rune) bool {
	return r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// CleanOneLine makes text, which an untrusted source gave (a title a
// documentation folder's generator configuration names), one line that
// CheckOneLine accepts, of at most max characters: each line break and
// tab becomes a space, every other character CheckOneLine refuses is
// removed, runs of white space become one space, and the ends are
// trimmed. A text longer than max is cut at max characters and trimmed
// again; max <= 0 cuts nothing.
func CleanOneLine(text string, max int) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	n := 0
	for _, r := range text {
		if isLineBreak(r) || r == '\t' || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if kind, _ := oneLineFault(r); kind != "" {
			continue
		}
		if max > 0 && n+btoi(space)+1 > max {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
