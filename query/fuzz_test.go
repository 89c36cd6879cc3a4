package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/store"
)

// fuzzReader reads the sample site with every tree anonymous, so that a
// search of every tree reads all three, and the sample's public origin.
func fuzzReader() *Reader {
	return NewReader(Config{Limits: testLimits(), Origin: "https://turnzero.ai",
		Access: map[string]Access{"cloud": "anonymous", "blueprint": "anonymous", "tzdocs": "anonymous"}}, FromStore(sampleStore))
}

// fuzzTree maps a fuzzed byte to no tree or one of the trees.
func fuzzTree(sel uint8) *string {
	if i := int(sel) % (len(tzctx.DefaultTrees) + 1); i < len(tzctx.DefaultTrees) {
		return &tzctx.DefaultTrees[i]
	}
	return nil
}

// wantCode fails t unless err is a tzctx.Error with one of codes.
func wantCode(t *testing.T, what string, err error, codes ...tzctx.Code) {
	t.Helper()
	var te *tzctx.Error
	if !errors.As(err, &te) {
		t.Fatalf("%s: error %v (%T) is not a tzctx.Error", what, err, err)
	}
	for _, c := range codes {
		if te.Code == c {
			if te.Detail == "" {
				t.Fatalf("%s: %s refusal without a detail", what, c)
			}
			return
		}
	}
	t.Fatalf("%s: code %s, want one of %v (%s)", what, te.Code, codes, te.Detail)
}

// pageOn reads req to its end by next_offset and stamp, taken from each
// answer's JSON as a client would, and checks every chunk: it begins
// where the last one ended (the first at or before the offset asked),
// ends at most limit code points after the offset asked, and carries
// the first answer's stamp and total. It returns the joined text and the
// first answer.
func pageOn(t *testing.T, r *Reader, req DocRequest, limit int) (string, *Answer) {
	t.Helper()
	req.Limit = &limit
	var b strings.Builder
	var first *Answer
	want := 0
	if req.Offset != nil {
		want = *req.Offset
	}
	for step := 0; ; step++ {
		a, _, err := r.ReadDocumentation(context.Background(), req)
		if err != nil {
			t.Fatalf("read at offset %d: %v", want, err)
		}
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			Stamp      string  `json:"stamp"`
			Offset     int     `json:"offset"`
			Total      int     `json:"total"`
			NextOffset *int    `json:"next_offset"`
			Text       *string `json:"text"`
		}
		if err := json.Unmarshal(raw, &wire); err != nil || wire.Text == nil {
			t.Fatalf("answer JSON %s: %v", raw, err)
		}
		if first == nil {
			first = a
		} else {
			if wire.Offset != want {
				t.Fatalf("chunk asked at next_offset %d begins at %d", want, wire.Offset)
			}
			if wire.Stamp != first.Stamp || wire.Total != first.Total {
				t.Fatalf("stamp or total changed while paging: %s/%d then %s/%d", first.Stamp, first.Total, wire.Stamp, wire.Total)
			}
		}
		// A chunk ends at most a limit after the offset asked; one
		// asked at a place, as every next_offset is, begins there and so
		// holds at most a limit.
		n := utf8.RuneCountInString(*wire.Text)
		if wire.Offset+n-want > limit || wire.Offset > want {
			t.Fatalf("chunk asked at %d is [%d,%d), more than the limit %d past the offset", want, wire.Offset, wire.Offset+n, limit)
		}
		b.WriteString(*wire.Text)
		if wire.NextOffset == nil {
			if wire.Offset+n != wire.Total {
				t.Fatalf("last chunk [%d,+%d) ends before the total %d", wire.Offset, n, wire.Total)
			}
			return b.String(), first
		}
		if *wire.NextOffset != wire.Offset+n || n == 0 || step > wire.Total {
			t.Fatalf("chunk at %d of %d code points gives next_offset %d", wire.Offset, n, *wire.NextOffset)
		}
		want = *wire.NextOffset
		req.Offset, req.Stamp = wire.NextOffset, &wire.Stamp
	}
}

// sampleRoutes lists the sample site's page routes, tree by tree.
var sampleRoutes = sync.OnceValue(func() []string {
	v, err := sampleStore.Acquire()
	if err != nil {
		panic(err)
	}
	defer v.Release()
	var out []string
	for _, name := range tzctx.DefaultTrees {
		for _, p := range v.Tree(name).Pages {
			out = append(out, p.Route)
		}
	}
	return out
})

