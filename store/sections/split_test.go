package sections

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// TestLongCodeBlocksArePieces: a fenced code block of at least
// CodePieceMin code points is a piece of its own, marked Code, in a
// section shorter than PieceMax; the prose before and after it are pieces
// too, each starting at a place a read starts; text too short to stand
// alone (a closing tag at the section's end) stays with the block, and a
// short block stays in the prose.
func TestLongCodeBlocksArePieces(t *testing.T) {
	prose := "Explain the listing in words: why the iterator takes ownership of its argument and what it saves.\n\n"
	code := "```rust\n" + strings.Repeat("let args = args.clone(); // a line of code\n", 12) + "```\n\n"
	short := "```sh\ncargo run\n```\n\n"
	text := "## Section\n\n" + prose + "<Listing>\n\n" + code + prose + short + prose + "## Next\n\n" + code + "</Listing>\n"
	n := utf8.RuneCountInString(text)
	got := Split(text, n, headingsOf(text), textmap.Scan(text))
	at := func(s string) int { return utf8.RuneCountInString(text[:strings.Index(text, s)]) }
	first := at(code)
	after := first + utf8.RuneCountInString(code)
	next := at("## Next")
	want := []Span{{0, first, 0, false}, {first, after, 0, true}, {after, next, 0, false}, {next, n, 1, true}}
	if next-0 > PieceMax {
		t.Fatalf("the first section is %d code points: it must be under PieceMax for the test to say anything", next)
	}
	if len(got) != len(want) {
		t.Fatalf("pieces %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pieces %v, want %v (the long block a piece of its own, the short one in the prose, a heading line and a closing tag alone with their block)", got, want)
		}
	}
}

// TestCodeTermsCountOnce: in a code piece each term counts once, in a
// prose piece every time.
func TestCodeTermsCountOnce(t *testing.T) {
	var prose, code []string
	emitProse := FirstOnly(false, func(term string, _ int) { prose = append(prose, term) })
	emitCode := FirstOnly(true, func(term string, _ int) { code = append(code, term) })
	for i, term := range []string{"args", "clone", "args", "args"} {
		emitProse(term, i)
		emitCode(term, i)
	}
	if strings.Join(prose, " ") != "args clone args args" || strings.Join(code, " ") != "args clone" {
		t.Fatalf("prose %v, code %v: want every term of prose, each term of code once", prose, code)
	}
}
