package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// oraclePage is one page as the brute-force oracle sees it.
type oraclePage struct {
	title, route  string
	lowerTitle    string
	lowerHeadings []string
	copyText      string
	lowerCopy     string
}

// Why the real path (score in search.go) gives the oracle's answer, given
// that it reads the exact fields of only a few pages:
//
//  1. Candidacy is a superset. A word of three or more code points is
//     looked up as the AND of its 3-grams, a shorter one as itself, in the
//     whole page (title and copy), the title and the headings; a field
//     holding the word holds each of its n-grams, so cand, title and head
//     hold every page holding the word there (title and head are taken
//     within cand: the copy holds its headings, the whole page its title).
//  2. Each bound is at least the exact score. With t the word's
//     multiplicity, the candidacy bound of a page is the sum over words of
//     t*(1 + 3 [title] + 2 [head]) over the sets it is in; by 1 it is at
//     least the score. The title-and-heading bound replaces the title and
//     heading terms by exact checks and keeps t per word of cand, so it
//     too is at least the score, and at most the candidacy bound.
//  3. Lazy refinement is exact. Entries are ordered by (bound descending,
//     rank ascending), rank being the place in trees' order then manifest
//     order, distinct per page. An entry at its exact score that is first
//     beats every other entry's bound, so every other page's score: it is
//     the next hit, ties going to the lower rank, as the oracle's stable
//     sort over pages in that order gives. A page whose exact score is 0
//     is dropped, as the oracle lists no such page.
//  4. Levels change nothing of 3. Pages enter the heap from the highest
//     candidacy bound down, each bound's pages in rank order (each tree's
//     span of ordinals, trees in the order searched, not the order stored).
//     So the next page to enter, (B, r), beats every page not yet in the
//     heap: those have a lower bound, or bound B and a higher rank. The
//     heap's first entry is refined or taken only when it beats (B, r)
//     too; otherwise (B, r) enters first. Each step therefore acts on the
//     first entry of all candidates, exactly as with every candidate in the
//     heap from the start, and refinement only lowers bounds, so the hits
//     and their order are the same. The bit-sliced sum of the bounds is
//     binary addition per bit position, the same sum per page.
//
// TestSearchPruning checks 3 and 4 on the edge cases (ties at the k-th
// place between pages of different levels, repeated words, words in a
// title alone, candidates scoring 0, trees stored in another order than
// searched); the differential tests check the whole on real corpora.

// oracle scores every page with plain loops: the contract's 3/2/1 rule,
// independent of the index, the candidate sets and the pruning.
type oracle struct {
	pages []oraclePage // in tree order, then manifest order
	limit int
}

func newOracle(t testing.TB, v *store.Version, trees []*store.Tree, limit int) *oracle {
	o := &oracle{limit: limit}
	for _, tr := range trees {
		for _, p := range tr.Pages {
			txt, err := tr.Text(p.Route)
			if err != nil || txt == nil {
				t.Fatalf("no copy of %s", p.Route)
			}
			c := string(txt.Bytes())
			op := oraclePage{title: p.Title, route: p.Route, lowerTitle: strings.ToLower(p.Title), copyText: c, lowerCopy: strings.ToLower(c)}
			for _, h := range textmap.Scan(c).Headings {
				if h.Depth >= 2 {
					op.lowerHeadings = append(op.lowerHeadings, strings.ToLower(h.Text))
				}
			}
			o.pages = append(o.pages, op)
		}
	}
	return o
}

