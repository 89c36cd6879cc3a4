package store

import (
	"fmt"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// gramDoc is one page's document of the n-gram index, as gramMapping
// maps it and its analyzer analyses it, built directly from the page's
// n-gram lists: each field's terms are its distinct n-grams, with the
// field options the mapping gives, and no _all field (the mapping
// excludes every field from it, and search never reads it). Building it
// directly spares the tokens and their frequency map, one allocation per
// n-gram, that analysis would make and drop.
type gramDoc struct {
	id     string
	fields []index.Field
	size   uint64
}

// gramOptions are the indexing options gramMapping gives an n-gram
// field, read from the mapping itself.
var gramOptions = sync.OnceValue(func() index.FieldIndexingOptions {
	doc := document.NewDocument("0")
	if err := gramMapping().MapDocument(doc, map[string]any{FieldAll: "x"}); err != nil {
		panic(err)
	}
	for _, f := range doc.Fields {
		if f.Name() == FieldAll {
			return f.Options()
		}
	}
	panic("the n-gram mapping maps no " + FieldAll + " field")
})

// newGramDoc builds the document of page id from its n-gram lists.
func newGramDoc(id string, g PageGrams) *gramDoc {
	d := &gramDoc{id: id}
	opts := gramOptions()
	for _, f := range []struct{ name, grams string }{{FieldAll, g.All}, {FieldTitle, g.Title}, {FieldHeadings, g.Headings}} {
		d.fields = append(d.fields, newGramField(f.name, f.grams, opts))
		d.size += uint64(len(f.grams))
	}
	return d
}

func (d *gramDoc) ID() string { return d.id }

func (d *gramDoc) Size() int { return int(d.size) }

func (d *gramDoc) VisitFields(visit index.FieldVisitor) {
	for _, f := range d.fields {
		visit(f)
	}
}

func (d *gramDoc) VisitComposite(index.CompositeFieldVisitor) {}

func (d *gramDoc) HasComposite() bool { return false }

func (d *gramDoc) NumPlainTextBytes() uint64 { return d.size }

// AddIDField adds the stored _id field that names the document, analysed,
// as bleve's documents add it.
func (d *gramDoc) AddIDField() {
	f := document.NewTextFieldCustom("_id", nil, []byte(d.id), index.IndexField|index.StoreField, nil)
	f.Analyze()
	d.fields = append(d.fields, f)
}

func (d *gramDoc) StoredFieldsBytes() uint64 { return uint64(len(d.id)) }

func (d *gramDoc) Indexed() bool { return true }

// gramField is one n-gram field of a gramDoc, analysed: its terms are the
// space-separated n-grams of its value, as spaceTokenizer splits them.
type gramField struct {
	name   string
	opts   index.FieldIndexingOptions
	n      int // tokens
	freqs  index.TokenFrequencies
	nbytes uint64
}

func newGramField(name, grams string, opts index.FieldIndexingOptions) *gramField {
	if opts.IncludeTermVectors() {
		panic(fmt.Sprintf("the n-gram field %s keeps term vectors, which gramField does not build", name))
	}
	// The terms are slices of one copy of the list's bytes, keyed by
	// slices of the list itself: no allocation per term.
	value := []byte(grams)
	n := strings.Count(grams, " ") + 1
	f := &gramField{name: name, opts: opts, freqs: make(index.TokenFrequencies, n), nbytes: uint64(len(grams))}
	backing := make([]index.TokenFreq, 0, n)
	for start := 0; start < len(grams); {
		end := strings.IndexByte(grams[start:], ' ')
		if end < 0 {
			end = len(grams)
		} else {
			end += start
		}
		if end > start {
			f.n++
			key := grams[start:end]
			tf, ok := f.freqs[key]
			if !ok {
				backing = append(backing, index.TokenFreq{Term: value[start:end]})
				tf = &backing[len(backing)-1]
				f.freqs[key] = tf
			}
			if !opts.SkipFreqNorm() {
				tf.SetFrequency(tf.Frequency() + 1)
			}
		}
		start = end + 1
	}
	return f
}

func (f *gramField) Name() string                                     { return f.name }
func (f *gramField) Value() []byte                                    { return nil }
func (f *gramField) ArrayPositions() []uint64                         { return nil }
func (f *gramField) EncodedFieldType() byte                           { return 't' }
func (f *gramField) Analyze()                                         {}
func (f *gramField) Options() index.FieldIndexingOptions              { return f.opts }
func (f *gramField) AnalyzedLength() int                              { return f.n }
func (f *gramField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
func (f *gramField) NumPlainTextBytes() uint64                        { return f.nbytes }
