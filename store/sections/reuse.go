package sections

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
)

// baseIndex is a base version's section index, whose pages' sections a
// Builder takes in as they are stored (Builder.Reuse) instead of deriving
// them again: their records are copied, renumbered, and their postings are
// the base's, renumbered, merged into the terms' postings at Write.
type baseIndex struct {
	recs  []Record
	first []int32 // per base page ordinal, its first section; one more at the end
	remap []int32 // base section -> the version's, -1 where not taken
	terms iter.Seq2[[]byte, []byte]
	// lastTaken is the last base section taken, and unsorted is set where
	// one was taken after a later one, so a term's renumbered postings
	// must be sorted.
	lastTaken int32
	unsorted  bool
}

// UseBase makes the base's section index ix, whose terms' table terms
// yields in term order, the source of the pages Reuse names. It is
// called once, before any page is given.
func (b *Builder) UseBase(ix *Index, terms iter.Seq2[[]byte, []byte]) error {
	if b.base != nil || len(b.pages) > 0 {
		return errors.New("section index: a base is given after pages or twice")
	}
	recs, err := ix.Records()
	if err != nil {
		return err
	}
	pages := ix.nPages
	first := make([]int32, pages+1)
	next := 0
	for i, r := range recs {
		if int(r.Ord) >= pages || int(r.Ord) < next-1 {
			return ix.damaged(fmt.Sprintf("its section index's section %d is of page %d, out of order", i, r.Ord))
		}
		for next <= int(r.Ord) {
			first[next] = int32(i)
			next++
		}
	}
	for ; next <= pages; next++ {
		first[next] = int32(len(recs))
	}
	remap := make([]int32, len(recs))
	for i := range remap {
		remap[i] = -1
	}
	b.base = &baseIndex{recs: recs, first: first, remap: remap, terms: terms, lastTaken: -1}
	return nil
}

// Reuse gives the next page of the version, of tree, as the base's page
// of ordinal ord holds it: the caller vouches that its title, served
// text (text), places and headings are the base's, derived by the same
// rules, so that Page would derive the same sections. Its records are
// copied and its postings taken from the base's at Write; only the
// sections' texts are hashed, to link duplicate sections.
func (b *Builder) Reuse(ctx context.Context, tree string, ord int, text string) error {
	bi := b.base
	if bi == nil {
		return errors.New("section index: a page is reused without a base")
	}
	if ord < 0 || ord+1 >= len(bi.first) {
		return fmt.Errorf("section index: the base has no page %d", ord)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := b.treeOf(tree)
	if err != nil {
		return err
	}
	page := int32(len(b.pages))
	b.pages = append(b.pages, 0)
	from, to := bi.first[ord], bi.first[ord+1]
	var at []int
	if to > from {
		at = CodePointBytes(text, len(text))
	}
	for i := from; i < to; i++ {
		r := bi.recs[i]
		if int(r.End) >= len(at) || r.Start > r.End {
			return fmt.Errorf("section index: the base's section %d does not lie in the page given for it", i)
		}
		bi.remap[i] = int32(len(b.recs))
		if i < bi.lastTaken {
			bi.unsorted = true
		}
		bi.lastTaken = i
		r.Ord, r.Page, r.Tree = page, page, int32(len(b.trees)-1)
		b.record(st, r, text[at[r.Start]:at[r.End]])
	}
	st.Pages++
	st.SumPage += int64(b.pages[page])
	return nil
}

// posting is one decoded posting: its section, its two frequencies and
// its positions' bytes.
type posting struct {
	sec         uint32
	title, text uint64
	pos         []byte
}

// decodePostings appends the postings of a stored value (termPostings'
// layout) to out.
func decodePostings(v []byte, out []posting) ([]posting, error) {
	bad := errors.New("section index: a base term's postings are unreadable")
	count, n := binary.Uvarint(v)
	if n <= 0 {
		return nil, bad
	}
	v = v[n:]
	size, n := binary.Uvarint(v)
	if n <= 0 || size > uint64(len(v)-n) {
		return nil, bad
	}
	entries, blob := v[n:n+int(size)], v[n+int(size):]
	var sec uint64
	for range count {
		var e [4]uint64
		for k := range e {
			x, m := binary.Uvarint(entries)
			if m <= 0 {
				return nil, bad
			}
			e[k], entries = x, entries[m:]
		}
		sec += e[0]
		if e[3] > uint64(len(blob)) || sec > 1<<32-1 {
			return nil, bad
		}
		out = append(out, posting{sec: uint32(sec), title: e[1], text: e[2], pos: blob[:e[3]]})
		blob = blob[e[3]:]
	}
	return out, nil
}

// encodePostings returns the postings ps, in section order, as stored.
func encodePostings(ps []posting) termPostings {
	var p termPostings
	for _, x := range ps {
		delta := x.sec
		if p.n > 0 {
			delta = x.sec - p.last
		}
		p.entries = binary.AppendUvarint(p.entries, uint64(delta))
		p.entries = binary.AppendUvarint(p.entries, x.title)
		p.entries = binary.AppendUvarint(p.entries, x.text)
		p.entries = binary.AppendUvarint(p.entries, uint64(len(x.pos)))
		p.blob = append(p.blob, x.pos...)
		p.n++
		p.last = x.sec
	}
	return p
}

// taken returns the base's postings v renumbered to the version's
// sections, those of sections not taken left out, in section order.
func (bi *baseIndex) taken(v []byte, buf []posting) ([]posting, error) {
	all, err := decodePostings(v, buf[:0])
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, p := range all {
		if int(p.sec) >= len(bi.remap) {
			return nil, errors.New("section index: a base term's postings name a section out of range")
		}
		if to := bi.remap[p.sec]; to >= 0 {
			p.sec = uint32(to)
			out = append(out, p)
		}
	}
	if bi.unsorted {
		slices.SortFunc(out, func(a, b posting) int { return int(a.sec) - int(b.sec) })
	}
	return out, nil
}

// withBase returns p, the postings of term derived of the pages given,
// merged with the base's postings of it (v, nil for none) renumbered.
func (bi *baseIndex) withBase(p termPostings, v []byte, buf []posting) (termPostings, []posting, error) {
	if v == nil {
		return p, buf, nil
	}
	base, err := bi.taken(v, buf)
	if err != nil {
		return p, buf, err
	}
	if len(base) == 0 {
		return p, base, nil
	}
	if p.n == 0 {
		return encodePostings(base), base, nil
	}
	mine, err := decodePostings(p.value(), nil)
	if err != nil {
		return p, base, err
	}
	all := make([]posting, 0, len(base)+len(mine))
	i, j := 0, 0
	for i < len(base) || j < len(mine) {
		if j == len(mine) || (i < len(base) && base[i].sec < mine[j].sec) {
			all = append(all, base[i])
			i++
		} else {
			all = append(all, mine[j])
			j++
		}
	}
	return encodePostings(all), base, nil
}
