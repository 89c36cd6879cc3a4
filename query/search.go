package query

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"regexp"
	"strings"
	"sync"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/grams"
	"github.com/turnzerocloud/tzctx/schemas"
)

// ruleCode matches one rule code, such as CTX-07, API-L0-09 or
// tzdoc:TZD-L0-05.
var ruleCode = regexp.MustCompile(`^(?:[a-z][a-z0-9]*:)?[A-Z][A-Z0-9]*(?:-[A-Z]+[0-9]+)?-[0-9]+$`)

// RuleCode returns the rule code a raw query is, or "": the trimmed query,
// one balanced pair of enclosing parentheses removed, matching the rule
// code form in upper case.
func RuleCode(raw string) string {
	q := strings.TrimSpace(raw)
	if len(q) >= 2 && q[0] == '(' && q[len(q)-1] == ')' {
		q = q[1 : len(q)-1]
	}
	if ruleCode.MatchString(q) {
		return q
	}
	return ""
}

// SearchID returns the sixteen hex digits a query's identifier carries:
// the start of the SHA-256 of the lower-cased words joined by one space.
func SearchID(words []string) string {
	sum := sha256.Sum256([]byte(strings.Join(words, " ")))
	return hex.EncodeToString(sum[:8])
}

// QueryWords returns the words of a raw query: its
// lower-cased whitespace-separated words, or the bare code of a rule code.
func QueryWords(raw string) []string {
	if code := RuleCode(raw); code != "" {
		return []string{strings.ToLower(code)}
	}
	return grams.Words(raw)
}

// rulePreface is the line a rule-code query's answer starts with, under
// the default site name.
func rulePreface(code string) string { return namedRulePreface(schemas.DefaultSiteName, code) }

// namedRulePreface is the line a rule-code query's answer starts with,
// naming the site name.
func namedRulePreface(name, code string) string {
	return code + " is a rule code: the identifier of one numbered requirement in " + schemas.WithArticle(name) + " contract. Pages holding it:\n"
}

// searchPages holds what scoring reads of a version's pages besides their
// bodies: lower-cased titles and headings, by page ordinal, and where to
// read each body, so that refining a candidate costs one Tree call.
type searchPages struct {
	tree     []Tree   // by ordinal
	index    []int    // manifest position by ordinal
	route    []string // route by ordinal
	title    []string
	headings []string // lower-cased heading texts joined by "\n"
}

// searchPagesKey is the Memo key of a version's searchPages.
type searchPagesKey struct{}

// pagesOf returns the search data of v, read once per version: a version
// never changes, so its data never goes stale, and it goes with the
// version. Nothing here is keyed by a caller's words.
func pagesOf(v Version) (*searchPages, error) {
	d, err := v.Memo(searchPagesKey{}, loadSearchPages)
	if err != nil {
		return nil, err
	}
	return d.(*searchPages), nil
}

func loadSearchPages(v Version) (any, error) {
	n := v.PageCount()
	d := &searchPages{tree: make([]Tree, n), index: make([]int, n), route: make([]string, n), title: make([]string, n), headings: make([]string, n)}
	for _, name := range v.TreeNames() {
		t := v.Tree(name)
		if t == nil {
			continue
		}
		first := t.First()
		for i, p := range t.Pages() {
			o := first + i
			d.tree[o], d.index[o], d.route[o] = t, i, p.Route
			d.title[o] = strings.ToLower(p.Title)
			hs, err := t.Headings(p.Route)
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			for _, h := range hs {
				b.WriteString(strings.ToLower(h.Text))
				b.WriteByte('\n')
			}
			d.headings[o] = b.String()
		}
	}
	return d, nil
}

// hit is one scored page.
type hit struct {
	ord, score int
}

// search answers a query over tree, or over every readable tree the
// served version holds where tree is empty.
func (r *Reader) search(ctx context.Context, tree string, words []string, raw string, p Paging, readable []string) (*Answer, string, error) {
	subject := ContentID{Kind: KindSearch, Tree: tree}.Marker()
	code := RuleCode(raw) // words already hold its bare code (QueryWords)
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	// A constant capacity keeps the slice on the stack for the trees
	// there are.
	trees := make([]Tree, 0, 4)
	if tree != "" {
		t := v.Tree(tree)
		if t == nil {
			return nil, subject, noTree(v, tree, readable)
		}
		trees = append(trees, t)
	} else {
		for _, name := range readable {
			if t := v.Tree(name); t != nil {
				trees = append(trees, t)
			}
		}
		if len(trees) == 0 {
			return nil, subject, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version holds none of the trees this connection may read")
		}
	}
	text, err := r.searchText(ctx, v, trees, words, code)
	if err != nil {
		return nil, subject, err
	}
	id := ContentID{Kind: KindSearch, Tree: tree, Search: SearchID(words)}.String()
	a, err := r.answer(read{t: newMemText(text), id: id, action: "read_documentation", selector: "the same tree and query", version: v.Name()}, p)
	return a, subject, err
}

