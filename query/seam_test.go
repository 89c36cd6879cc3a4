package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// TestStoreSeam keeps the store seam: of the package's own files, only
// store.go, the adapter, imports package store, so the reader reads a
// version through the interfaces of reader.go alone.
func TestStoreSeam(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		seen++
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range pf.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path == "github.com/turnzerocloud/tzctx/store" && f != "store.go" {
				t.Errorf("%s imports package store; read the version through Versions, Version, Tree and Text, and adapt the store in store.go", f)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no source files found")
	}
}

// memLayout is a second storage layout, held in memory: texts with the
// place tables textmap computes, candidates by substring over lower-cased
// fields. It is built from a store version's data, and proves the seam:
// the reader answers from it through Versions alone, as from the store.
type memLayout struct {
	name  string
	trees map[string]*memTree
	n     int
	// fields holds, per Field, each page's lower-cased field text by
	// ordinal.
	fields [3][]string
	memo   sync.Map
}

type memTree struct {
	title    string
	pages    []tzctx.Page
	first    int
	byRoute  map[string]int
	texts    map[string]*memText
	headings map[string][]tzctx.Heading
}

type memStoredText struct {
	*memText
	b []byte
}

func (t memStoredText) Bytes() []byte { return t.b }

type memVersions struct{ v *memLayout }

func (m memVersions) Acquire() (Version, error) {
	if m.v == nil {
		return nil, fmt.Errorf("reading the layout: %w", ErrNoVersion)
	}
	return m.v, nil
}

func (v *memLayout) Name() string   { return v.name }
func (v *memLayout) Release()       {}
func (v *memLayout) PageCount() int { return v.n }

func (v *memLayout) TreeNames() []string {
	var out []string
	for _, t := range tzctx.DefaultTrees {
		if _, ok := v.trees[t]; ok {
			out = append(out, t)
		}
	}
	return out
}

func (v *memLayout) Tree(name string) Tree {
	if t, ok := v.trees[name]; ok {
		return t
	}
	return nil
}

func (v *memLayout) Candidates(ctx context.Context, field Field, gram string, set []uint64) error {
	for o, s := range v.fields[field] {
		if strings.Contains(s, gram) {
			set[o>>6] |= 1 << (o & 63)
		}
	}
	return ctx.Err()
}

func (v *memLayout) Memo(key any, f func(Version) (any, error)) (any, error) {
	if x, ok := v.memo.Load(key); ok {
		return x, nil
	}
	x, err := f(v)
	if err == nil {
		v.memo.Store(key, x)
	}
	return x, err
}

func (t *memTree) Title() string       { return t.title }
func (t *memTree) Pages() []tzctx.Page { return t.pages }
func (t *memTree) First() int          { return t.first }

func (t *memTree) PageIndex(route string) int {
	if i, ok := t.byRoute[route]; ok {
		return i
	}
	return -1
}

func (t *memTree) Text(key string) (Text, error) {
	if x, ok := t.texts[key]; ok {
		return memStoredText{x, []byte(x.s)}, nil
	}
	return nil, nil
}

func (t *memTree) Headings(route string) ([]tzctx.Heading, error) { return t.headings[route], nil }

func (t *memTree) SearchBody(route string) ([]byte, bool) {
	if x, ok := t.texts[route]; ok {
		return []byte(strings.ToLower(x.s)), false
	}
	return nil, false
}

// newMemLayout copies the data of the version st serves into a memLayout.
func newMemLayout(t *testing.T, st *store.Store) *memLayout {
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	m := &memLayout{name: v.Name(), trees: map[string]*memTree{}}
	copyText := func(tr *store.Tree, key string) *memText {
		x, err := tr.Text(key)
		if err != nil || x == nil {
			t.Fatalf("text %s of tree %s: %v", key, tr.Name, err)
		}
		return newMemText(string(x.Bytes()))
	}
	for _, name := range tzctx.DefaultTrees {
		tr := v.Tree(name)
		if tr == nil {
			continue
		}
		mt := &memTree{title: tr.Title, pages: append([]tzctx.Page(nil), tr.Pages...), first: m.n, byRoute: map[string]int{},
			texts: map[string]*memText{}, headings: map[string][]tzctx.Heading{}}
		for _, key := range []string{PartIndex, PartFull, PartOutline} {
			mt.texts[key] = copyText(tr, key)
		}
		for i, p := range tr.Pages {
			mt.byRoute[p.Route] = i
			mt.texts[p.Route] = copyText(tr, p.Route)
			hs, err := tr.Headings(p.Route)
			if err != nil {
				t.Fatal(err)
			}
			mt.headings[p.Route] = hs
			var head strings.Builder
			for _, h := range hs {
				head.WriteString(strings.ToLower(h.Text) + "\n")
			}
			title := strings.ToLower(p.Title)
			m.fields[FieldAll] = append(m.fields[FieldAll], title+"\n"+strings.ToLower(mt.texts[p.Route].s))
			m.fields[FieldTitle] = append(m.fields[FieldTitle], title)
			m.fields[FieldHeadings] = append(m.fields[FieldHeadings], head.String())
		}
		m.n += len(tr.Pages)
		m.trees[name] = mt
	}
	return m
}

// TestSecondLayout reads the sample site through the store and through a
// second layout in memory, and requires the same answers: every part of
// every tree, every page's first chunk with its headings, and searches.
func TestSecondLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := Config{Limits: testLimits(), Origin: "https://turnzero.ai", Access: map[string]Access{}}
	viaStore := NewReader(cfg, FromStore(sampleStore))
	mem := newMemLayout(t, sampleStore)
	viaMem := NewReader(cfg, memVersions{mem})
	same := func(what string, req DocRequest) {
		t.Helper()
		a, sa, errA := viaStore.ReadDocumentation(ctx, req)
		b, sb, errB := viaMem.ReadDocumentation(ctx, req)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || sa != sb {
			t.Fatalf("%s: the store answers (%q, %v), the memory layout (%q, %v)", what, sa, errA, sb, errB)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("%s: the store answers\n%s\nthe memory layout\n%s", what, clip(string(ja)), clip(string(jb)))
		}
	}
	lim := 2000
	var trees []*store.Tree
	v, err := sampleStore.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	for _, name := range tzctx.DefaultTrees {
		tr := v.Tree(name)
		if tr == nil {
			continue
		}
		trees = append(trees, tr)
		for _, part := range []string{PartIndex, PartFull, PartOutline} {
			same(name+" "+part, DocRequest{Tree: str(name), Part: str(part), Paging: Paging{Limit: &lim}})
		}
		for _, p := range tr.Pages {
			same(p.Route, DocRequest{Page: str(p.Route), Paging: Paging{Limit: &lim}})
		}
		same(name+" missing page", DocRequest{Tree: str(name), Page: str("/" + name + "/no/such/page/")})
	}
	o := newOracle(t, v, trees, testLimits().SearchMatchLimit)
	queries := append(o.queries(7, 200), testkit.SearchQueries...)
	for _, q := range queries {
		same("search", DocRequest{Query: str(q)})
	}
	// No version served is the same refusal from either layout.
	_, _, err = NewReader(cfg, memVersions{}).ReadDocumentation(ctx, DocRequest{Tree: str("cloud")})
	wantCode(t, "no version", err, tzctx.ContextUnavailable)
}
