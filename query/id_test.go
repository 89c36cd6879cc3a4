package query

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestContentIDForms pins each form String writes and ParseID reads.
func TestContentIDForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s      string
		id     ContentID
		marker string
		listed bool
	}{
		{"docs:cloud", ContentID{Kind: KindPart, Tree: "cloud", Part: PartIndex}, "docs:cloud", true},
		{"docs:blueprint:full", ContentID{Kind: KindPart, Tree: "blueprint", Part: PartFull}, "docs:blueprint:full", true},
		{"docs:tzdocs:outline", ContentID{Kind: KindPart, Tree: "tzdocs", Part: PartOutline}, "docs:tzdocs:outline", false},
		{"docs:cloud:page:", ContentID{Kind: KindPage, Tree: "cloud"}, "docs:cloud:page", false},
		{"docs:cloud:page:guides/reading", ContentID{Kind: KindPage, Tree: "cloud", Slug: "guides/reading"}, "docs:cloud:page", false},
		{"docs:cloud:page:a:b", ContentID{Kind: KindPage, Tree: "cloud", Slug: "a:b"}, "docs:cloud:page", false},
		{"docs:cloud:search:0123456789abcdef", ContentID{Kind: KindSearch, Tree: "cloud", Search: "0123456789abcdef"}, "docs:cloud:search", false},
		{"docs::search:b7088c110b1e603b", ContentID{Kind: KindSearch, Search: "b7088c110b1e603b"}, "docs::search", false},
	}
	for _, c := range cases {
		got, err := ParseID(c.s)
		if err != nil || got != c.id {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v", c.s, got, err, c.id)
		}
		if s := c.id.String(); s != c.s {
			t.Errorf("%+v.String() = %q, want %q", c.id, s, c.s)
		}
		if m := c.id.Marker(); m != c.marker {
			t.Errorf("%q marker = %q, want %q", c.s, m, c.marker)
		}
		if c.id.Listed() != c.listed {
			t.Errorf("%q listed = %v", c.s, !c.listed)
		}
	}
	if m := (ContentID{}).Marker(); m != "docs:" {
		t.Errorf("the no-tree marker = %q", m)
	}
}

// TestParseIDRefusesOtherForms: anything but a written form is refused,
// with an error that wraps ErrInvalidID and does not echo the input.
func TestParseIDRefusesOtherForms(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "docs", "docs:", "docs::", "DOCS:cloud", "docs:Cloud", "docs:nope", "source:docs:cloud", " docs:cloud",
		"docs:cloud:", "docs:cloud:index", "docs:cloud:full:", "docs:cloud:full:x", "docs:cloud:outline:x", "docs:cloud:Full",
		"docs:cloud:page", "docs:cloud:page:/x", "docs:cloud:page:x/", "docs:cloud:page:/", "docs::page:", "docs::page:x",
		"docs:cloud:search", "docs:cloud:search:", "docs:cloud:search:0123", "docs:cloud:search:0123456789ABCDEF",
		"docs:cloud:search:0123456789abcdef0", "docs:cloud:search:0123456789abcdeg", "docs::search", "docs::full", "docs:::search:0123456789abcdef",
	} {
		id, err := ParseID(s)
		if !errors.Is(err, ErrInvalidID) {
			t.Errorf("ParseID(%q) = %+v, %v; want ErrInvalidID", s, id, err)
			continue
		}
	}
	for _, s := range []string{"Zebraquokka", "docs:Zebraquokka", "docs:cloud:Zebraquokka", "docs:cloud:page:/Zebraquokka", "docs:cloud:search:Zebraquokka"} {
		if _, err := ParseID(s); err == nil || strings.Contains(err.Error(), "Zebra") {
			t.Errorf("ParseID(%q) error %v echoes the input", s, err)
		}
	}
}

// TestReaderIDsRoundTrip reads every ID the reader answers under on the
// sample site, each tree's parts, each page and searches with and without
// a tree, and requires ParseID(id).String() to give it back, with the
// kind and tree of the read.
func TestReaderIDsRoundTrip(t *testing.T) {
	t.Parallel()
	r := NewReader(Config{Limits: testLimits(), Access: map[string]Access{}}, FromStore(sampleStore))
	ctx := context.Background()
	check := func(req DocRequest, kind Kind, tree string) {
		t.Helper()
		a, _, err := r.ReadDocumentation(ctx, req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		id, err := ParseID(a.ID)
		if err != nil || id.String() != a.ID || id.Kind != kind || id.Tree != tree {
			t.Errorf("answer id %q parses to %+v, %v (String %q); want kind %d, tree %q", a.ID, id, err, id.String(), kind, tree)
		}
	}
	v, err := sampleStore.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	pages := 0
	for _, tree := range []string{"cloud", "blueprint", "tzdocs"} {
		for _, part := range []string{PartIndex, PartFull, PartOutline} {
			check(DocRequest{Tree: str(tree), Part: str(part)}, KindPart, tree)
		}
		for _, p := range v.Tree(tree).Pages {
			check(DocRequest{Page: str(p.Route)}, KindPage, tree)
			pages++
		}
		check(DocRequest{Tree: str(tree), Query: str("stamp offset")}, KindSearch, tree)
		check(DocRequest{Tree: str(tree), Query: str("(CTX-07)")}, KindSearch, tree)
	}
	for _, q := range []string{"route", "CTX-07", "no such word at all", "ΟΔΟΣ"} {
		check(DocRequest{Query: str(q)}, KindSearch, "")
	}
	if pages < 20 {
		t.Errorf("only %d pages read", pages)
	}
}

// TestParseIDInvertsString builds strings from the pieces IDs are made of
// and requires, of each, that ParseID succeeds exactly where String gives
// the string back: the written form is the only one.
func TestParseIDInvertsString(t *testing.T) {
	t.Parallel()
	pieces := []string{"cloud", "blueprint", "tzdocs", "full", "outline", "index", "page", "search",
		"/", "a/", "guides/reading", "0123456789abcdef", "0123456789ABCDEF", "f", "", "docs"}
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := map[Kind]int{}
	for range 200000 {
		var b strings.Builder
		if rng.IntN(4) > 0 {
			b.WriteString("docs:")
		}
		for i, n := 0, rng.IntN(5); i < n; i++ {
			if i > 0 {
				b.WriteString(":")
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		id, err := ParseID(s)
		if err != nil {
			continue
		}
		accepted[id.Kind]++
		if id.Tree == "" {
			accepted[0]++
		}
		if id.String() != s {
			t.Fatalf("ParseID(%q) = %+v, whose String is %q", s, id, id.String())
		}
		if again, err := ParseID(id.String()); err != nil || again != id {
			t.Fatalf("ParseID(%q) does not read back %+v: %+v, %v", id.String(), id, again, err)
		}
	}
	// Kind 0 counts the tree-less searches.
	for _, k := range []Kind{0, KindPart, KindPage, KindSearch} {
		if accepted[k] == 0 {
			t.Errorf("no generated string parsed as kind %d: the generator misses a form (%v)", k, accepted)
		}
	}
}
