package query

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/turnzerocloud/tzctx"
)

// The section index of search_documentation: every section of every page
// of a version (splitSections), with the postings of its two fields (the
// page's title and the section's heading path; the section's text) and
// the positions of its text's terms. It is derived from the version's
// served texts once per version (Memo, filled by the version's first
// search_documentation call; concurrent first calls wait for the one
// build) and lives and dies with the version; it holds nothing of a
// caller.

// BM25F's parameters, the same for both fields: k1 the term-frequency
// saturation, b the length normalisation; the fields' weights; the
// proximity bonus's window, in parts, and weight.
const (
	bm25K1      = 1.6
	bm25B       = 0.75
	weightTitle = 10.0
	weightText  = 1.0
	proxWindow  = 8
	proxWeight  = 0.5
	// rescored is how many sections, best by BM25F, the proximity bonus
	// is computed for.
	rescored = 200
	// pageWeight is the share of a page's own BM25 score (over its whole
	// text) each of its matching sections gains.
	pageWeight = 0.5
)

// secEntry is one indexed section.
type secEntry struct {
	ord      int32 // page ordinal
	tree     int32 // index in the version's TreeNames
	head     int32 // index in the page's headings, -1 for the lead
	start    int32 // code points in the page's served text
	end      int32
	titleLen int32 // terms of the title field
	textLen  int32 // terms of the text field
	dup      int32 // the first section of the same text, itself where none is before it
	page     int32 // index in secIndex.pages
}

// secPosting is one section holding a term: its frequency in each field,
// and where its text positions start in secIndex.pos (text of them).
type secPosting struct {
	sec         uint32
	title, text uint16
	pos         uint32
}

// treeStats are the sums BM25F reads of one tree's sections, which are
// the sections [first, end).
type treeStats struct {
	first, end        int
	sumTitle, sumText float64
	pages             int     // pages with a section
	sumPage           float64 // terms of those pages' text
}

// secIndex is a version's section index.
type secIndex struct {
	secs  []secEntry
	terms map[string]int32
	posts [][]secPosting // by term id, in section order
	pos   []uint32       // text positions, by posting
	trees []treeStats    // by index in the version's TreeNames
	// pages holds each page's text length in terms (the sum of its
	// sections'), by the index secEntry.page names.
	pages []int32
	// groups names, for a section with duplicates, every section of its
	// text in section order.
	groups map[int32][]int32
}

// secIndexKey is the Memo key of a version's section index.
type secIndexKey struct{}

// sectionsOf returns the section index of v, built once per version.
func sectionsOf(v Version) (*secIndex, error) {
	d, err := v.Memo(secIndexKey{}, buildSecIndex)
	if err != nil {
		return nil, err
	}
	return d.(*secIndex), nil
}

// headingPath returns the indexes of the headings enclosing heading h and
// h itself, outer to inner; none for the lead (h < 0).
func headingPath(hs []tzctx.Heading, h int) []int {
	if h < 0 {
		return nil
	}
	path := []int{h}
	d := hs[h].Depth
	for i := h - 1; i >= 0; i-- {
		if hs[i].Depth < d {
			path = append(path, i)
			d = hs[i].Depth
		}
	}
	slices.Reverse(path)
	return path
}

// termAcc is one term of one section while it is indexed.
type termAcc struct {
	title, text int
	pos         []uint32
}

func buildSecIndex(v Version) (any, error) {
	ix := &secIndex{terms: map[string]int32{}, groups: map[int32][]int32{}}
	seen := map[[32]byte]int32{}
	acc := map[string]*termAcc{}
	var pool []*termAcc
	get := func(term string) *termAcc {
		a := acc[term]
		if a == nil {
			if n := len(pool); n > 0 {
				a, pool = pool[n-1], pool[:n-1]
			} else {
				a = new(termAcc)
			}
			acc[term] = a
		}
		return a
	}
	for ti, name := range v.TreeNames() {
		t := v.Tree(name)
		st := treeStats{first: len(ix.secs)}
		if t != nil {
			first := t.First()
			for pi, p := range t.Pages() {
				txt, err := t.Text(p.Route)
				if err != nil {
					return nil, err
				}
				if txt == nil {
					continue
				}
				hs, err := t.Headings(p.Route)
				if err != nil {
					return nil, err
				}
				text := string(txt.Bytes())
				at := codePointBytes(text, txt.Total())
				page := int32(len(ix.pages))
				ix.pages = append(ix.pages, 0)
				for _, s := range splitSections(text, txt.Total(), hs, txt) {
					id := int32(len(ix.secs))
					e := secEntry{ord: int32(first + pi), tree: int32(ti), head: int32(s.head), start: int32(s.start), end: int32(s.end), dup: id, page: page}
					body := text[at[s.start]:at[s.end]]
					e.titleLen = int32(analyze(sectionTitle(p.Title, hs, s.head), 0, func(term string, _ int) { get(term).title++ }))
					e.textLen = int32(analyze(body, 0, func(term string, pos int) {
						a := get(term)
						a.text++
						a.pos = append(a.pos, uint32(pos))
					}))
					sum := sha256.Sum256([]byte(body))
					if d, ok := seen[sum]; ok {
						e.dup = d
						if ix.groups[d] == nil {
							ix.groups[d] = []int32{d}
						}
						ix.groups[d] = append(ix.groups[d], id)
					} else {
						seen[sum] = id
					}
					for term, a := range acc {
						tid, ok := ix.terms[term]
						if !ok {
							tid = int32(len(ix.posts))
							ix.terms[term] = tid
							ix.posts = append(ix.posts, nil)
						}
						ix.posts[tid] = append(ix.posts[tid], secPosting{sec: uint32(id), title: clampTF(a.title), text: clampTF(a.text), pos: uint32(len(ix.pos))})
						ix.pos = append(ix.pos, a.pos...)
						a.title, a.text, a.pos = 0, 0, a.pos[:0]
						pool = append(pool, a)
					}
					clear(acc)
					st.sumTitle += float64(e.titleLen)
					st.sumText += float64(e.textLen)
					ix.pages[page] += e.textLen
					ix.secs = append(ix.secs, e)
				}
				st.pages++
				st.sumPage += float64(ix.pages[page])
			}
		}
		st.end = len(ix.secs)
		ix.trees = append(ix.trees, st)
	}
	return ix, nil
}

