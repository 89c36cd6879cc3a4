package query

import (
	"container/heap"
	"context"
	"math"
	"sort"
	"sync"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store/sections"
)

// The section index of search_documentation: every section of every page
// of a version (sections.Split), with the lengths of its two fields (the
// page's title and the section's heading path; the section's text), and
// per term its postings: the sections holding it, its frequency in each
// field and its text positions. Ingest derives it and the store keeps it
// in the version (package store/sections); a version's first
// search_documentation call reads its section table into memory once per
// version (Memo), and every call reads the postings of its query's terms
// alone, in place. A version built before ingest stored it answers
// context_unavailable, naming the fix. It holds nothing of a caller.

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

// pieceMax is the most code points a section holds before it is cut
// into pieces (sections.PieceMax).
const pieceMax = sections.PieceMax

// analyze is the word analysis of sections and queries (sections.Analyze).
func analyze(text string, pos int, emit func(term string, pos int)) int {
	return sections.Analyze(text, pos, emit)
}

// span is one section of a page's served text: code points [start, end),
// and the page heading it starts at, -1 for the lead.
type span struct {
	start, end int
	head       int
	code       bool
}

// splitSections cuts a page's served text into its sections
// (sections.Split).
func splitSections(text string, n int, hs []tzctx.Heading, places textmap.Layout) []span {
	got := sections.Split(text, n, hs, places)
	out := make([]span, len(got))
	for i, s := range got {
		out[i] = span{s.Start, s.End, s.Head, s.Code}
	}
	return out
}

// headingPath returns the indexes of the headings enclosing heading h and
// h itself, outer to inner; none for the lead (h < 0).
func headingPath(hs []tzctx.Heading, h int) []int { return sections.HeadingPath(hs, h) }

// sectionTitle is the text of a section's title field (sections.Title).
func sectionTitle(title string, hs []tzctx.Heading, head int) string {
	return sections.Title(title, hs, head)
}

// secEntry is one indexed section (sections.Record).
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
	next     int32 // the next section of the same text, -1 for none
}

// treeStats are the sums BM25F reads of one tree's sections, which are
// the sections [first, end).
type treeStats struct {
	first, end        int
	sumTitle, sumText float64
	pages             int     // pages with a section
	sumPage           float64 // terms of those pages' text
}

// secIndex is a version's section index: its section table and sums,
// read once per version, and its stored postings.
type secIndex struct {
	secs  []secEntry
	trees []treeStats // by index in the version's TreeNames
	// pages holds each page's text length in terms (the sum of its
	// sections'), by the index secEntry.page names.
	pages  []int32
	stored *sections.Index
}

// sectionVersion is a Version that holds a stored section index.
type sectionVersion interface {
	// Sections returns the version's section index, nil where the
	// version was built before ingest stored it.
	Sections() *sections.Index
}

// secIndexKey is the Memo key of a version's section index.
type secIndexKey struct{}

// sectionsOf returns the section index of v, its tables read once per
// version, or context_unavailable where v holds none.
func sectionsOf(v Version) (*secIndex, error) {
	d, err := v.Memo(secIndexKey{}, readSecIndex)
	if err != nil {
		return nil, err
	}
	return d.(*secIndex), nil
}

func readSecIndex(v Version) (any, error) {
	var stored *sections.Index
	if sv, ok := v.(sectionVersion); ok {
		stored = sv.Sections()
	}
	if stored == nil {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version %s was built before search_documentation's section index was stored at ingest; ingest the site again (tzctx ingest) and activate the new version", v.Name())
	}
	if stored.Trees() != len(v.TreeNames()) {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the section index of the served site version %s names %d trees, the version %d; ingest the site again (tzctx ingest) and activate the new version", v.Name(), stored.Trees(), len(v.TreeNames()))
	}
	recs, err := stored.Records()
	if err != nil {
		return nil, err
	}
	ix := &secIndex{secs: make([]secEntry, len(recs)), pages: stored.PageLens(), stored: stored}
	names := v.TreeNames()
	for i, r := range recs {
		t := v.Tree(names[r.Tree])
		if t == nil || int(r.Ord) < t.First() || int(r.Ord) >= t.First()+len(t.Pages()) {
			return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the section index of the served site version %s names page %d outside its tree %s; ingest the site again (tzctx ingest) and activate the new version", v.Name(), r.Ord, names[r.Tree])
		}
		ix.secs[i] = secEntry{ord: r.Ord, tree: r.Tree, head: r.Head, start: r.Start, end: r.End, titleLen: r.TitleLen, textLen: r.TextLen, dup: r.Dup, page: r.Page, next: r.Next}
	}
	for i := range stored.Trees() {
		t := stored.Tree(i)
		ix.trees = append(ix.trees, treeStats{first: t.First, end: t.End, sumTitle: float64(t.SumTitle), sumText: float64(t.SumText), pages: t.Pages, sumPage: float64(t.SumPage)})
	}
	return ix, nil
}