// FuzzReadPaging reads a page, a tree's part or a search answer of the
// sample site from a fuzzed offset under a fuzzed limit and pages on by
// next_offset and stamp: the chunks join to the text from where the first
// began to the end, each within the limit, all with one stamp, which is
// the SHA-256 of the whole text. Refusals carry the contract's codes: an
// offset without a stamp and one past the end are invalid_request, a
// wrong stamp is context_changed.
func FuzzReadPaging(f *testing.F) {
	f.Add(uint16(0), uint8(0), 2000, 0, uint8(0))
	f.Add(uint16(3), uint8(1), 1, 5, uint8(1))
	f.Add(uint16(7), uint8(2), 37, 100, uint8(2))
	f.Add(uint16(11), uint8(3), 500, 1<<20, uint8(3))
	f.Add(uint16(1), uint8(4), 64, 10, uint8(1))
	r := fuzzReader()
	lim := testLimits()
	f.Fuzz(func(t *testing.T, which uint16, kind uint8, limit, offset int, stampMode uint8) {
		limit = 1 + int(uint(limit)%uint(lim.TextMaxLimit))
		if offset < 0 {
			offset = -(offset + 1)
		}
		routes := sampleRoutes()
		var req DocRequest
		switch kind % 5 {
		case 0, 1:
			req.Page = &routes[int(which)%len(routes)]
		case 2:
			req.Tree = &tzctx.DefaultTrees[int(which)%len(tzctx.DefaultTrees)]
			part := []string{PartIndex, PartFull, PartOutline}[int(which/3)%3]
			req.Part = &part
		default:
			q := []string{"stamp", "offset limit", "CTX-07", "error", "the"}[int(which)%5]
			req.Query = &q
			req.Tree = fuzzTree(uint8(which >> 3))
		}
		// The whole text, read from 0 in the largest chunks.
		whole, first := pageOn(t, r, req, lim.TextMaxLimit)
		sum := sha256.Sum256([]byte(whole))
		if first.Stamp != hex.EncodeToString(sum[:]) || first.Total != utf8.RuneCountInString(whole) {
			t.Fatalf("stamp %s and total %d are not the SHA-256 and length of the joined text", first.Stamp, first.Total)
		}
		offset %= first.Total + 2
		stamp := first.Stamp
		at := req
		at.Offset = &offset
		switch stampMode % 4 {
		case 1: // no stamp
			if offset > 0 {
				_, _, err := r.ReadDocumentation(context.Background(), at)
				wantCode(t, "offset without stamp", err, tzctx.InvalidRequest)
				return
			}
		case 2: // a stamp of another text
			other := strings.Repeat("0", 64)
			at.Stamp = &other
			_, _, err := r.ReadDocumentation(context.Background(), at)
			wantCode(t, "wrong stamp", err, tzctx.ContextChanged)
			return
		default:
			at.Stamp = &stamp
		}
		if offset > first.Total {
			at.Limit = &limit
			_, _, err := r.ReadDocumentation(context.Background(), at)
			wantCode(t, "offset past the end", err, tzctx.InvalidRequest)
			return
		}
		// At most a few hundred chunks per execution keep it fast.
		limit = max(limit, (first.Total-offset)/300+1)
		got, a := pageOn(t, r, at, limit)
		if a.Offset > offset || (offset < a.Total && offset-a.Offset >= limit) {
			t.Fatalf("chunk asked at %d under limit %d begins at %d", offset, limit, a.Offset)
		}
		if a.Stamp != stamp {
			t.Fatalf("stamp %s read at an offset, %s from 0", a.Stamp, stamp)
		}
		if want := string([]rune(whole)[a.Offset:]); got != want {
			t.Fatalf("chunks from %d under limit %d do not join to the text from there (%d code points, want %d)", a.Offset, limit, utf8.RuneCountInString(got), utf8.RuneCountInString(want))
		}
	})
}

