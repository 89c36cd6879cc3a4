package grams

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLookupIsCoveredByOf is the superset property: for every substring w
// of a lower-cased text that holds no whitespace, every n-gram Lookup(w)
// names is among the text's n-grams.
func TestLookupIsCoveredByOf(t *testing.T) {
	alphabet := []rune("ab-_.(Σσς İi\ufffd😀\u00a0\u3000\t\n\r\ufeff\u200bé")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		rs := make([]rune, 1+rng.IntN(40))
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		lower := strings.ToLower(string(rs))
		have := map[string]bool{}
		for _, g := range strings.Split(Of(lower), " ") {
			have[g] = true
		}
		lr := []rune(lower)
		for i := 0; i < len(lr); i++ {
			for j := i + 1; j <= len(lr) && j-i <= 8; j++ {
				w := string(lr[i:j])
				if len(strings.Fields(w)) != 1 || strings.Fields(w)[0] != w {
					continue // holds whitespace: never a query word
				}
				for _, g := range Lookup(w) {
					if !have[g] {
						t.Fatalf("text %q: word %q needs n-gram %q, which Of does not hold", lower, w, g)
					}
				}
			}
		}
	}
}

func TestLookupAndWords(t *testing.T) {
	if got := Lookup("ab"); len(got) != 1 || got[0] != "ab" {
		t.Errorf("Lookup(ab) = %q", got)
	}
	if got := Lookup("abab"); strings.Join(got, ",") != "aba,bab" {
		t.Errorf("Lookup(abab) = %q", got)
	}
	if got := Lookup("x😀y"); len(got) != 1 || utf8.RuneCountInString(got[0]) != 3 {
		t.Errorf("Lookup(x😀y) = %q", got)
	}
	if got := Words("  Ctx-07\u00a0ERROR_code\u3000a "); strings.Join(got, "|") != "ctx-07|error_code|a" {
		t.Errorf("Words = %q", got)
	}
	if got := Words("ΟΔΟΣ İ"); strings.Join(got, "|") != "οδοσ|i̇" && strings.Join(got, "|") != "οδοσ|i" {
		t.Errorf("Words = %q", got)
	}
	if Of("") != "" || Of(" \n ") != "" {
		t.Error("Of of whitespace is not empty")
	}
}

// TestOfMatchesRuneOf: Of, which copies n-grams out of the text, gives
// what ofRunes, which rebuilds them from code points, gives, gram for gram
// and in order, on random valid texts.
func TestOfMatchesRuneOf(t *testing.T) {
	alphabet := []rune("ab-_.(Σσς İi\ufffd😀\u00a0\u3000\t\n\r\ufeff\u200bé\u2028x")
	rng := rand.New(rand.NewPCG(9, 4))
	for n := 0; n < 3000; n++ {
		rs := make([]rune, rng.IntN(300))
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := strings.ToLower(string(rs))
		if got, want := Of(s), ofRunes(s); got != want {
			t.Fatalf("Of(%q) = %q, want %q", s, got, want)
		}
	}
	if got := Of("ab\xffc"); got != ofRunes("ab\xffc") {
		t.Errorf("Of of invalid UTF-8 = %q", got)
	}
}

// BenchmarkOf measures Of on a page-sized English text.
func BenchmarkOf(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Of(text)
	}
}

// BenchmarkOfRunes measures ofRunes, the map-based form Of replaced, on
// the same text: the baseline of BenchmarkOf.
func BenchmarkOfRunes(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ofRunes(text)
	}
}

func benchText() string {
	words := strings.Fields("the pipeline of get-childitem returns objects that describe each item in a location such as a folder or registry key")
	rng := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	for sb.Len() < 10000 {
		sb.WriteString(words[rng.IntN(len(words))])
		sb.WriteByte(" \n"[rng.IntN(2)])
	}
	return sb.String()
}
