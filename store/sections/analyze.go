package sections

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"
)

// The word analysis of search_documentation
// (contracts/choices/reading.md#ch-search-documentation), the same for a
// section's text, its title and heading path at ingest and for a query when it
// is searched:
//
//  1. The text is cut into chunks: runs of letters, digits and the joiners
//     '_', '-', '.', ':' and the apostrophes, joiners trimmed at both ends.
//  2. A chunk is cut into parts at its joiners and where its case changes
//     (lower to upper, and the last of a run of capitals before a lower
//     one: HTMLParser is HTML, Parser) or letters meet digits.
//  3. A chunk of two parts or more is an identifier: it is kept whole,
//     lower-cased and unstemmed (remove-psreadlinekeyhandler, build.target,
//     iterator::any, firstlineindent), at the place of its first part.
//  4. Every part goes through bleve's English filters, as its "en"
//     analyzer applies them: the possessive 's dropped, lower case, the
//     English stop words dropped, Porter stemming.
//
// Positions count parts, so that close words can be told from scattered
// ones.

// wordFilters are bleve's English token filters, in the order its "en"
// analyzer applies them after its tokenizer.
var wordFilters = func() []analysis.TokenFilter {
	cache := registry.NewCache()
	var out []analysis.TokenFilter
	for _, name := range []string{en.PossessiveName, lowercase.Name, en.StopName, porter.Name} {
		f, err := cache.TokenFilterNamed(name)
		if err != nil {
			panic("bleve token filter " + name + ": " + err.Error())
		}
		out = append(out, f)
	}
	return out
}()

// isJoiner reports whether r joins the parts of an identifier.
func isJoiner(r rune) bool {
	switch r {
	case '_', '-', '.', ':', '\'', '’':
		return true
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// Analyze calls emit with each term of text and its position, the first
// at pos, and returns the position after the last.
func Analyze(text string, pos int, emit func(term string, pos int)) int {
	return analyzeWith(nil, text, pos, emit)
}

// Analyzer is Analyze with the terms of the chunks it met kept (at most
// analyzerCache of them), for analysing many texts of one site: bleve's
// filters act on each part alone, so a chunk's terms are the same
// wherever it stands.
type Analyzer struct {
	cache map[string]chunkTerms
}

// analyzerCache is the most chunks an Analyzer keeps the terms of; past
// it, it starts afresh.
const analyzerCache = 1 << 16

// Analyze is the package's Analyze, its chunks' terms kept.
func (a *Analyzer) Analyze(text string, pos int, emit func(term string, pos int)) int {
	if a.cache == nil || len(a.cache) >= analyzerCache {
		a.cache = make(map[string]chunkTerms)
	}
	return analyzeWith(a.cache, text, pos, emit)
}

// chunkTerms are the terms of one chunk, in the order Analyze emits
// them, each at its part's place in the chunk, and the chunk's parts.
type chunkTerms struct {
	terms []chunkTerm
	parts int
}

type chunkTerm struct {
	term string
	at   int
}

// analyzeWith is Analyze, reading and filling cache where it is not nil.
func analyzeWith(cache map[string]chunkTerms, text string, pos int, emit func(term string, pos int)) int {
	forChunks(text, func(chunk string) {
		ct, ok := cache[chunk]
		if !ok {
			ct = analyzeChunk(chunk)
			if cache != nil {
				cache[strings.Clone(chunk)] = ct
			}
		}
		for _, t := range ct.terms {
			emit(t.term, pos+t.at)
		}
		pos += ct.parts
	})
	return pos
}

// forChunks calls f with each chunk of text, in order: each run of word
// characters and joiners that starts with a word character, its trailing
// joiners trimmed.
func forChunks(text string, f func(chunk string)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) && !isJoiner(r) {
				break
			}
			j += n
		}
		f(strings.TrimRightFunc(text[i:j], isJoiner))
		i = j
	}
}

// analyzeChunk returns the terms of one chunk (a run of word characters
// and joiners): where it has two parts or more, the identifier whole,
// then each part through bleve's English filters, in part order, a part
// they drop left out.
func analyzeChunk(chunk string) chunkTerms {
	parts := splitParts(chunk)
	var out chunkTerms
	out.parts = len(parts)
	if len(parts) > 1 {
		// Cloned: ToLower answers chunk itself where it holds no upper
		// case, and a term kept must not hold the text it came from.
		out.terms = append(out.terms, chunkTerm{strings.Clone(strings.ToLower(chunk)), 0})
	}
	stream := make(analysis.TokenStream, len(parts))
	for k, p := range parts {
		stream[k] = &analysis.Token{Term: []byte(p), Position: k, Type: analysis.AlphaNumeric}
	}
	for _, f := range wordFilters {
		stream = f.Filter(stream)
	}
	for _, t := range stream {
		if len(t.Term) > 0 {
			out.terms = append(out.terms, chunkTerm{string(t.Term), t.Position})
		}
	}
	return out
}

// splitParts cuts a chunk at its joiners, its case changes and where
// letters meet digits. An apostrophe followed by letters stays in its
// part, for the possessive filter.
func splitParts(chunk string) []string {
	var parts []string
	start := -1
	var prev rune
	runes := []rune(chunk)
	flush := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, string(runes[start:end]))
		}
		start = -1
	}
	for i, r := range runes {
		if isJoiner(r) {
			if (r == '\'' || r == '’') && start >= 0 && i+1 < len(runes) && unicode.IsLetter(runes[i+1]) {
				prev = r
				continue
			}
			flush(i)
			prev = r
			continue
		}
		if start >= 0 {
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				flush(i)
			case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
				flush(i)
			case unicode.IsDigit(prev) != unicode.IsDigit(r) && prev != '\'' && prev != '’':
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(runes))
	return parts
}