// FuzzRoute reads a fuzzed page value, with or without a tree: the answer
// is a page or a refusal with invalid_request or context_not_found. The
// normalization is idempotent (the route a value resolves to, or was read
// as, resolves to itself), and every accepted form of a found page's
// route (with and without slashes, the base path or the origin) reads the
// same page with the same stamp.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{"/cloud/reference/http/", "cloud/reference/http", "reference/http", "/reference/http/",
		"https://turnzero.ai/cloud/reference/errors/", "/cloud/", "cloud", "/", "", "//cloud/x", "/cloud//x/", "/tzdocs/",
		"/blueprint/cloud/x", "https://turnzero.ai", "https://turnzero.aiX/cloud/", "/cloud/reference/http/#a", "x/../y", "\x00", "/CLOUD/"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	for i, rt := range sampleRoutes() {
		f.Add(rt, uint8(i))
	}
	r := fuzzReader()
	lim := testLimits().TextMaxLimit
	v, err := sampleStore.Acquire()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(v.Release)
	f.Fuzz(func(t *testing.T, page string, sel uint8) {
		page = strings.ToValidUTF8(page, "\uFFFD") // as any JSON decoder answers
		req := DocRequest{Page: &page, Tree: fuzzTree(sel), Paging: Paging{Limit: &lim}}
		a, _, err := r.ReadDocumentation(context.Background(), req)
		tree := ""
		if req.Tree != nil {
			tree = *req.Tree
		} else if first, _, _ := strings.Cut(trimSlash(r.stripOrigin(page)), "/"); slices.Contains(tzctx.DefaultTrees, first) {
			tree = first
		}
		if tree != "" {
			// Normalization is idempotent.
			tr := StoreVersion(v).Tree(tree)
			i, c := resolvePage(tr, tree, r.stripOrigin(page))
			if i2, c2 := resolvePage(tr, tree, c); i2 != i || c2 != c {
				t.Fatalf("%q resolves to (%d, %q), which resolves to (%d, %q)", page, i, c, i2, c2)
			}
			if i >= 0 && tr.Pages()[i].Route != c {
				t.Fatalf("%q resolves to page %d, route %q, read as %q", page, i, tr.Pages()[i].Route, c)
			}
		}
		if err != nil {
			if tree == "" {
				wantCode(t, "page without a tree", err, tzctx.InvalidRequest)
			} else {
				wantCode(t, "page "+page, err, tzctx.ContextNotFound)
			}
			return
		}
		id, perr := ParseID(a.ID)
		if perr != nil || id.Kind != KindPage || id.Tree != tree {
			t.Fatalf("page %q in tree %q answered ID %q", page, tree, a.ID)
		}
		route := routeFrom(tree, id.Slug)
		forms := []DocRequest{
			{Page: &route},
			{Page: str(strings.Trim(route, "/"))},
			{Page: str("https://turnzero.ai" + route)},
			{Page: str(id.Slug), Tree: &tree},
			{Page: str("/" + id.Slug), Tree: &tree},
		}
		// A slug whose first segment is the tree's name reads, without the
		// base path, as the route under it: only the forms with
		// the base path are sure to name the page.
		if strings.HasPrefix(id.Slug+"/", tree+"/") {
			forms = forms[:3]
		}
		for _, fr := range forms {
			fr.Limit = &lim
			b, _, err := r.ReadDocumentation(context.Background(), fr)
			if err != nil {
				t.Fatalf("page %q read as %s, but its form %q is refused: %v", page, a.ID, *fr.Page, err)
			}
			if b.ID != a.ID || b.Stamp != a.Stamp {
				t.Fatalf("page %q reads %s (%s), its form %q reads %s (%s)", page, a.ID, a.Stamp, *fr.Page, b.ID, b.Stamp)
			}
		}
	})
}

// FuzzSearchOracle searches the sample site for a fuzzed query, in one
// tree or in every tree, and requires exactly the brute-force oracle's
// answer (the contract's 3/2/1 scoring, plain loops over every page),
// read to its end by next_offset. A wordless query without a tree is
// refused invalid_request. The call's record subject does not depend on
// the query's words.
func FuzzSearchOracle(f *testing.F) {
	for i, q := range []string{"CTX-07", "(CTX-07)", "ctx-07", "stamp offset", "ΟΔΟΣ", "İstanbul", "a", "zz", "the the",
		"error_code", "context_not_found", "qqqxqqq", "", "  ", "https://", "-", "##", "K", "ß", "\u00a0x", "tzdoc:TZD-L0-05", "API-L0-09"} {
		f.Add(q, uint8(i))
	}
	r := fuzzReader()
	lim := testLimits()
	v, err := sampleStore.Acquire()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(v.Release)
	oracles := map[string]*oracle{}
	var all []*store.Tree
	for _, name := range tzctx.DefaultTrees {
		tr := v.Tree(name)
		all = append(all, tr)
		oracles[name] = newOracle(f, v, []*store.Tree{tr}, lim.SearchMatchLimit)
	}
	oracles[""] = newOracle(f, v, all, lim.SearchMatchLimit)
	_, wantSubject, _ := r.ReadDocumentation(context.Background(), DocRequest{Query: str("x")})
	f.Fuzz(func(t *testing.T, q string, sel uint8) {
		q = strings.ToValidUTF8(q, "\uFFFD") // as any JSON decoder answers
		if utf8.RuneCountInString(q) > 160 {
			q = string([]rune(q)[:160])
		}
		req := DocRequest{Query: &q, Tree: fuzzTree(sel)}
		tree := treeName(req.Tree)
		if len(QueryWords(q)) == 0 {
			_, _, err := r.ReadDocumentation(context.Background(), req)
			if tree == "" {
				wantCode(t, "wordless query", err, tzctx.InvalidRequest)
			} else if err != nil {
				t.Fatalf("wordless query in %s (read as no query): %v", tree, err)
			}
			return
		}
		if tree == "" {
			if _, subject, _ := r.ReadDocumentation(context.Background(), req); subject != wantSubject {
				t.Fatalf("record subject %q depends on the query (want %q)", subject, wantSubject)
			}
		}
		got, first := pageOn(t, r, req, lim.TextMaxLimit)
		if want := oracles[tree].answer(q); got != want {
			t.Fatalf("query %q in tree %q:\n got  %q\n want %q", q, tree, clip(got), clip(want))
		}
		id, err := ParseID(first.ID)
		if err != nil || id.Kind != KindSearch || id.Tree != tree || id.Search != SearchID(QueryWords(q)) {
			t.Fatalf("search answer ID %q, want docs:%s:search:%s", first.ID, tree, SearchID(QueryWords(q)))
		}
	})
}
