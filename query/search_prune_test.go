package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

// pruneSite is a small site built for the pruning's edge cases: two or
// three trees stored in one order and searched in another, pages drawn
// from a handful of words whose 3-grams recombine (so that candidacy
// overstates what pages hold, and some candidates score 0), words held in
// a title alone, and many equal scores.
func pruneSite(rng *rand.Rand, stored []string, pagesPer int) *memLayout {
	vocab := []string{"abc", "bcd", "abcd", "cdab", "x", "ab", "dab", "zz", "the", "a b"}
	pick := func(n int) string {
		var ws []string
		for range n {
			ws = append(ws, vocab[rng.IntN(len(vocab))])
		}
		return strings.Join(ws, " ")
	}
	m := &memLayout{name: "prune", trees: map[string]*memTree{}}
	for _, name := range stored {
		mt := &memTree{title: name, first: m.n, byRoute: map[string]int{}, texts: map[string]*memText{}, headings: map[string][]tzctx.Heading{}}
		for i := range pagesPer {
			route := fmt.Sprintf("/%s/p%d/", name, i)
			title := pick(rng.IntN(3))
			if rng.IntN(4) == 0 {
				title = strings.ToUpper(title)
			}
			// The copy holds its headings, as a page's does.
			var hs []tzctx.Heading
			var head, body strings.Builder
			for range rng.IntN(3) {
				h := pick(1 + rng.IntN(2))
				hs = append(hs, tzctx.Heading{Depth: 2, Text: h, Offset: body.Len()})
				head.WriteString(strings.ToLower(h) + "\n")
				body.WriteString("## " + h + "\n\n")
			}
			body.WriteString(pick(rng.IntN(4)))
			mt.pages = append(mt.pages, tzctx.Page{Path: fmt.Sprintf("p%d", i), Route: route, Title: title})
			mt.byRoute[route] = i
			mt.texts[route] = newMemText(body.String())
			mt.headings[route] = hs
			lt := strings.ToLower(title)
			m.fields[FieldAll] = append(m.fields[FieldAll], lt+"\n"+strings.ToLower(body.String()))
			m.fields[FieldTitle] = append(m.fields[FieldTitle], lt)
			m.fields[FieldHeadings] = append(m.fields[FieldHeadings], head.String())
		}
		m.n += pagesPer
		m.trees[name] = mt
	}
	return m
}

// bruteScore scores every page of trees by the 3/2/1 rule with plain
// loops and returns the first k, score descending, then the trees' order
// given and manifest order.
func bruteScore(m *memLayout, trees []string, words []string, k int) []hit {
	var all []hit
	for _, name := range trees {
		t := m.trees[name]
		for i, p := range t.pages {
			o := t.first + i
			title := strings.ToLower(p.Title)
			body := strings.ToLower(t.texts[p.Route].s)
			score := 0
			for _, w := range words {
				if strings.Contains(title, w) {
					score += 3
				}
				for _, h := range t.headings[p.Route] {
					if strings.Contains(strings.ToLower(h.Text), w) {
						score += 2
						break
					}
				}
				if strings.Contains(body, w) {
					score++
				}
			}
			if score > 0 {
				all = append(all, hit{ord: o, score: score})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b hit) int { return b.score - a.score })
	return all[:min(k, len(all))]
}

// TestSearchPruning runs random queries over small random sites through
// the real scoring (candidate levels, lazy refinement) and the brute
// force, with small match limits so that the k-th place is often a tie
// between pages of different candidacy bounds, and requires the same
// pages, scores and order. The trees are stored in one order and searched
// in another, so rank is not the ordinal.
func TestSearchPruning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(26, 1))
	queryWords := []string{"abc", "bcd", "abcd", "cdab", "x", "ab", "dab", "zz", "the", "a", "b", "d", "bcda", "abcdab", "q"}
	cases := 0
	for site := range 40 {
		stored := []string{"tzdocs", "cloud", "blueprint"}
		rng.Shuffle(len(stored), func(i, j int) { stored[i], stored[j] = stored[j], stored[i] })
		m := pruneSite(rng, stored, 5+rng.IntN(60))
		for range 60 {
			// Searched trees: all three in a shuffled order, or one, or two.
			order := append([]string(nil), stored...)
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			order = order[:1+rng.IntN(len(order))]
			var trees []Tree
			for _, name := range order {
				trees = append(trees, m.Tree(name))
			}
			var words []string
			for range 1 + rng.IntN(4) {
				w := queryWords[rng.IntN(len(queryWords))]
				words = append(words, w)
				if rng.IntN(4) == 0 {
					words = append(words, w) // a repeated word counts again
				}
			}
			k := []int{1, 2, 3, 5, 20}[rng.IntN(5)]
			lim := testLimits()
			lim.SearchMatchLimit = k
			r := NewReader(Config{Limits: lim}, memVersions{m})
			got, err := r.score(ctx, m, trees, words)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteScore(m, order, words, k)
			if !slices.Equal(got, want) {
				t.Fatalf("site %d (stored %v), trees %v, words %q, limit %d:\n got  %v\n want %v", site, stored, order, words, k, got, want)
			}
			cases++
		}
	}
	t.Logf("%d queries agree with the brute force", cases)
}
