package query

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/grams"
	"github.com/turnzerocloud/tzctx/store"
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

// rulePreface is the line a rule-code query's answer starts with.
func rulePreface(code string) string {
	return code + " is a rule code: the identifier of one numbered requirement in a Turn Zero Cloud contract. Pages holding it:\n"
}

// searchPages holds what scoring reads of a version's pages besides their
// bodies: lower-cased titles and headings, by page ordinal.
type searchPages struct {
	tree     []*store.Tree // by ordinal
	index    []int         // manifest position by ordinal
	title    []string
	headings []string // lower-cased heading texts joined by "\n"
}

// searchCache keeps the search data of the versions served lately; a
// version never changes, so its data never goes stale. It is keyed by
// version name alone, never by words.
type searchCache struct {
	mu   sync.Mutex
	data map[string]*searchPages
	keep []string
}

func (c *searchCache) get(v *store.Version) (*searchPages, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.data[v.Name()]; ok {
		return d, nil
	}
	n := v.PageCount()
	d := &searchPages{tree: make([]*store.Tree, n), index: make([]int, n), title: make([]string, n), headings: make([]string, n)}
	for _, name := range tzctx.Trees {
		t := v.Tree(name)
		if t == nil {
			continue
		}
		for i, p := range t.Pages {
			o := t.First + i
			d.tree[o], d.index[o] = t, i
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
	if c.data == nil {
		c.data = map[string]*searchPages{}
	}
	c.data[v.Name()] = d
	c.keep = append(c.keep, v.Name())
	if len(c.keep) > 2 {
		delete(c.data, c.keep[0])
		c.keep = c.keep[1:]
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
	subject := "docs:" + tree + ":search"
	code := RuleCode(raw)
	if code != "" {
		words = []string{strings.ToLower(code)}
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	var trees []*store.Tree
	if tree != "" {
		t := v.Tree(tree)
		if t == nil {
			return nil, subject, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version has no %s tree", tree)
		}
		trees = []*store.Tree{t}
	} else {
		for _, name := range readable {
			if t := v.Tree(name); t != nil {
				trees = append(trees, t)
			}
		}
		if len(trees) == 0 {
			return nil, subject, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version holds none of the trees this connection may read (%s)", readableList(readable))
		}
	}
	text, err := r.searchText(ctx, v, trees, words, code)
	if err != nil {
		return nil, subject, err
	}
	id := "docs:" + tree + ":search:" + SearchID(words)
	a, err := r.answer(read{t: newMemText(text), id: id, action: "read_documentation", selector: "the same tree and query"}, p)
	return a, subject, err
}

// searchText composes the answer text of a search over trees: the
// rule-code preface where code is set and a page matches, then one line
// per page, best first.
func (r *Reader) searchText(ctx context.Context, v *store.Version, trees []*store.Tree, words []string, code string) (string, error) {
	hits, err := r.score(ctx, v, trees, words)
	if err != nil {
		return "", err
	}
	sp, err := r.cache.get(v)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if code != "" && len(hits) > 0 {
		b.WriteString(rulePreface(code))
	}
	for _, h := range hits {
		t := sp.tree[h.ord]
		pg := t.Pages[sp.index[h.ord]]
		b.WriteString("- [" + pg.Title + "](" + pg.Route + "):")
		if line := firstLine(t, pg.Route, words); line != "" {
			b.WriteString(" " + line)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// firstLine returns the page's first line holding any word, trimmed.
func firstLine(t *store.Tree, route string, words []string) string {
	lower := t.Lower(route)
	first := -1
	for _, w := range words {
		if i := bytes.Index(lower, []byte(w)); i >= 0 && (first < 0 || i < first) {
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
// descending, then tree and manifest order (the page ordinal). Exact
// scores are computed only for pages that can still enter the top.
func (r *Reader) score(ctx context.Context, v *store.Version, trees []*store.Tree, words []string) ([]hit, error) {
	n := v.PageCount()
	size := (n + 63) / 64
	// The distinct words, each with its multiplicity and candidate set.
	type wordSet struct {
		w     string
		times int
		cand  []uint64
	}
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
	// The trees searched, as an ordinal mask.
	mask := make([]uint64, size)
	for _, t := range trees {
		for o := t.First; o < t.First+len(t.Pages); o++ {
			mask[o>>6] |= 1 << (o & 63)
		}
	}
	any := make([]uint64, size)
	tmp := make([]uint64, size)
	for _, s := range ws {
		s.cand = nil
		for _, g := range grams.Lookup(s.w) {
			clear(tmp)
			if err := v.Postings(ctx, g, tmp); err != nil {
				return nil, err
			}
			if s.cand == nil {
				s.cand = append([]uint64(nil), tmp...)
				for i := range s.cand {
					s.cand[i] &= mask[i]
				}
			} else {
				for i := range s.cand {
					s.cand[i] &= tmp[i]
				}
			}
			if isEmpty(s.cand) {
				break
			}
		}
		for i := range any {
			any[i] |= s.cand[i]
		}
	}
	sp, err := r.cache.get(v)
	if err != nil {
		return nil, err
	}
	// Title and heading terms are exact and cheap; the body term is
	// bounded by candidacy until the body is read.
	type cand struct {
		ord, th, bound int
	}
	var cs []cand
	for i, word := range any {
		for word != 0 {
			o := i*64 + bits.TrailingZeros64(word)
			word &= word - 1
			c := cand{ord: o}
			for _, s := range ws {
				if s.cand[o>>6]&(1<<(o&63)) == 0 {
					continue
				}
				if strings.Contains(sp.title[o], s.w) {
					c.th += 3 * s.times
				}
				if strings.Contains(sp.headings[o], s.w) {
					c.th += 2 * s.times
				}
				c.bound += s.times
			}
			c.bound += c.th
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].bound != cs[j].bound {
			return cs[i].bound > cs[j].bound
		}
		return cs[i].ord < cs[j].ord
	})
	k := r.cfg.Limits.SearchMatchLimit
	var top []hit // sorted best first
	for _, c := range cs {
		if len(top) == k {
			last := top[k-1]
			if c.bound < last.score || (c.bound == last.score && c.ord > last.ord) {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		score := c.th
		t := sp.tree[c.ord]
		body := t.Lower(t.Pages[sp.index[c.ord]].Route)
		for _, s := range ws {
			if s.cand[c.ord>>6]&(1<<(c.ord&63)) != 0 && bytes.Contains(body, []byte(s.w)) {
				score += s.times
			}
		}
		if score == 0 {
			continue
		}
		h := hit{ord: c.ord, score: score}
		i := sort.Search(len(top), func(i int) bool {
			return top[i].score < h.score || (top[i].score == h.score && top[i].ord > h.ord)
		})
		if i >= k {
			continue
		}
		top = append(top, hit{})
		copy(top[i+1:], top[i:])
		top[i] = h
		if len(top) > k {
			top = top[:k]
		}
	}
	return top, nil
}

func isEmpty(s []uint64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}
