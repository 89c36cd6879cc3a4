package testkit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// SynthSizes are the page counts of the synthetic corpora the benchmark
// suite runs on, so that growth with a site shows.
var SynthSizes = []int{1000, 5000, 20000, 100000}

// SearchQueries is the fixed query set of the search benchmarks: common
// and rare words, one to three words, one- and two-character words, a
// part of a word, misses and rule codes. The synthetic vocabulary holds
// each of its words (the rare ones at far ranks), so on a synthetic
// corpus each query but the misses finds pages.
var SearchQueries = []string{
	"the",                        // the most common word
	"value",                      // common
	"parameter",                  // common
	"idempotent",                 // rare
	"quiesce",                    // rarer
	"file path",                  // two words
	"error value string",         // three words
	"module the version",         // three words, one of them the commonest
	"param",                      // part of a word
	"get-childitem",              // a punctuated word
	"a",                          // one character
	"x",                          // one character, rarer
	"is",                         // two characters
	"zq",                         // two characters, rare
	"of pipeline",                // a two-character word beside a long one
	"qqqxqqq",                    // a miss
	"zq917364x",                  // a miss sharing a prefix with a word
	"CTX-07",                     // a rule code
	"(CTX-11)",                   // a rule code in parentheses
	"configuration idempotent x", // three words, common, rare and short
}

// synthHead is the head of the synthetic vocabulary, most frequent first:
// the words of English and of documentation that lead real frequency lists.
var synthHead = strings.Fields(`the of to and a in is for that with on as by this be are or from an it
you can if not use value parameter command file object string error module version service
run set get name type path list each when new all data returns which see example output input
configuration default server client request response option property method function script
pipeline item user system text number table key field session cmdlet process resource event
access policy token credential page site index query result format line help note step`)

// synthRare are real words placed at far ranks of the vocabulary, so that
// the query set has rare words that exist.
var synthRare = map[int]string{4000: "idempotent", 15000: "quiesce", 9000: "get-childitem", 12000: "zq", 6000: "x"}

// synthVocabulary returns the vocabulary of v words, most frequent first:
// the head words, then pronounceable made-up words, some hyphenated or
// with underscores as identifiers are.
func synthVocabulary(r *rand.Rand, v int) []string {
	cons := []string{"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr", "ch", "pl", "gr"}
	vow := []string{"a", "e", "i", "o", "u", "ea", "io", "ou"}
	seen := map[string]bool{}
	words := make([]string, 0, v)
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, w := range synthHead {
		add(w)
	}
	for len(words) < v {
		if w, ok := synthRare[len(words)]; ok && !seen[w] {
			add(w)
			continue
		}
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(cons[r.IntN(len(cons))])
			b.WriteString(vow[r.IntN(len(vow))])
		}
		if r.IntN(3) == 0 {
			b.WriteString(cons[r.IntN(len(cons))])
		}
		w := b.String()
		switch r.IntN(40) {
		case 0:
			w = "get-" + w
		case 1:
			w += "_id"
		}
		if _, rare := synthRareWord(w); rare {
			continue // a rare word appears at its rank alone
		}
		add(w)
	}
	return words
}

func synthRareWord(w string) (int, bool) {
	for k, s := range synthRare {
		if s == w {
			return k, true
		}
	}
	return 0, false
}

// synth draws a corpus's words and shapes.
type synth struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func (s *synth) word() string { return s.vocab[s.zipf.Uint64()] }

// sentence writes n Zipf-drawn words, capitalised, ending with a period;
// now and then one of them is a rule code.
func (s *synth) sentence(b *strings.Builder, n int) {
	for i := range n {
		w := s.word()
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		if s.r.IntN(400) == 0 {
			w = fmt.Sprintf("CTX-%02d", 1+s.r.IntN(12))
			if s.r.IntN(2) == 0 {
				w = "(" + w + ")"
			}
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
}

// title returns a heading text of two to five words, drawn from rarer
// ranks than the body as titles are.
func (s *synth) title() string {
	n := 2 + s.r.IntN(4)
	ws := make([]string, n)
	for i := range ws {
		w := s.vocab[min(uint64(len(s.vocab)-1), s.zipf.Uint64()+uint64(s.r.IntN(60)))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		ws[i] = w
	}
	return strings.Join(ws, " ")
}

func (s *synth) paragraph(b *strings.Builder) {
	for i := range 2 + s.r.IntN(3) {
		if i > 0 {
			b.WriteByte(' ')
		}
		s.sentence(b, 6+s.r.IntN(16))
	}
	b.WriteString("\n\n")
}

func (s *synth) fence(b *strings.Builder) {
	lang := []string{"powershell", "bash", "json", ""}[s.r.IntN(4)]
	b.WriteString("```" + lang + "\n")
	for range 1 + s.r.IntN(6) {
		fmt.Fprintf(b, "%s-%s -%s %s\n", s.word(), s.word(), s.word(), s.word())
	}
	b.WriteString("```\n\n")
}

// page returns the text of one page: front matter with its title and a
// description, an introduction, then two to four ## sections, each with
// paragraphs, now and then ### subsections and code fences.
func (s *synth) page(title string) string {
	var b strings.Builder
	b.WriteString("---\ntitle: " + title + "\ndescription: ")
	s.sentence(&b, 8+s.r.IntN(8))
	b.WriteString("\n---\n\n")
	s.paragraph(&b)
	for range 2 + s.r.IntN(3) {
		b.WriteString("## " + s.title() + "\n\n")
		for range 1 + s.r.IntN(2) {
			s.paragraph(&b)
		}
		if s.r.IntN(3) == 0 {
			s.fence(&b)
		}
		for range s.r.IntN(2) {
			b.WriteString("### " + s.title() + "\n\n")
			s.paragraph(&b)
			if s.r.IntN(4) == 0 {
				s.fence(&b)
			}
		}
	}
	return b.String()
}

// WriteSynthSite writes a synthetic tree folder of n pages into dir, the
// same for the same n and seed: a docs.json whose navigation has one group
// per folder of 100 pages, and one .mdx page per path. Words follow a
// Zipf-like law over a vocabulary of 30,000 (s = 1.1), as the words of
// real text do; pages are about 2.5 KB on average, with a title, ## and ###
// headings, paragraphs, code fences and now and then a rule code
// (CTX-01 to CTX-12).
func WriteSynthSite(dir string, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := &synth{r: r, vocab: synthVocabulary(r, 30000)}
	s.zipf = rand.NewZipf(r, 1.1, 2, uint64(len(s.vocab)-1))
	type group struct {
		Group string   `json:"group"`
		Pages []string `json:"pages"`
	}
	var groups []group
	for i := range n {
		folder := fmt.Sprintf("part%03d", i/100)
		if i%100 == 0 {
			groups = append(groups, group{Group: "Part " + fmt.Sprint(i/100), Pages: []string{}})
		}
		title := s.title()
		slug := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
		p := fmt.Sprintf("%s/%s-%05d", folder, slug, i)
		groups[len(groups)-1].Pages = append(groups[len(groups)-1].Pages, p)
		f := filepath.Join(dir, filepath.FromSlash(p)+".mdx")
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(f, []byte(s.page(title)), 0o644); err != nil {
			return err
		}
	}
	manifest, err := json.MarshalIndent(map[string]any{
		"$schema":    "https://mintlify.com/docs.json",
		"name":       fmt.Sprintf("Synthetic documentation, %d pages, seed %d", n, seed),
		"navigation": map[string]any{"groups": groups},
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "docs.json"), manifest, 0o644)
}
