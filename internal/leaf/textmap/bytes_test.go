package textmap

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// byteTexts are texts mixing one- to four-byte code points.
var byteTexts = []string{"", "a", "abc", "é", "a😀bé\n𝄞x\r\n日本", "😀😀😀😀😀😀😀"}

// TestByteCheckpoints checks every checkpoint against a brute-force table
// of the byte offset of each code point.
func TestByteCheckpoints(t *testing.T) {
	for _, text := range byteTexts {
		offsets := oracleByteOffsets(text)
		for every := 1; every <= 5; every++ {
			var want []uint32
			for k := 0; k*every < len(offsets); k++ {
				want = append(want, uint32(offsets[k*every]))
			}
			got := ByteCheckpoints(text, every)
			if !slices.Equal(got, want) {
				t.Errorf("ByteCheckpoints(%q, %d) = %v, want %v", text, every, got, want)
			}
			for cp := -1; cp <= len(offsets); cp++ {
				w := offsets[min(max(cp, 0), len(offsets)-1)]
				if b := ByteOffset(text, got, every, cp); b != w {
					t.Errorf("ByteOffset(%q, every %d, %d) = %d, want %d", text, every, cp, b, w)
				}
			}
		}
	}
	if got := ByteCheckpoints("a😀b", 2); !slices.Equal(got, []uint32{0, 5}) {
		t.Errorf("ByteCheckpoints(a😀b, 2) = %v, want [0 5]", got)
	}
}

// oracleByteOffsets answers the byte offset of every code point of text
// and, last, len(text).
func oracleByteOffsets(text string) []int {
	var out []int
	for i := 0; i < len(text); {
		out = append(out, i)
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return append(out, len(text))
}

// TestSlice checks Slice against slicing the text's runes, with clamping.
func TestSlice(t *testing.T) {
	for _, text := range byteTexts {
		rs := []rune(text)
		for b := -1; b <= len(rs)+1; b++ {
			for e := -1; e <= len(rs)+1; e++ {
				cb, ce := min(max(b, 0), len(rs)), min(max(e, 0), len(rs))
				want := ""
				if cb < ce {
					want = string(rs[cb:ce])
				}
				if got := Slice(text, b, e); got != want {
					t.Errorf("Slice(%q, %d, %d) = %q, want %q", text, b, e, got, want)
				}
			}
		}
	}
}
