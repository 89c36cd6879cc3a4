// Package sections derives and reads the section index of
// search_documentation: every section of every page of a version (Split),
// with its two fields' lengths, and per term the sections holding it, its
// frequency in each field and its text positions (Analyze). Ingest
// derives it as it writes a version (Builder) and the store keeps it in
// the version's bbolt file; a reader reads the fixed tables in place and,
// per search, only the postings of the query's terms (Index). It imports
// no package that reads or serves versions, so both ingest and query may
// import it.
package sections

import (
	"encoding/binary"
	"fmt"
)

// Format is the number of the stored layout below; a reader refuses
// another.
const Format = 1

// The keys of the stored index, in its table (the store's "_sections"
// bucket); its terms are a table of their own (TermsKey), term -> postings.
var (
	HeadKey  = []byte("head")  // Format, then the counts of sections, pages and trees, uvarints
	SecsKey  = []byte("secs")  // RecordSize bytes per section, in section order
	TreesKey = []byte("trees") // treeSize bytes per tree, in the version's tree order
	PagesKey = []byte("pages") // 4 bytes per page: its text's terms
	TermsKey = []byte("terms")
)

// MaxTerm is the longest term stored, in bytes (bbolt's key bound): a
// longer one, which no query within the query bounds holds, matches
// nothing.
const MaxTerm = 32768

// Record is one section. Sections are numbered in the version's tree
// order, then manifest order, then place in the page.
type Record struct {
	Ord      int32 // the page's ordinal across the version
	Tree     int32 // index in the version's tree names
	Head     int32 // index in the page's headings, -1 for the lead
	Start    int32 // code points in the page's served text
	End      int32
	TitleLen int32 // terms of the title field
	TextLen  int32 // terms of the text field
	Dup      int32 // the first section of the same text, itself where none is before it
	Page     int32 // index among the pages with a section
	Next     int32 // the next section of the same text, -1 for none
}

// RecordSize is the bytes of one stored Record: ten little-endian int32.
const RecordSize = 40

func (r Record) append(b []byte) []byte {
	for _, v := range [...]int32{r.Ord, r.Tree, r.Head, r.Start, r.End, r.TitleLen, r.TextLen, r.Dup, r.Page, r.Next} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

func decodeRecord(b []byte) Record {
	f := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[4*i:])) }
	return Record{f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8), f(9)}
}

// TreeStats are the sums BM25F reads of one tree's sections, which are
// the sections [First, End).
type TreeStats struct {
	First, End        int
	SumTitle, SumText int64
	Pages             int   // pages with a section
	SumPage           int64 // terms of those pages' text
}

// treeSize is the bytes of one stored TreeStats: First, End and Pages as
// uint32, the sums as uint64, little-endian.
const treeSize = 4 + 4 + 8 + 8 + 4 + 8

func (t TreeStats) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(t.First))
	b = binary.LittleEndian.AppendUint32(b, uint32(t.End))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.SumTitle))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.SumText))
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Pages))
	return binary.LittleEndian.AppendUint64(b, uint64(t.SumPage))
}

func decodeTree(b []byte) TreeStats {
	return TreeStats{
		First: int(binary.LittleEndian.Uint32(b)), End: int(binary.LittleEndian.Uint32(b[4:])),
		SumTitle: int64(binary.LittleEndian.Uint64(b[8:])), SumText: int64(binary.LittleEndian.Uint64(b[16:])),
		Pages: int(binary.LittleEndian.Uint32(b[24:])), SumPage: int64(binary.LittleEndian.Uint64(b[28:])),
	}
}

// Index is a version's stored section index, read in place: its byte
// slices are the store's, valid while the version is open.
type Index struct {
	secs, trees, pages []byte
	nSecs, nPages      int
	terms              func(term []byte) []byte
	damaged            func(problem string) error
}

// Open reads the index's tables through get (the index's table) and
// terms (its terms' table), checking their sizes and spans. Every fault,
// at Open or later, is the error damaged makes of the problem.
func Open(get, terms func(key []byte) []byte, damaged func(problem string) error) (*Index, error) {
	head := get(HeadKey)
	var counts [4]uint64
	for i := range counts {
		v, n := binary.Uvarint(head)
		if n <= 0 {
			return nil, damaged("its section index's head is unreadable")
		}
		counts[i], head = v, head[n:]
	}
	if counts[0] != Format {
		return nil, damaged(fmt.Sprintf("its section index is of format %d, this build reads format %d", counts[0], Format))
	}
	ix := &Index{secs: get(SecsKey), trees: get(TreesKey), pages: get(PagesKey), terms: terms, damaged: damaged}
	if uint64(len(ix.secs)) != counts[1]*RecordSize || uint64(len(ix.pages)) != counts[2]*4 || uint64(len(ix.trees)) != counts[3]*treeSize || counts[1] >= 1<<31 {
		return nil, damaged("its section index's tables do not match their counts")
	}
	ix.nSecs, ix.nPages = int(counts[1]), int(counts[2])
	end := 0
	for i := range ix.Trees() {
		t := ix.Tree(i)
		if t.First != end || t.End < t.First || t.End > ix.nSecs || t.Pages > ix.nPages {
			return nil, damaged(fmt.Sprintf("its section index's tree %d spans sections [%d, %d) after %d of %d", i, t.First, t.End, end, ix.nSecs))
		}
		end = t.End
	}
	if end != ix.nSecs {
		return nil, damaged("its section index's trees do not span its sections")
	}
	return ix, nil
}

