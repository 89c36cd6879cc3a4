package store

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
)

// The n-gram fields of the index.
const (
	FieldAll      = "g" // title and copy
	FieldTitle    = "t"
	FieldHeadings = "h"
)

const (
	gramAnalyzer  = "tzctx_grams"
	gramTokenizer = "tzctx_space"
)

// spaceTokenizer splits on the byte ' ' alone and keeps every other byte:
// the n-gram field is a list of n-grams joined by single spaces, and the
// n-grams may hold any character, U+FFFD included, where bleve's stock
// tokenizers stop (the character tokenizer ends a field at U+FFFD).
type spaceTokenizer struct{}

func (spaceTokenizer) Tokenize(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, bytes.Count(input, []byte{' '})+1)
	start := 0
	for start < len(input) {
		end := bytes.IndexByte(input[start:], ' ')
		if end < 0 {
			end = len(input)
		} else {
			end += start
		}
		if end > start {
			out = append(out, &analysis.Token{Term: input[start:end], Start: start, End: end, Position: len(out) + 1, Type: analysis.AlphaNumeric})
		}
		start = end + 1
	}
	return out
}

func init() {
	if err := registry.RegisterTokenizer(gramTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return spaceTokenizer{}, nil
	}); err != nil {
		panic(err)
	}
}

// gramMapping indexes one field of whitespace-separated n-grams, each kept
// as it is: no lower-casing, stemming or stop words, no scoring data.
func gramMapping() mapping.IndexMapping {
	m := mapping.NewIndexMapping()
	if err := m.AddCustomAnalyzer(gramAnalyzer, map[string]any{
		"type":      custom.Name,
		"tokenizer": gramTokenizer,
	}); err != nil {
		panic(err)
	}
	f := mapping.NewTextFieldMapping()
	f.Analyzer = gramAnalyzer
	f.Store = false
	f.IncludeInAll = false
	f.IncludeTermVectors = false
	f.DocValues = false
	f.SkipFreqNorm = true
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(FieldAll, f)
	doc.AddFieldMappingsAt(FieldTitle, f)
	doc.AddFieldMappingsAt(FieldHeadings, f)
	m.DefaultMapping = doc
	m.DefaultAnalyzer = gramAnalyzer
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// PageCount returns the number of pages across the version's trees.
func (v *Version) PageCount() int {
	n := 0
	for _, t := range v.trees {
		n += len(t.Pages)
	}
	return n
}

// ordinals maps bleve's internal document numbers to page ordinals; it
// runs once, when the version opens.
func (v *Version) ordinals() error {
	adv, err := v.idx.Advanced()
	if err != nil {
		return err
	}
	if v.reader, err = adv.Reader(); err != nil {
		return err
	}
	all, err := v.reader.DocIDReaderAll()
	if err != nil {
		return err
	}
	defer all.Close()
	n := v.PageCount()
	seen := 0
	taken := make([]bool, n)
	for {
		id, err := all.Next()
		if err != nil {
			return err
		}
		if id == nil {
			break
		}
		ext, err := v.reader.ExternalID(id)
		if err != nil {
			return err
		}
		ord, ok := v.docOrdinal(ext)
		if !ok || ord < 0 || ord >= n {
			return fmt.Errorf("search index holds unknown document %q", ext)
		}
		if taken[ord] {
			return fmt.Errorf("search index holds page %d twice", ord)
		}
		taken[ord] = true
		num := id.Value()
		if num > uint64(4*n+1024) {
			return fmt.Errorf("search index document number %d is out of range", num)
		}
		for uint64(len(v.ordOf)) <= num {
			v.ordOf = append(v.ordOf, -1)
		}
		v.ordOf[num] = int32(ord)
		seen++
	}
	if seen != n {
		return fmt.Errorf("search index holds %d pages, the version %d", seen, n)
	}
	return nil
}

// docOrdinal returns the page ordinal of the index document named id:
// a tree and a route (routeDocID), or, in a version of format 3, built
// before documents were named so, the ordinal itself.
func (v *Version) docOrdinal(id string) (int, bool) {
	tree, route, ok := splitRouteDocID(id)
	if v.meta.Format < routeDocFormat {
		if ok {
			return 0, false
		}
		ord, err := strconv.Atoi(id)
		return ord, err == nil
	}
	if !ok {
		return 0, false
	}
	t := v.trees[tree]
	if t == nil {
		return 0, false
	}
	i, ok := t.byRoute[route]
	return t.First + i, ok
}

// routeDocFormat is the first format whose index documents are named by
// tree and route (routeDocID); those of the formats before are named by
// the page's ordinal.
const routeDocFormat = 4

// frequentShare is the share of pages an n-gram must be held by for its
// bit set to be kept in memory: the posting lists that cost most to walk.
const frequentShare = 16

// frequentGrams reads the bit sets of the frequent n-grams of every field,
// when the version opens. On any error the version is not served, so the
// set is never half built.
func (v *Version) frequentGrams(ctx context.Context) error {
	frequent := map[string][]uint64{}
	n := v.PageCount()
	min := uint64(n/frequentShare + 1)
	size := (n + 63) / 64
	for _, field := range []string{FieldAll, FieldTitle, FieldHeadings} {
		d, err := v.reader.FieldDict(field)
		if err != nil {
			return fmt.Errorf("search index dictionary of field %s: %w", field, err)
		}
		var terms []string
		for {
			e, err := d.Next()
			if err != nil {
				d.Close()
				return fmt.Errorf("search index dictionary of field %s: %w", field, err)
			}
			if e == nil {
				break
			}
			if e.Count >= min {
				terms = append(terms, e.Term)
			}
		}
		d.Close()
		for _, term := range terms {
			set := make([]uint64, size)
			if err := v.walkPostings(ctx, field, term, set); err != nil {
				return err
			}
			frequent[field+"\x00"+term] = set
		}
	}
	v.frequent = frequent
	return nil
}

// Postings sets, in the bit set set (one bit per page ordinal), the bit of
// every page whose n-grams in field include gram. It reads the index's
// posting list directly, with no scoring.
func (v *Version) Postings(ctx context.Context, field, gram string, set []uint64) (err error) {
	defer recovered(&err)
	if f, ok := v.frequent[field+"\x00"+gram]; ok {
		for i, w := range f {
			set[i] |= w
		}
		return nil
	}
	return v.walkPostings(ctx, field, gram, set)
}

// walkPostings reads one posting list into set: from each segment's
// roaring bitmap where the index is scorch's, as it is, else through a
// term reader, which costs some tens of nanoseconds per posting where the
// bitmap costs a few.
func (v *Version) walkPostings(ctx context.Context, field, gram string, set []uint64) error {
	if done, err := bitmapPostings(v.reader, field, gram, v.ordOf, set); done || err != nil {
		return err
	}
	return v.readPostings(ctx, field, gram, set)
}

// readPostings reads one posting list into set through a term reader.
func (v *Version) readPostings(ctx context.Context, field, gram string, set []uint64) error {
	r, err := v.reader.TermFieldReader(ctx, []byte(gram), field, false, false, false)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer r.Close()
	var d index.TermFieldDoc
	for {
		got, err := r.Next(d.Reset())
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if got == nil {
			return nil
		}
		if num := got.ID.Value(); num < uint64(len(v.ordOf)) && v.ordOf[num] >= 0 {
			ord := uint32(v.ordOf[num])
			set[ord>>6] |= 1 << (ord & 63)
		}
	}
}