// searchText composes the answer text of a search over trees: the
// rule-code preface where code is set and a page matches, then one line
// per page, best first.
func (r *Reader) searchText(ctx context.Context, v Version, trees []Tree, words []string, code string) (string, error) {
	hits, err := r.score(ctx, v, trees, words)
	if err != nil {
		return "", err
	}
	sp, err := pagesOf(v)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if code != "" && len(hits) > 0 {
		name := r.cfg.SiteName
		if n, ok := r.cfg.Catalog.(SiteNamer); ok {
			name = n.SiteName()
		}
		if name == "" {
			name = schemas.DefaultSiteName
		}
		b.WriteString(namedRulePreface(name, code))
	}
	for _, h := range hits {
		t := sp.tree[h.ord]
		pg := t.Pages()[sp.index[h.ord]]
		b.WriteString("- [" + pg.Title + "](" + tzctx.LinkTarget(pg.Route) + "):")
		if line := firstLine(t, pg.Route, words); line != "" {
			b.WriteString(" " + line)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// wordIndex returns the index of the first w, a lower-cased word, in a
// page's search body, or -1: in the lower-cased copy itself, or, with fold
// set, in the copy with its ASCII letters lower-cased, which is the
// lower-cased copy for such a page (Tree.SearchBody).
func wordIndex(body []byte, w string, fold bool) int {
	if !fold {
		return bytes.Index(body, []byte(w))
	}
	return foldIndex(body, w)
}

// foldIndex returns the index of the first w in body with body's ASCII
// letters lower-cased, or -1. It looks for the rarest byte of w, in both
// cases where it is a letter, with the vectorised bytes.IndexByte, and
// compares the rest at each place found.
func foldIndex(body []byte, w string) int {
	n := len(w)
	if n == 0 {
		return 0
	}
	k := anchorOf(w)
	lo, up := w[k], w[k]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	next := func(c byte, p int) int {
		if i := bytes.IndexByte(body[p:], c); i >= 0 {
			return p + i
		}
		return len(body)
	}
	if n > len(body) {
		return -1
	}
	nextLo, nextUp := next(lo, k), len(body)
	if up != lo {
		nextUp = next(up, k)
	}
	for {
		q := min(nextLo, nextUp)
		i := q - k
		if q >= len(body) || i+n > len(body) {
			return -1
		}
		if foldEqual(body[i:i+n], w) {
			return i
		}
		if nextLo == q {
			nextLo = next(lo, q+1)
		}
		if nextUp == q {
			nextUp = next(up, q+1)
		}
	}
}

// foldEqual reports whether b with its ASCII letters lower-cased is w.
func foldEqual(b []byte, w string) bool {
	for j := 0; j < len(w); j++ {
		c := b[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}

// anchorOf returns the index of the byte of w that documentation text
// holds least often, by byteRarity.
func anchorOf(w string) int {
	best, k := 256, 0
	for i := 0; i < len(w); i++ {
		if r := byteRarity(w[i]); r < best {
			best, k = r, i
		}
	}
	return k
}

// byteRarity ranks how often a byte occurs in English documentation,
// both cases of a letter together: lower is rarer. Only the choice of
// where foldIndex looks depends on it, never its answer.
func byteRarity(c byte) int {
	const letters = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	if i := strings.IndexByte(letters, c); i >= 0 {
		return 10 + 4*i
	}
	switch {
	case c >= 0x80:
		return 5
	case '0' <= c && c <= '9':
		return 30
	case c == '-' || c == '.' || c == '/' || c == '_' || c == '`' || c == '*' || c == '#':
		return 70
	}
	return 20
}

// firstLine returns the page's first line holding any word, trimmed.
func firstLine(t Tree, route string, words []string) string {
	lower, fold := t.SearchBody(route)
	first := -1
	for _, w := range words {
		if i := wordIndex(lower, w, fold); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		return ""
	}
	// Lower-casing keeps line ends where they are, so the line number in
	// the lower-cased copy is the line number in the copy.
	n := bytes.Count(lower[:first], []byte("\n"))
	txt, err := t.Text(route)
	if err != nil || txt == nil {
		return ""
	}
	raw := txt.Bytes()
	for ; n > 0; n-- {
		raw = raw[bytes.IndexByte(raw, '\n')+1:]
	}
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		raw = raw[:i]
	}
	return strings.TrimSpace(string(raw))
}

// score returns the top pages of trees for words, best first: score
// descending, then the order of trees and manifest order (rankOf). Exact
// scores are computed only for pages that can still enter the top.
func (r *Reader) score(ctx context.Context, v Version, trees []Tree, words []string) ([]hit, error) {
	n := v.PageCount()
	size := (n + 63) / 64
	// The distinct words, each with its multiplicity and candidate sets:
	// pages whose n-grams hold all of the word's, in the whole page, in the
	// title and in the headings. Each is a superset of the pages holding
	// the word there.
	var ws []*wordSet
	byWord := map[string]*wordSet{}
	for _, w := range words {
		if s, ok := byWord[w]; ok {
			s.times++
			continue
		}
		s := &wordSet{w: w, times: 1}
		byWord[w] = s
		ws = append(ws, s)
	}
	// The trees searched, as an ordinal mask; tmp takes each n-gram's
	// candidates, and any the pages that may hold a word. One allocation
	// holds the three.
	ar := getArena()
	defer putArena(ar)
	sets := ar.take(3 * size)
	mask, tmp, any := sets[:size:size], sets[size:2*size:2*size], sets[2*size:]
	for _, t := range trees {
		setRange(mask, t.First(), t.First()+len(t.Pages()))
	}
	// and returns the pages of within whose field holds every n-gram of w.
	and := func(field Field, w string, within []uint64) ([]uint64, error) {
		out := ar.take(len(within))
		copy(out, within)
		// [lo, hi) holds every block of out that is not empty.
		lo, hi := 0, len(out)
		for _, g := range grams.Lookup(w) {
			for lo < hi && out[lo] == 0 {
				lo++
			}
			for hi > lo && out[hi-1] == 0 {
				hi--
			}
			if lo == hi {
				break
			}
			clear(tmp[lo:hi])
			if err := v.Candidates(ctx, field, g, tmp); err != nil {
				return nil, err
			}
			for i := lo; i < hi; i++ {
				out[i] &= tmp[i]
			}
		}
		return out, nil
	}
	for _, s := range ws {
		var err error
		if s.cand, err = and(FieldAll, s.w, mask); err != nil {
			return nil, err
		}
		if s.title, err = and(FieldTitle, s.w, s.cand); err != nil {
			return nil, err
		}
		if s.head, err = and(FieldHeadings, s.w, s.cand); err != nil {
			return nil, err
		}
		for i := range any {
			any[i] |= s.cand[i]
		}
	}
	sp, err := pagesOf(v)
	if err != nil {
		return nil, err
	}
	// Lazy refinement: every candidate starts with the bound its candidacy
	// gives (3 per word it may hold in its title, 2 in a heading, 1 in the
	// page); the best entry by (bound, rank) is refined to its
	// title-and-heading bound, then to its exact score. An entry popped
	// with its exact score outranks every other entry's bound, so it is
	// the next hit. Bodies are read only for pages that can still enter
	// the top.
	//
	// Candidates enter the heap only when they could be its best entry
	// (levels): the candidacy bounds are summed over whole bit sets, and
	// candidates are taken from the highest bound down, each bound's pages
	// in rank order. The next candidate not yet in the heap outranks every
	// other one not in it, so the heap's best entry is refined only when
	// it outranks that candidate too: the same entries are refined, in the
	// same order, as with every candidate in the heap, and the work is the
	// bit sets' words plus the pages refined, not the candidates.
	lv := newLevels(ar, ws, any, rankSpans(trees))
	h := make(refineHeap, 0, 64)
	k := r.cfg.Limits.SearchMatchLimit
	var top []hit
	next, ok := lv.next()
	for len(top) < k {
		if ok && (len(h) == 0 || !h.beats(0, next)) {
			h = append(h, next) // heap.Push, without boxing the entry
			heap.Fix(&h, len(h)-1)
			next, ok = lv.next()
			continue
		}
		if len(h) == 0 {
			break
		}
		e := &h[0]
		switch e.stage {
		case 0:
			th, bodyBound := 0, 0
			bit := uint64(1) << (e.ord & 63)
			for _, s := range ws {
				if s.cand[e.ord>>6]&bit == 0 {
					continue
				}
				if s.title[e.ord>>6]&bit != 0 && strings.Contains(sp.title[e.ord], s.w) {
					th += 3 * s.times
				}
				if s.head[e.ord>>6]&bit != 0 && strings.Contains(sp.headings[e.ord], s.w) {
					th += 2 * s.times
				}
				bodyBound += s.times
			}
			e.th, e.bound, e.stage = th, th+bodyBound, 1
			heap.Fix(&h, 0)
		case 1:
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			score := e.th
			body, fold := sp.tree[e.ord].SearchBody(sp.route[e.ord])
			for _, s := range ws {
				if s.cand[e.ord>>6]&(1<<(e.ord&63)) != 0 && wordIndex(body, s.w, fold) >= 0 {
					score += s.times
				}
			}
			if score == 0 {
				heap.Pop(&h)
				continue
			}
			e.bound, e.stage = score, 2
			heap.Fix(&h, 0)
		default:
			top = append(top, hit{ord: e.ord, score: e.bound})
			heap.Pop(&h)
		}
	}
	return top, nil
}

// wordSet is one distinct word of a query, with its multiplicity and its
// candidate sets: pages whose n-grams hold all of the word's, in the whole
// page, in the title and in the headings. Each is a superset of the pages
// holding the word there, and title and head are subsets of cand.
type wordSet struct {
	w                 string
	times             int
	cand, title, head []uint64
}

// rankSpan is one searched tree's ordinals, [first, end), and the rank
// of its first page.
type rankSpan struct{ first, end, base int }

// rankSpans returns the ordinal spans of trees in the order ties are
// broken in: trees in the order given (the configured order), then
// manifest order. Where the version stores trees in that order, which it
// does for the contract's trees, the rank is the ordinal.
func rankSpans(trees []Tree) []rankSpan {
	spans := make([]rankSpan, len(trees))
	base := 0
	for i, t := range trees {
		n := len(t.Pages())
		spans[i] = rankSpan{t.First(), t.First() + n, base}
		base += n
	}
	return spans
}

// levels hands out a query's candidates by their candidacy bound (3 per
// word times its multiplicity where the title may hold it, 2 where a
// heading may, 1 where the page may), highest first, and within one bound
// in rank order. The bounds are kept bit-sliced, plane j holding bit j of
// every page's bound, so summing them and finding the next bound cost a
// few operations per 64 pages, not per candidate.
type levels struct {
	planes [][]uint64
	active []uint64 // candidates not yet in a level
	cur    []uint64 // the current level's pages not yet handed out
	bound  int      // the current level's bound
	spans  []rankSpan
	si, o  int // where the current level resumes: span index, ordinal
}

// newLevels sums the candidacy bounds of the pages of any, the union of
// the words' candidate sets.
func newLevels(ar *arena, ws []*wordSet, any []uint64, spans []rankSpan) *levels {
	size, most := len(any), 0
	for _, s := range ws {
		most += 6 * s.times
	}
	np := bits.Len(uint(most))
	buf := ar.take((np + 2) * size)
	l := &levels{planes: make([][]uint64, np), active: buf[:size:size], cur: buf[size : 2*size : 2*size], spans: spans, si: len(spans)}
	for j := range l.planes {
		l.planes[j] = buf[(j+2)*size : (j+3)*size : (j+3)*size]
	}
	copy(l.active, any)
	// add adds c to the bound of each page of m, in one block's planes
	// acc: binary addition, carried across the planes. The sum never
	// exceeds most, so the carry stops within the planes.
	acc := make([]uint64, np)
	add := func(c int, m uint64) {
		if m == 0 {
			return
		}
		for j := 0; c>>j != 0; j++ {
			if c>>j&1 == 0 {
				continue
			}
			for p, carry := j, m; carry != 0; p++ {
				acc[p], carry = acc[p]^carry, acc[p]&carry
			}
		}
	}
	for i, a := range any {
		if a == 0 {
			continue
		}
		clear(acc)
		for _, s := range ws {
			add(s.times, s.cand[i])
			add(3*s.times, s.title[i])
			add(2*s.times, s.head[i])
		}
		for p, w := range acc {
			l.planes[p][i] = w
		}
	}
	return l
}

// next returns the next candidate at its candidacy bound, or false where
// none is left: the first in rank order of the current level, or of the
// highest level below it.
func (l *levels) next() (refine, bool) {
	for {
		for l.si < len(l.spans) {
			sp := l.spans[l.si]
			if q := nextBit(l.cur, l.o, sp.end); q >= 0 {
				l.o = q + 1
				return refine{ord: q, rank: sp.base + q - sp.first, bound: l.bound}, true
			}
			l.si++
			if l.si < len(l.spans) {
				l.o = l.spans[l.si].first
			}
		}
		if l.bound = l.highest(); l.bound == 0 {
			return refine{}, false
		}
		for i, w := range l.cur {
			l.active[i] &^= w
		}
		l.si, l.o = 0, l.spans[0].first
	}
}

// highest sets cur to the active pages of the highest bound, and returns
// that bound, or 0 where no page is active: from the top plane down, it
// keeps the pages whose bit is set wherever one is.
func (l *levels) highest() int {
	copy(l.cur, l.active)
	if isEmpty(l.cur) {
		return 0
	}
	bound := 0
	for j := len(l.planes) - 1; j >= 0; j-- {
		pl := l.planes[j]
		set := false
		for i, w := range l.cur {
			if w&pl[i] != 0 {
				set = true
				break
			}
		}
		if !set {
			continue
		}
		for i := range l.cur {
			l.cur[i] &= pl[i]
		}
		bound |= 1 << j
	}
	return bound
}

// nextBit returns the first set bit of set at or after from and before
// end, or -1.
func nextBit(set []uint64, from, end int) int {
	if from >= end {
		return -1
	}
	i := from >> 6
	w := set[i] &^ (1<<(from&63) - 1)
	for {
		if w != 0 {
			if q := i*64 + bits.TrailingZeros64(w); q < end {
				return q
			}
			return -1
		}
		i++
		if i*64 >= end {
			return -1
		}
		w = set[i]
	}
}

// refine is one candidate page under lazy refinement: stage 0 holds the
// candidacy bound, stage 1 the title-and-heading bound, stage 2 the
// exact score. rank places it among equal scores (rankSpans).
type refine struct {
	ord, rank, bound, th, stage int
}

// refineHeap orders candidates by bound, highest first, then rank.
type refineHeap []refine

// beats reports whether entry i comes before x: a higher bound, or the
// same bound and a lower rank.
func (h refineHeap) beats(i int, x refine) bool {
	if h[i].bound != x.bound {
		return h[i].bound > x.bound
	}
	return h[i].rank < x.rank
}

func (h refineHeap) Len() int           { return len(h) }
func (h refineHeap) Less(i, j int) bool { return h.beats(i, h[j]) }
func (h refineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refineHeap) Push(x any)        { *h = append(*h, x.(refine)) }
func (h *refineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// arena hands out the zeroed bit sets of one search from memory reused
// across searches: fresh memory for the sets of a large site costs page
// faults on every search. It holds no caller's data between searches:
// putArena clears what a search used before the arena is reused, and
// nothing is looked up in it.
type arena struct {
	buf  []uint64
	used int
}

var arenas = sync.Pool{New: func() any { return new(arena) }}

func getArena() *arena { return arenas.Get().(*arena) }

// putArena clears what the search used and returns the arena to the pool.
// An arena grown past maxArena words is left to the collector.
func putArena(a *arena) {
	const maxArena = 1 << 20 // 8 MiB
	clear(a.buf[:a.used])
	a.used = 0
	if len(a.buf) <= maxArena {
		arenas.Put(a)
	}
}

// take returns n zeroed words.
func (a *arena) take(n int) []uint64 {
	if a.used+n > len(a.buf) {
		// A new block; the old one goes to the collector once the sets
		// taken from it are done with.
		a.buf, a.used = make([]uint64, max(2*len(a.buf), n, 4096)), 0
	}
	out := a.buf[a.used : a.used+n : a.used+n]
	a.used += n
	return out
}

// setRange sets the bits [lo, hi) of set.
func setRange(set []uint64, lo, hi int) {
	for lo < hi && lo&63 != 0 {
		set[lo>>6] |= 1 << (lo & 63)
		lo++
	}
	for ; lo+64 <= hi; lo += 64 {
		set[lo>>6] = ^uint64(0)
	}
	for ; lo < hi; lo++ {
		set[lo>>6] |= 1 << (lo & 63)
	}
}

func isEmpty(s []uint64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// Warm derives what the reader reads of v on every search (its pages'
// lower-cased titles and headings) before v is served, so that the first
// search after an activation or a start pays nothing for it, and reads
// the section table of search_documentation's stored index (sectionsOf),
// a few bytes a section. A version without a stored index, or with a
// damaged one, is still served: search_documentation answers its error,
// every other read as before. StoreWarm makes it a store.WarmFunc.
func (r *Reader) Warm(_ context.Context, v Version) error {
	if _, err := pagesOf(v); err != nil {
		return err
	}
	_, _ = sectionsOf(v)
	return nil
}
