package schemas_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/schemas"
)

// TestCheckOneLine: each line break, control, bidirectional control and
// zero-width character is refused, named as U+XXXX with its kind and
// place; letters of any script, punctuation and spaces pass.
func TestCheckOneLine(t *testing.T) {
	refused := map[string][]rune{
		"a line break":                      {'\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029},
		"a control character":               {0x00, 0x07, '\t', 0x1B, 0x1F, 0x7F, 0x80, 0x9B, 0x9F},
		"a bidirectional control character": {0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069},
		"a zero-width character":            {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF},
	}
	for kind, runes := range refused {
		for _, r := range runes {
			text := "Acme" + string(r) + "Docs"
			err := schemas.CheckOneLine(text)
			var ce *schemas.CharacterError
			if !errors.As(err, &ce) || ce.Rune != r || ce.Index != 5 || ce.Kind != kind {
				t.Errorf("%q: %v, want %s at character 5", text, err, kind)
				continue
			}
			if want := fmt.Sprintf("holds %s, U+%04X (character 5); ", kind, r); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%q: %q, want it to start %q", text, err, want)
			}
		}
	}
	for _, ok := range []string{"", "Acme Docs", `Acme "Docs" \ Ünïcode`, "日本語のドキュメント", "Ελληνικά — docs", "عربي", "a\u00a0b", "a\u202fb", "a\u2065b", "🙂"} {
		if err := schemas.CheckOneLine(ok); err != nil {
			t.Errorf("%q: %v, want it accepted", ok, err)
		}
	}
}

// TestCleanOneLine: an untrusted title is made one line CheckOneLine
// accepts, of at most max code points: line breaks and tabs become
// spaces, every other refused character goes, white space runs become one
// space, the ends are trimmed, and a long text is cut.
func TestCleanOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"The Rust Programming Language", 120, "The Rust Programming Language"},
		{"  Acme\u202e Docs\u200b\nfor\x07 you\t ", 120, "Acme Docs for you"},
		{"a\u2066b\u2069c\ufeffd\u2060e\u200ef\r\ng", 120, "abcdef g"},
		{"\u200b\u202e\n", 120, ""},
		{strings.Repeat("é", 500), 120, strings.Repeat("é", 120)},
		{"abc def", 4, "abc"},
		{"abc def", 5, "abc d"},
		{"abc", 0, "abc"},
	} {
		got := schemas.CleanOneLine(c.in, c.max)
		if got != c.want {
			t.Errorf("CleanOneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if err := schemas.CheckOneLine(got); err != nil {
			t.Errorf("CleanOneLine(%q) = %q, which CheckOneLine refuses: %v", c.in, got, err)
		}
	}
}
