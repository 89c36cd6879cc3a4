package query

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFoldIndexMatchesLowerCasedIndex: foldIndex finds in a text what
// bytes.Index finds in the text with its ASCII letters lower-cased, for
// random texts and words over a small alphabet (so that words occur, and
// occur in many cases), the rarest-byte anchor at every place.
func TestFoldIndexMatchesLowerCasedIndex(t *testing.T) {
	t.Parallel()
	alphabet := []byte("aAbBzZqQ-_.0é \n")
	rng := rand.New(rand.NewPCG(7, 11))
	lowerASCII := func(b []byte) []byte {
		out := append([]byte(nil), b...)
		for i, c := range out {
			if 'A' <= c && c <= 'Z' {
				out[i] = c + 'a' - 'A'
			}
		}
		return out
	}
	for n := 0; n < 20000; n++ {
		body := make([]byte, rng.IntN(60))
		for i := range body {
			body[i] = alphabet[rng.IntN(len(alphabet))]
		}
		wb := make([]byte, 1+rng.IntN(4))
		for i := range wb {
			wb[i] = alphabet[rng.IntN(len(alphabet))]
		}
		w := strings.ToLower(string(wb))
		want := bytes.Index(lowerASCII(body), []byte(w))
		if got := foldIndex(body, w); got != want {
			t.Fatalf("foldIndex(%q, %q) = %d, want %d", body, w, got, want)
		}
	}
	if foldIndex([]byte("Get-ChildItem"), "childitem") != 4 || foldIndex([]byte("x"), "") != 0 || foldIndex(nil, "a") != -1 {
		t.Error("fixed cases wrong")
	}
}