// Len returns the number of sections.
func (ix *Index) Len() int { return ix.nSecs }

// Trees returns the number of trees.
func (ix *Index) Trees() int { return len(ix.trees) / treeSize }

// Tree returns the sums of tree i.
func (ix *Index) Tree(i int) TreeStats { return decodeTree(ix.trees[i*treeSize:]) }

// Records returns every section's record, checked against the tables:
// its tree, page, span and duplicates in range.
func (ix *Index) Records() ([]Record, error) {
	out := make([]Record, ix.nSecs)
	tree := 0
	for i := range out {
		r := decodeRecord(ix.secs[i*RecordSize:])
		for tree < ix.Trees() && ix.Tree(tree).End <= i {
			tree++
		}
		if int(r.Tree) != tree || r.Page < 0 || int(r.Page) >= ix.nPages || r.Start < 0 || r.End < r.Start || r.TitleLen < 0 || r.TextLen < 0 ||
			r.Dup < 0 || r.Dup > int32(i) || (r.Next != -1 && (r.Next <= int32(i) || int(r.Next) >= ix.nSecs)) || r.Ord < 0 {
			return nil, ix.damaged(fmt.Sprintf("its section index's section %d is out of range", i))
		}
		out[i] = r
	}
	return out, nil
}

// PageLens returns each page's text length in terms, by Record.Page.
func (ix *Index) PageLens() []int32 {
	out := make([]int32, ix.nPages)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(ix.pages[4*i:]))
	}
	return out
}

// Postings returns the stored postings of term, nil where no section
// holds it. Decode reads them.
func (ix *Index) Postings(term string) []byte {
	if len(term) == 0 || len(term) > MaxTerm {
		return nil
	}
	return ix.terms([]byte(term))
}

// Posting is one section holding a term: its frequency in each field, at
// most 65535, and where its text positions start in its list's positions.
type Posting struct {
	Sec         uint32
	Title, Text uint16
	Pos         uint32
}

// Postings is one term's decoded postings, in section order.
type Postings struct {
	List    []Posting
	blob    []byte
	damaged func(string) error
}

// A term's postings are stored as: the count of postings and the bytes of
// their entries, uvarints; the entries, each the section's distance from
// the entry before's (from 0 for the first), the title and text
// frequencies and the bytes of its positions, uvarints; then the
// positions, each entry's text frequency of them, each the distance from
// the one before (from 0 for the first), uvarints.

// Decode reads stored postings, checking that their sections are in
// order and in range and that their positions lie within them; buf is
// reused where large enough.
func (ix *Index) Decode(raw []byte, buf []Posting) (Postings, error) {
	bad := func(what string) (Postings, error) {
		return Postings{}, ix.damaged("its section index holds a term's postings that " + what)
	}
	count, n := binary.Uvarint(raw)
	if n <= 0 || count > uint64(ix.nSecs) {
		return bad("have an unreadable count")
	}
	raw = raw[n:]
	size, n := binary.Uvarint(raw)
	if n <= 0 || size > uint64(len(raw)-n) {
		return bad("have an unreadable size")
	}
	entries, blob := raw[n:n+int(size)], raw[n+int(size):]
	list := buf[:0]
	if cap(list) < int(count) {
		list = make([]Posting, 0, count)
	}
	var sec, pos uint64
	for i := uint64(0); i < count; i++ {
		var v [4]uint64
		for k := range v {
			x, m := binary.Uvarint(entries)
			if m <= 0 {
				return bad("end early")
			}
			v[k], entries = x, entries[m:]
		}
		sec += v[0]
		if (i > 0 && v[0] == 0) || sec >= uint64(ix.nSecs) || v[1] > 0xffff || v[2] > 0xffff || v[3] > uint64(len(blob))-pos {
			return bad("are out of range")
		}
		list = append(list, Posting{Sec: uint32(sec), Title: uint16(v[1]), Text: uint16(v[2]), Pos: uint32(pos)})
		pos += v[3]
	}
	if len(entries) != 0 || pos != uint64(len(blob)) {
		return bad("do not fill their value")
	}
	return Postings{List: list, blob: blob, damaged: ix.damaged}, nil
}

// Positions returns the text positions of posting i, in order.
func (p Postings) Positions(i int) ([]uint32, error) {
	e := p.List[i]
	end := uint32(len(p.blob))
	if i+1 < len(p.List) {
		end = p.List[i+1].Pos
	}
	b := p.blob[e.Pos:end]
	out := make([]uint32, 0, e.Text)
	var at uint64
	for range e.Text {
		d, n := binary.Uvarint(b)
		if n <= 0 || at+d > 1<<32-1 {
			return nil, p.damaged("its section index holds positions that are unreadable")
		}
		at += d
		b = b[n:]
		out = append(out, uint32(at))
	}
	return out, nil
}