// group returns every section of section d's text in section order, d
// the first of them, or nil where d's text is nowhere else.
func (ix *secIndex) group(d int32) []int32 {
	if ix.secs[d].next < 0 {
		return nil
	}
	var out []int32
	for s := d; s >= 0; s = ix.secs[s].next {
		out = append(out, s)
	}
	return out
}

// queryTerm is one distinct term of a query: its stored postings, read
// by rank, its place among the query's parts, and its weight once
// scoped.
type queryTerm struct {
	raw   []byte
	posts sections.Postings
	qpos  int
	idf   float64
}

// queryTerms returns the distinct terms of a query the index holds, in
// the order of their first place in the query.
func (ix *secIndex) queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	analyze(query, 0, func(term string, pos int) {
		if seen[term] {
			return
		}
		seen[term] = true
		if raw := ix.stored.Postings(term); raw != nil {
			out = append(out, queryTerm{raw: raw, qpos: pos})
		}
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
		var err error
		if qt[i].posts, err = ix.stored.Decode(qt[i].raw, nil); err != nil {
			return nil, 0, err
		}
		ps := qt[i].posts.List
		spans := make([][]sections.Posting, 0, len(scope))
		df := 0
		for _, t := range scope {
			st := ix.trees[t]
			lo := sort.Search(len(ps), func(k int) bool { return ps[k].Sec >= uint32(st.first) })
			hi := lo + sort.Search(len(ps)-lo, func(k int) bool { return ps[lo+k].Sec >= uint32(st.end) })
			spans = append(spans, ps[lo:hi])
			df += hi - lo
		}
		qt[i].idf = idf(n, float64(df))
		for _, span := range spans {
			for _, p := range span {
				e := &ix.secs[p.Sec]
				if sc.score[p.Sec] == 0 {
					sc.touched = append(sc.touched, int32(p.Sec))
				}
				sc.score[p.Sec] += qt[i].idf * bm25F(float64(p.Title), float64(e.titleLen), avgTitle, float64(p.Text), float64(e.textLen), avgText)
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
		bonus, err := proximity(cands[i].sec, qt)
		if err != nil {
			return nil, 0, err
		}
		cands[i].score += bonus
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
func (ix *secIndex) scorePages(sc *scratch, spans [][]sections.Posting, np, avgPage float64) {
	var held []int32
	for _, span := range spans {
		for _, p := range span {
			if p.Text == 0 {
				continue
			}
			pg := ix.secs[p.Sec].page
			if sc.pageTF[pg] == 0 {
				held = append(held, pg)
			}
			sc.pageTF[pg] += float64(p.Text)
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

// positions returns the text positions of a term in section sec, in
// order, or nil.
func (q *queryTerm) positions(sec int32) ([]uint32, error) {
	ps := q.posts.List
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Sec >= uint32(sec) })
	if i == len(ps) || ps[i].Sec != uint32(sec) {
		return nil, nil
	}
	return q.posts.Positions(i)
}

// proximity is the bonus of a section whose text holds two terms of the
// query from different places in it close together: for each such pair,
// proxWeight times the lesser idf over their least distance in parts,
// where that is at most proxWindow.
func proximity(sec int32, qt []queryTerm) (float64, error) {
	pos := make([][]uint32, len(qt))
	for i := range qt {
		var err error
		if pos[i], err = qt[i].positions(sec); err != nil {
			return 0, err
		}
	}
	return proximityOf(qt, pos), nil
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