func (o *oracle) answer(raw string) string {
	code := RuleCode(raw)
	words := strings.Fields(strings.ToLower(raw))
	if code != "" {
		words = []string{strings.ToLower(code)}
	}
	type scored struct{ i, score int }
	var hits []scored
	for i, p := range o.pages {
		score := 0
		for _, w := range words {
			if strings.Contains(p.lowerTitle, w) {
				score += 3
			}
			for _, h := range p.lowerHeadings {
				if strings.Contains(h, w) {
					score += 2
					break
				}
			}
			if strings.Contains(p.lowerCopy, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{i, score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	if len(hits) > o.limit {
		hits = hits[:o.limit]
	}
	var b strings.Builder
	if code != "" && len(hits) > 0 {
		fmt.Fprintf(&b, "%s is a rule code: the identifier of one numbered requirement in a Turn Zero Cloud contract. Pages holding it:\n", code)
	}
	for _, h := range hits {
		p := o.pages[h.i]
		line := ""
		for _, l := range strings.Split(p.copyText, "\n") {
			ll := strings.ToLower(strings.TrimSuffix(l, "\r"))
			found := false
			for _, w := range words {
				if strings.Contains(ll, w) {
					found = true
					break
				}
			}
			if found {
				line = strings.TrimSpace(l)
				break
			}
		}
		if line == "" {
			fmt.Fprintf(&b, "- [%s](%s):\n", p.title, tzctx.LinkTarget(p.route))
		} else {
			fmt.Fprintf(&b, "- [%s](%s): %s\n", p.title, tzctx.LinkTarget(p.route), line)
		}
	}
	return b.String()
}

// queries draws n queries from the pages: whole words, substrings,
// punctuated words, one- and two-character words, non-ASCII words,
// repeated words, misses and rule codes.
func (o *oracle) queries(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var tokens, punct, nonASCII []string
	for _, p := range o.pages {
		fs := strings.Fields(p.copyText)
		for k := 0; k < 40 && len(fs) > 0; k++ {
			tok := fs[rng.IntN(len(fs))]
			tokens = append(tokens, tok)
			if strings.IndexFunc(tok, func(r rune) bool { return unicode.IsPunct(r) }) > 0 {
				punct = append(punct, tok)
			}
			if strings.IndexFunc(tok, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
				nonASCII = append(nonASCII, tok)
			}
		}
		tokens = append(tokens, strings.Fields(p.title)...)
	}
	pick := func(s []string) string {
		if len(s) == 0 {
			return tokens[rng.IntN(len(tokens))]
		}
		return s[rng.IntN(len(s))]
	}
	sub := func(w string) string {
		rs := []rune(w)
		if len(rs) < 2 {
			return w
		}
		i := rng.IntN(len(rs) - 1)
		j := i + 1 + rng.IntN(len(rs)-i)
		return string(rs[i:j])
	}
	fixed := []string{"CTX-07", "(CTX-07)", "ctx-07", "(CTX-07", "CTX-07 paging", "API-L0-09", "tzdoc:TZD-L0-05",
		"ΟΔΟΣ", "İstanbul", "a", "e", "zz", "the the", "error_code", "context_not_found", "qqqxqqq", "", "  ", "https://", "-", "##"}
	out := append([]string(nil), fixed...)
	for len(out) < n {
		var q string
		switch rng.IntN(10) {
		case 0:
			q = pick(tokens)
		case 1:
			q = sub(pick(tokens))
		case 2:
			q = pick(punct)
		case 3:
			q = string([]rune(pick(tokens))[:1])
		case 4:
			rs := []rune(pick(tokens))
			q = string(rs[:min(2, len(rs))])
		case 5:
			q = pick(nonASCII)
		case 6:
			w := pick(tokens)
			q = w + " " + w + " " + pick(tokens)
		case 7:
			q = fmt.Sprintf("zq%dx", rng.IntN(1e6))
		case 8:
			q = strings.ToUpper(pick(tokens)) + " " + sub(pick(tokens)) + " " + pick(tokens)
		default:
			q = pick(tokens) + "\u00a0" + sub(pick(tokens))
		}
		if utf8.RuneCountInString(q) <= 160 {
			out = append(out, q)
		}
	}
	return out
}

// differential runs the queries through the real path and the oracle and
// requires byte-identical answers.
func differential(t *testing.T, st *store.Store, n int) {
	lim := testLimits()
	r := NewReader(Config{Limits: lim}, FromStore(st))
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	var trees []*store.Tree
	for _, name := range []string{"cloud", "blueprint", "tzdocs"} {
		if tr := v.Tree(name); tr != nil {
			trees = append(trees, tr)
		}
	}
	o := newOracle(t, v, trees, lim.SearchMatchLimit)
	qv, qtrees := seam(v, trees)
	bad := 0
	for _, q := range o.queries(uint64(len(o.pages)), n) {
		words := QueryWords(q)
		if len(words) == 0 {
			continue
		}
		got, err := r.searchText(context.Background(), qv, qtrees, words, RuleCode(q))
		if err != nil {
			t.Fatal(err)
		}
		if want := o.answer(q); got != want {
			bad++
			if bad <= 3 {
				t.Errorf("query %q:\n got  %q\n want %q", q, clip(got), clip(want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d queries differ from the oracle", bad, n)
	}
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// seam returns v and trees as the reader reads them, through the store's
// adapter; the oracle reads the store itself.
func seam(v *store.Version, trees []*store.Tree) (Version, []Tree) {
	qv := StoreVersion(v)
	qt := make([]Tree, len(trees))
	for i, t := range trees {
		qt[i] = qv.Tree(t.Name)
	}
	return qv, qt
}