// sectionTitle is the text of a section's title field: the page's title
// and the texts of its heading path.
func sectionTitle(title string, hs []tzctx.Heading, head int) string {
	for _, i := range headingPath(hs, head) {
		title += "\n" + hs[i].Text
	}
	return title
}

func clampTF(n int) uint16 { return uint16(min(n, math.MaxUint16)) }

// queryTerm is one distinct term of a query: its id in the index, its
// place among the query's parts, and its weight once scoped.
type queryTerm struct {
	id   int32
	qpos int
	idf  float64
}

// queryTerms returns the distinct terms of a query the index holds, in
// the order of their first place in the query.
func (ix *secIndex) queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[int32]bool{}
	analyze(query, 0, func(term string, pos int) {
		id, ok := ix.terms[term]
		if !ok || seen[id] {
			return
		}
		seen[id] = true
		out = append(out, queryTerm{id: id, qpos: pos})
	})
	return out
}

// scoredSection is one ranked section.
type scoredSection struct {
	sec   int32
	score float64
}

// scratch is one search's score accumulator, reused across searches; it
// holds nothing between them (rank clears what it touched).
type scratch struct {
	score   []float64
	touched []int32
	page    []float64 // page scores, by secIndex.pages index
	pageTF  []float64 // one term's text frequency per page
	pages   []int32   // pages with a score
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// rank returns the best sections of the trees in scope (indexes in the
// version's TreeNames) for the query's terms, best first: BM25F over the
// two fields, plus the proximity bonus for the best rescored, ties in
// section order (the version's tree order, manifest order, then place in
// the page). It returns at most limit sections, and how many matched.
func (ix *secIndex) rank(ctx context.Context, scope []int, qt []queryTerm, limit int) ([]scoredSection, int, error) {
	var n, sumTitle, sumText, np, sumPage float64
	for _, t := range scope {
		st := ix.trees[t]
		n += float64(st.end - st.first)
		sumTitle += st.sumTitle
		sumText += st.sumText
		np += float64(st.pages)
		sumPage += st.sumPage
	}
	if n == 0 || len(qt) == 0 {
		return nil, 0, nil
	}
	avgTitle, avgText, avgPage := max(sumTitle/n, 1), max(sumText/n, 1), max(sumPage/max(np, 1), 1)
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	if len(sc.score) < len(ix.secs) {
		sc.score = make([]float64, len(ix.secs))
	}
	if len(sc.page) < len(ix.pages) {
		sc.page = make([]float64, len(ix.pages))
		sc.pageTF = make([]float64, len(ix.pages))
	}
	defer func() {
		for _, s := range sc.touched {
			sc.score[s] = 0
		}
		for _, p := range sc.pages {
			sc.page[p] = 0
		}
		sc.touched, sc.pages = sc.touched[:0], sc.pages[:0]
	}()
	for i := range qt {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		// A term's postings are in section order and each tree's
		// sections are one span, so the postings of the trees in scope
		// are one span of them per tree.
		ps := ix.posts[qt[i].id]
		spans := make([][]secPosting, 0, len(scope))
		df := 0
		for _, t := range scope {
			st := ix.trees[t]
			lo := sort.Search(len(ps), func(k int) bool { return ps[k].sec >= uint32(st.first) })
			hi := lo + sort.Search(len(ps)-lo, func(k int) bool { return ps[lo+k].sec >= uint32(st.end) })
			spans = append(spans, ps[lo:hi])
			df += hi - lo
		}
		qt[i].idf = idf(n, float64(df))
		for _, span := range spans {
			for _, p := range span {
				e := &ix.secs[p.sec]
				if sc.score[p.sec] == 0 {
					sc.touched = append(sc.touched, int32(p.sec))
				}
				sc.score[p.sec] += qt[i].idf * bm25F(float64(p.title), float64(e.titleLen), avgTitle, float64(p.text), float64(e.textLen), avgText)
			}
		}
		ix.scorePages(sc, spans, np, avgPage)
	}
	// Each section gains a share of its page's score: the page as a whole
	// is evidence for every section of it.
	for _, s := range sc.touched {
		sc.score[s] += pageWeight * sc.page[ix.secs[s].page]
	}
	cands := topScored(sc.touched, sc.score, rescored)
	for i := range cands {
		cands[i].score += ix.proximity(cands[i].sec, qt)
	}
	sortScored(cands)
	if len(cands) > limit {
		cands = cands[:limit]
	}
	return cands, len(sc.touched), nil
}

// scorePages adds one term's BM25 weight over whole pages (their
// sections' text taken together) to each page holding it. A page's
// sections are consecutive, so its postings are too.
func (ix *secIndex) scorePages(sc *scratch, spans [][]secPosting, np, avgPage float64) {
	var held []int32
	for _, span := range spans {
		for _, p := range span {
			if p.text == 0 {
				continue
			}
			pg := ix.secs[p.sec].page
			if sc.pageTF[pg] == 0 {
				held = append(held, pg)
			}
			sc.pageTF[pg] += float64(p.text)
		}
	}
	w := idf(np, float64(len(held)))
	for _, pg := range held {
		tf := sc.pageTF[pg]
		sc.pageTF[pg] = 0
		if sc.page[pg] == 0 {
			sc.pages = append(sc.pages, pg)
		}
		tf /= 1 - bm25B + bm25B*float64(ix.pages[pg])/avgPage
		sc.page[pg] += w * tf / (bm25K1 + tf)
	}
}

// topScored returns the best k of the sections touched by their scores,
// best first (sortScored's order), keeping the k best in a heap rather
// than sorting every section touched.
func topScored(touched []int32, score []float64, k int) []scoredSection {
	h := make(scoredHeap, 0, min(k, len(touched)))
	for _, s := range touched {
		c := scoredSection{s, score[s]}
		if len(h) < k {
			heap.Push(&h, c)
		} else if beats(c, h[0]) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	out := []scoredSection(h)
	sortScored(out)
	return out
}

// beats reports whether a ranks before b.
func beats(a, b scoredSection) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.sec < b.sec
}

// scoredHeap keeps the worst of the best sections first.
type scoredHeap []scoredSection

func (h scoredHeap) Len() int           { return len(h) }
func (h scoredHeap) Less(i, j int) bool { return beats(h[j], h[i]) }
func (h scoredHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)        { *h = append(*h, x.(scoredSection)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortScored orders sections by score, highest first, then section order.
func sortScored(s []scoredSection) {
	sort.Slice(s, func(i, j int) bool { return beats(s[i], s[j]) })
}

// idf is BM25's inverse document frequency of a term held by df of n
// sections: rarer terms weigh more, and none weighs less than nothing.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// bm25F is BM25F's term weight, before the idf: each field's frequency
// normalised by its length against the average and weighted, then
// saturated by k1.
func bm25F(tfTitle, lenTitle, avgTitle, tfText, lenText, avgText float64) float64 {
	tf := weightTitle*tfTitle/(1-bm25B+bm25B*lenTitle/avgTitle) + weightText*tfText/(1-bm25B+bm25B*lenText/avgText)
	return tf / (bm25K1 + tf)
}

// positions returns the text positions of term id in section sec, in
// order, or nil.
func (ix *secIndex) positions(id int32, sec int32) []uint32 {
	ps := ix.posts[id]
	i := sort.Search(len(ps), func(i int) bool { return ps[i].sec >= uint32(sec) })
	if i == len(ps) || ps[i].sec != uint32(sec) {
		return nil
	}
	return ix.pos[ps[i].pos : ps[i].pos+uint32(ps[i].text)]
}

// proximity is the bonus of a section whose text holds two terms of the
// query from different places in it close together: for each such pair,
// proxWeight times the lesser idf over their least distance in parts,
// where that is at most proxWindow.
func (ix *secIndex) proximity(sec int32, qt []queryTerm) float64 {
	pos := make([][]uint32, len(qt))
	for i := range qt {
		pos[i] = ix.positions(qt[i].id, sec)
	}
	return proximityOf(qt, pos)
}

// proximityOf is proximity over the terms' positions in one text.
func proximityOf(qt []queryTerm, pos [][]uint32) float64 {
	bonus := 0.0
	for i := range qt {
		for j := i + 1; j < len(qt); j++ {
			if qt[i].qpos == qt[j].qpos || len(pos[i]) == 0 || len(pos[j]) == 0 {
				continue
			}
			if d := leastDistance(pos[i], pos[j]); d >= 1 && d <= proxWindow {
				bonus += proxWeight * min(qt[i].idf, qt[j].idf) / float64(d)
			}
		}
	}
	return bonus
}

// leastDistance returns the least |x-y| over x of a and y of b, both in
// order.
func leastDistance(a, b []uint32) int {
	best := math.MaxInt
	for i, j := 0, 0; i < len(a) && j < len(b); {
		d := int(a[i]) - int(b[j])
		if d < 0 {
			d = -d
			i++
		} else {
			j++
		}
		best = min(best, d)
	}
	return best
}
