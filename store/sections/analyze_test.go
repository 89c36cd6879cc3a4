package sections

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// analyzeStream is Analyze as it was written first: every part of the
// text (its chunks cut as Analyze cuts them) through bleve's filters as
// one stream, identifiers merged in by position. Analyze, through the
// filters chunk by chunk, must emit the same.
func analyzeStream(text string, pos int, emit func(term string, pos int)) int {
	type wholeTerm struct {
		term string
		pos  int
	}
	var stream analysis.TokenStream
	var wholes []wholeTerm
	forChunks(text, func(chunk string) {
		parts := splitParts(chunk)
		if len(parts) > 1 {
			wholes = append(wholes, wholeTerm{strings.ToLower(chunk), pos})
		}
		for _, p := range parts {
			stream = append(stream, &analysis.Token{Term: []byte(p), Position: pos, Type: analysis.AlphaNumeric})
			pos++
		}
	})
	for _, f := range wordFilters {
		stream = f.Filter(stream)
	}
	k := 0
	for _, t := range stream {
		for k < len(wholes) && wholes[k].pos <= t.Position {
			emit(wholes[k].term, wholes[k].pos)
			k++
		}
		if len(t.Term) > 0 {
			emit(string(t.Term), t.Position)
		}
	}
	for ; k < len(wholes); k++ {
		emit(wholes[k].term, wholes[k].pos)
	}
	return pos
}

type emitted struct {
	term string
	pos  int
}

func collect(f func(string, int, func(string, int)) int, text string) ([]emitted, int) {
	var out []emitted
	n := f(text, 3, func(term string, pos int) { out = append(out, emitted{term, pos}) })
	return out, n
}

// TestAnalyzeChunkByChunk: Analyze, and an Analyzer keeping its chunks'
// terms, emit what the whole-stream analysis emits, term by term and
// place by place, over hostile strings and the corpora's pages.
func TestAnalyzeChunkByChunk(t *testing.T) {
	texts := []string{
		"", "a", "The cat's toys", "Remove-PSReadLineKeyHandler -Chord 'Ctrl+x'", "it's an 'apostrophe' test’s", "to be or not to be",
		"HTMLParser v2.0.1 x86_64 Iterator::any a.b.c. --flag __init__ 'quoted'", "ÀÉÎ ñandú straße İstanbul ΟΔΟΣ 日本語テキスト",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("aZ9_-.:'’ \n!?éİ\u0301Ab")
	for range 2000 {
		r := make([]rune, rng.IntN(30))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	if root := os.Getenv("TZCTX_CORPORA"); root != "" {
		n := 0
		filepath.WalkDir(filepath.Join(root, "vite-docs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && n < 40 {
				if b, err := os.ReadFile(p); err == nil {
					texts = append(texts, string(b))
					n++
				}
			}
			return nil
		})
	}
	var a Analyzer
	for _, text := range texts {
		want, wn := collect(analyzeStream, text)
		got, gn := collect(Analyze, text)
		cached, cn := collect(a.Analyze, text)
		again, an := collect(a.Analyze, text)
		if !slices.Equal(got, want) || gn != wn || !slices.Equal(cached, want) || cn != wn || !slices.Equal(again, want) || an != wn {
			t.Fatalf("%q:\n stream %v %d\n chunks %v %d\n cached %v %d", text, want, wn, got, gn, cached, cn)
		}
	}
}
