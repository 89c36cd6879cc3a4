package sections

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
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
	// held is about how many bytes the postings in terms take; past
	// most (where spill names a folder), Page writes them to a run file
	// there, which Write merges.
	held  int64
	most  int64
	spill string
	runs  []*os.File
	// base is the base version's index whose pages Reuse takes in, nil
	// for none (UseBase).
	base *baseIndex
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

// SpillTo makes the builder hold at most about most bytes of postings
// (checked after each page): past it, they go to a run file in dir, which
// Write merges and removes. Close removes the runs of a build that does
// not reach Write.
func (b *Builder) SpillTo(dir string, most int64) {
	b.spill, b.most = dir, most
}

// Runs returns how many run files the postings went to.
func (b *Builder) Runs() int { return len(b.runs) }

// Close removes the run files.
func (b *Builder) Close() {
	for _, f := range b.runs {
		f.Close()
		os.Remove(f.Name())
	}
	b.runs = nil
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
	st, err := b.treeOf(tree)
	if err != nil {
		return err
	}
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
		r.TextLen = int32(b.an.Analyze(body, 0, FirstOnly(s.Code, func(term string, pos int) {
			a := b.get(term)
			a.text++
			a.pos = append(a.pos, uint32(pos))
		})))
		for term, a := range b.acc {
			if len(term) <= MaxTerm {
				b.post(term, uint32(id), a)
			}
			a.title, a.text, a.pos = 0, 0, a.pos[:0]
			b.pool = append(b.pool, a)
		}
		clear(b.acc)
		b.record(st, r, body)
	}
	st.Pages++
	st.SumPage += int64(b.pages[page])
	if b.spill != "" && b.held > b.most {
		return b.writeRun(ctx)
	}
	return nil
}

// treeOf returns the sums of tree, whose pages are given next, starting
// it where the page before was of another tree.
func (b *Builder) treeOf(tree string) (*TreeStats, error) {
	if n := len(b.trees); n == 0 || b.trees[n-1].name != tree {
		if slices.ContainsFunc(b.trees, func(t builtTree) bool { return t.name == tree }) {
			return nil, fmt.Errorf("section index: the pages of tree %s are given apart", tree)
		}
		b.trees = append(b.trees, builtTree{name: tree, stats: TreeStats{First: len(b.recs), End: len(b.recs)}})
	}
	if len(b.recs) >= math.MaxInt32-1<<16 {
		return nil, errors.New("section index: over 2^31 sections")
	}
	return &b.trees[len(b.trees)-1].stats, nil
}

// record adds section r of the page being given, body its text, linking
// it to the sections of the same text before it.
func (b *Builder) record(st *TreeStats, r Record, body string) {
	id := int32(len(b.recs))
	r.Dup, r.Next = id, -1
	sum := sha256.Sum256([]byte(body))
	if last, ok := b.seen[sum]; ok {
		r.Dup = b.recs[last].Dup
		b.recs[last].Next = id
	}
	b.seen[sum] = id
	st.SumTitle += int64(r.TitleLen)
	st.SumText += int64(r.TextLen)
	b.pages[r.Page] += r.TextLen
	b.recs = append(b.recs, r)
	st.End = len(b.recs)
}

// termOverhead is about what a term's map entry and postings take beside
// their bytes.
const termOverhead = 96

