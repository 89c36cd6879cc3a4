package schemas

import (
	"fmt"
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
		e := &CharacterError{Rune: r, Index: i}
		switch {
		case r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			e.Kind, e.Fix = "a line break", "give it on one line"
		case unicode.IsControl(r):
			e.Kind, e.Fix = "a control character", "remove it: a terminal or a log viewer acts on it"
		case r == 0x061C || r == 0x200E || r == 0x200F || 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069:
			e.Kind, e.Fix = "a bidirectional control character", "remove it: it shows the text around it in another order than it is written"
		case 0x200B <= r && r <= 0x200D || r == 0x2060 || r == 0xFEFF:
			e.Kind, e.Fix = "a zero-width character", "remove it: no reader sees it, so the text would differ from one that looks the same"
		default:
			continue
		}
		return e
	}
	return nil
}
