package sections

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// Builder derives a version's section index from its pages, given one at
// a time in the version's tree order and each tree's manifest order. It
// holds the section table and, per term, its postings encoded as they
// will be stored, never a page's text.
type Builder struct {
	recs  []Record
	trees []builtTree
	pages []int32
	seen  map[[sha256.Size]byte]int32 // a section text's hash -> the last section of it
	terms map[string]*termPostings
	// acc and pool hold the terms of the section being indexed.
	acc  map[string]*termAcc
	pool []*termAcc
	an   Analyzer
}

type builtTree struct {
	name  string
	stats TreeStats
}

// termPostings is one term's postings, encoded (Decode's layout).
type termPostings struct {
	n       uint64
	last    uint32
	entries []byte
	blob    []byte
}

// termAcc is one term of one section while it is indexed.
type termAcc struct {
	title, text int
	pos         []uint32
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{seen: map[[sha256.Size]byte]int32{}, terms: map[string]*termPostings{}, acc: map[string]*termAcc{}}
}

// Pages returns how many pages were given.
func (b *Builder) Pages() int { return len(b.pages) }

func (b *Builder) get(term string) *termAcc {
	a := b.acc[term]
	if a == nil {
		if n := len(b.pool); n > 0 {
			a, b.pool = b.pool[n-1], b.pool[:n-1]
		} else {
			a = new(termAcc)
		}
		b.acc[term] = a
	}
	return a
}

// Page indexes the next page of the version: of tree, its title, its
// served text, the text's places (where a read may start) and its
// headings. It checks ctx before each section.
func (b *Builder) Page(ctx context.Context, tree, title, text string, places textmap.Layout, hs []tzctx.Heading) error {
	if n := len(b.trees); n == 0 || b.trees[n-1].name != tree {
		if slices.ContainsFunc(b.trees, func(t builtTree) bool { return t.name == tree }) {
			return fmt.Errorf("section index: the pages of tree %s are given apart", tree)
		}
		b.trees = append(b.trees, builtTree{name: tree, stats: TreeStats{First: len(b.recs), End: len(b.recs)}})
	}
	if len(b.recs) >= math.MaxInt32-1<<16 {
		return errors.New("section index: over 2^31 sections")
	}
	st := &b.trees[len(b.trees)-1].stats
	total := places.Total()
	at := CodePointBytes(text, total)
	page := int32(len(b.pages))
	b.pages = append(b.pages, 0)
	for _, s := range Split(text, total, hs, places) {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := int32(len(b.recs))
		r := Record{Ord: page, Tree: int32(len(b.trees) - 1), Head: int32(s.Head), Start: int32(s.Start), End: int32(s.End), Dup: id, Page: page, Next: -1}
		body := text[at[s.Start]:at[s.End]]
		r.TitleLen = int32(b.an.Analyze(Title(title, hs, s.Head), 0, func(term string, _ int) { b.get(term).title++ }))
		r.TextLen = int32(b.an.Analyze(body, 0, func(term string, pos int) {
			a := b.get(term)
			a.text++
			a.pos = append(a.pos, uint32(pos))
		}))
		sum := sha256.Sum256([]byte(body))
		if last, ok := b.seen[sum]; ok {
			r.Dup = b.recs[last].Dup
			b.recs[last].Next = id
		}
		b.seen[sum] = id
		for term, a := range b.acc {
			if len(term) <= MaxTerm {
				b.post(term, uint32(id), a)
			}
			a.title, a.text, a.pos = 0, 0, a.pos[:0]
			b.pool = append(b.pool, a)
		}
		clear(b.acc)
		st.SumTitle += int64(r.TitleLen)
		st.SumText += int64(r.TextLen)
		b.pages[page] += r.TextLen
		b.recs = append(b.recs, r)
		st.End = len(b.recs)
	}
	st.Pages++
	st.SumPage += int64(b.pages[page])
	return nil
}

// post appends section sec's posting of term.
func (b *Builder) post(term string, sec uint32, a *termAcc) {
	p := b.terms[term]
	if p == nil {
		p = &termPostings{}
		b.terms[term] = p
	}
	delta := sec
	if p.n > 0 {
		delta = sec - p.last
	}
	title, text := min(a.title, math.MaxUint16), min(a.text, math.MaxUint16)
	start := len(p.blob)
	prev := uint32(0)
	for _, x := range a.pos[:text] {
		p.blob = binary.AppendUvarint(p.blob, uint64(x-prev))
		prev = x
	}
	p.entries = binary.AppendUvarint(p.entries, uint64(delta))
	p.entries = binary.AppendUvarint(p.entries, uint64(title))
	p.entries = binary.AppendUvarint(p.entries, uint64(text))
	p.entries = binary.AppendUvarint(p.entries, uint64(len(p.blob)-start))
	p.n++
	p.last = sec
}

// Write puts the index through put (its table) and putTerm (its terms'
// table, in term order), given the version's trees in their order, each
// holding the pages given of it. It drops each term's postings once put,
// and checks ctx before each term.
func (b *Builder) Write(ctx context.Context, trees []string, put, putTerm func(key, value []byte) error) error {
	var stats []TreeStats
	at := make([]int32, len(b.trees)) // a given tree's index among the version's
	k, end := 0, 0
	for i, name := range trees {
		if k < len(b.trees) && b.trees[k].name == name {
			stats = append(stats, b.trees[k].stats)
			at[k] = int32(i)
			end = b.trees[k].stats.End
			k++
			continue
		}
		if slices.ContainsFunc(b.trees, func(t builtTree) bool { return t.name == name }) {
			return fmt.Errorf("section index: tree %s was given out of the version's tree order", name)
		}
		stats = append(stats, TreeStats{First: end, End: end})
	}
	if k != len(b.trees) {
		return fmt.Errorf("section index: tree %s is not among the version's trees", b.trees[k].name)
	}
	head := binary.AppendUvarint(nil, Format)
	for _, n := range []int{len(b.recs), len(b.pages), len(stats)} {
		head = binary.AppendUvarint(head, uint64(n))
	}
	secs := make([]byte, 0, len(b.recs)*RecordSize)
	for _, r := range b.recs {
		r.Tree = at[r.Tree]
		secs = r.append(secs)
	}
	var ts []byte
	for _, t := range stats {
		ts = t.append(ts)
	}
	pages := make([]byte, 0, 4*len(b.pages))
	for _, n := range b.pages {
		pages = binary.LittleEndian.AppendUint32(pages, uint32(n))
	}
	for _, kv := range []struct{ k, v []byte }{{HeadKey, head}, {SecsKey, secs}, {TreesKey, ts}, {PagesKey, pages}} {
		if err := put(kv.k, kv.v); err != nil {
			return err
		}
	}
	b.recs, b.pages, b.seen = nil, nil, nil
	terms := make([]string, 0, len(b.terms))
	for t := range b.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	for _, t := range terms {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := b.terms[t]
		// A fresh value each: bbolt holds it until its transaction ends.
		v := make([]byte, 0, 2*binary.MaxVarintLen64+len(p.entries)+len(p.blob))
		v = binary.AppendUvarint(v, p.n)
		v = binary.AppendUvarint(v, uint64(len(p.entries)))
		v = append(append(v, p.entries...), p.blob...)
		if err := putTerm([]byte(t), v); err != nil {
			return err
		}
		delete(b.terms, t)
	}
	return nil
}