// writeRun writes the postings held to a new run file, in term order,
// and drops them: each term's length and bytes, its count of postings,
// its last section, and the lengths and bytes of its entries and of its
// positions, uvarints.
func (b *Builder) writeRun(ctx context.Context) (err error) {
	f, err := os.CreateTemp(b.spill, "sections-run-*")
	if err != nil {
		return fmt.Errorf("section index: %w", err)
	}
	b.runs = append(b.runs, f)
	w := bufio.NewWriter(f)
	var num []byte
	for _, t := range b.sortedTerms() {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := b.terms[t]
		num = binary.AppendUvarint(num[:0], uint64(len(t)))
		w.Write(num)
		w.WriteString(t)
		num = binary.AppendUvarint(num[:0], p.n)
		num = binary.AppendUvarint(num, uint64(p.last))
		num = binary.AppendUvarint(num, uint64(len(p.entries)))
		w.Write(num)
		w.Write(p.entries)
		num = binary.AppendUvarint(num[:0], uint64(len(p.blob)))
		w.Write(num)
		if _, err := w.Write(p.blob); err != nil {
			return fmt.Errorf("section index: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("section index: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("section index: %w", err)
	}
	b.terms, b.held = map[string]*termPostings{}, 0
	return nil
}

func (b *Builder) sortedTerms() []string {
	terms := make([]string, 0, len(b.terms))
	for t := range b.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	return terms
}

// runReader reads one run file's terms in order.
type runReader struct {
	r    *bufio.Reader
	term string
	p    termPostings
	done bool
}

func (rr *runReader) next() error {
	n, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		rr.done = true
		return nil
	}
	if err != nil {
		return err
	}
	bytesOf := func(n uint64) ([]byte, error) {
		if n > 1<<31 {
			return nil, errors.New("a run file's length is out of range")
		}
		out := make([]byte, n)
		_, err := io.ReadFull(rr.r, out)
		return out, err
	}
	term, err := bytesOf(n)
	if err != nil {
		return err
	}
	rr.term = string(term)
	var v [3]uint64
	for i := range v {
		if v[i], err = binary.ReadUvarint(rr.r); err != nil {
			return err
		}
	}
	rr.p = termPostings{n: v[0], last: uint32(v[1])}
	if rr.p.entries, err = bytesOf(v[2]); err != nil {
		return err
	}
	if n, err = binary.ReadUvarint(rr.r); err != nil {
		return err
	}
	rr.p.blob, err = bytesOf(n)
	return err
}

// join appends q, the postings of later sections, to p: q's first
// section, stored whole in its run, becomes its distance from p's last.
func join(p *termPostings, q termPostings) {
	if p.n == 0 {
		*p = q
		return
	}
	first, m := binary.Uvarint(q.entries)
	p.entries = binary.AppendUvarint(p.entries, first-uint64(p.last))
	p.entries = append(p.entries, q.entries[m:]...)
	p.blob = append(p.blob, q.blob...)
	p.n += q.n
	p.last = q.last
}

// post appends section sec's posting of term.
func (b *Builder) post(term string, sec uint32, a *termAcc) {
	p := b.terms[term]
	if p == nil {
		p = &termPostings{}
		b.terms[term] = p
		b.held += int64(len(term)) + termOverhead
	}
	before := cap(p.entries) + cap(p.blob)
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
	b.held += int64(cap(p.entries) + cap(p.blob) - before)
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
	if len(b.runs) > 0 || b.base != nil {
		return b.merge(ctx, putTerm)
	}
	for _, t := range b.sortedTerms() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := putTerm([]byte(t), b.terms[t].value()); err != nil {
			return err
		}
		delete(b.terms, t)
	}
	return nil
}

// value is the stored value of a term's postings (Decode's layout), a
// fresh one each: bbolt holds it until its transaction ends.
func (p *termPostings) value() []byte {
	v := make([]byte, 0, 2*binary.MaxVarintLen64+len(p.entries)+len(p.blob))
	v = binary.AppendUvarint(v, p.n)
	v = binary.AppendUvarint(v, uint64(len(p.entries)))
	return append(append(v, p.entries...), p.blob...)
}

// merge writes the postings held as a last run, then puts every term of
// the runs in term order, each term's postings joined in run order,
// which is section order, and merged with the base's postings of the
// pages reused (UseBase), renumbered; it removes the runs.
func (b *Builder) merge(ctx context.Context, putTerm func(key, value []byte) error) error {
	defer b.Close()
	if len(b.terms) > 0 {
		if err := b.writeRun(ctx); err != nil {
			return err
		}
	}
	rs := make([]*runReader, len(b.runs))
	for i, f := range b.runs {
		rs[i] = &runReader{r: bufio.NewReader(f)}
		if err := rs[i].next(); err != nil {
			return fmt.Errorf("section index: run %s: %w", f.Name(), err)
		}
	}
	// The base's terms, where pages are reused, are read beside the runs.
	var baseTerm, baseValue []byte
	baseNext := func() ([]byte, []byte, bool) { return nil, nil, false }
	if b.base != nil {
		next, stop := iter.Pull2(b.base.terms)
		defer stop()
		baseNext = next
	}
	baseTerm, baseValue, baseOK := baseNext()
	var buf []posting
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		term, any := "", false
		for _, r := range rs {
			if !r.done && (!any || r.term < term) {
				term, any = r.term, true
			}
		}
		if baseOK && (!any || string(baseTerm) < term) {
			term, any = string(baseTerm), true
		}
		if !any {
			return nil
		}
		var p termPostings
		for i, r := range rs {
			if r.done || r.term != term {
				continue
			}
			join(&p, r.p)
			if err := r.next(); err != nil {
				return fmt.Errorf("section index: run %s: %w", b.runs[i].Name(), err)
			}
		}
		if baseOK && string(baseTerm) == term {
			var err error
			if p, buf, err = b.base.withBase(p, baseValue, buf); err != nil {
				return err
			}
			baseTerm, baseValue, baseOK = baseNext()
			if p.n == 0 {
				continue
			}
		}
		if err := putTerm([]byte(term), p.value()); err != nil {
			return err
		}
	}
}
