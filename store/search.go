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

const (
	gramField     = "g"
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
	doc.AddFieldMappingsAt(gramField, f)
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

func (v *Version) ordinals() error {
	v.ordOnce.Do(func() {
		adv, err := v.idx.Advanced()
		if err != nil {
			v.ordErr = err
			return
		}
		if v.reader, err = adv.Reader(); err != nil {
			v.ordErr = err
			return
		}
		all, err := v.reader.DocIDReaderAll()
		if err != nil {
			v.ordErr = err
			return
		}
		defer all.Close()
		v.ordOf = make(map[uint64]uint32, v.PageCount())
		for {
			id, err := all.Next()
			if err != nil {
				v.ordErr = err
				return
			}
			if id == nil {
				return
			}
			ext, err := v.reader.ExternalID(id)
			if err != nil {
				v.ordErr = err
				return
			}
			ord, err := strconv.Atoi(ext)
			if err != nil || ord < 0 || ord >= v.PageCount() {
				v.ordErr = fmt.Errorf("search index holds unknown document %q", ext)
				return
			}
			v.ordOf[id.Value()] = uint32(ord)
		}
	})
	return v.ordErr
}

// Postings sets, in the bit set set (one bit per page ordinal), the bit of
// every page whose n-grams include gram. It reads the index's posting list
// directly, with no scoring.
func (v *Version) Postings(ctx context.Context, gram string, set []uint64) error {
	if err := v.ordinals(); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	r, err := v.reader.TermFieldReader(ctx, []byte(gram), gramField, false, false, false)
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
		if ord, ok := v.ordOf[got.ID.Value()]; ok {
			set[ord>>6] |= 1 << (ord & 63)
		}
	}
}
