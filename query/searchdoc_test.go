package query

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store/sections"
)

func terms(text string) []string {
	var out []string
	analyze(text, 0, func(term string, _ int) { out = append(out, term) })
	return out
}

// TestAnalyzeIdentifiers: identifiers are kept whole and split at their
// joiners, case changes and digits; words are lower-cased, stemmed and
// stop words dropped; punctuation such as a question's "?" goes.
func TestAnalyzeIdentifiers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Remove-PSReadLineKeyHandler", []string{"remove-psreadlinekeyhandler", "remov", "ps", "read", "line", "kei", "handler"}},
		{"set build.target", []string{"set", "build.target", "build", "target"}},
		{"Iterator::any", []string{"iterator::any", "iter"}}, // "any" is a stop word
		{"FirstLineIndent", []string{"firstlineindent", "first", "line", "indent"}},
		{"How do I use docusaurus?", []string{"us", "docusauru"}},
		{"units of the unit", []string{"unit", "unit"}},
	} {
		if got := terms(c.in); !slices.Equal(got, c.want) {
			t.Errorf("analyze(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSplitSections: sections cut at headings, the lead included, a
// heading with no text of its own taking in its subsections, and one
// with none after it joining the section before; no cut inside a fence
// (the page's headings are outside fences); the sections tile the text.
func TestSplitSections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40)
	text := "# Title\n\n" + long + "\n\n## A\n\n" + long + "\n\n## B\n\n### B1\n\n" + long + "\n```\n## not a heading\n```\n## C\n\nshort\n## D\n"
	n := utf8.RuneCountInString(text)
	var hs []tzctx.Heading
	for _, h := range []struct {
		d    int
		line string
	}{{2, "## A"}, {2, "## B"}, {3, "### B1"}, {2, "## C"}, {2, "## D"}} {
		hs = append(hs, tzctx.Heading{Depth: h.d, Text: h.line[h.d+1:], Offset: utf8.RuneCountInString(text[:strings.Index(text, h.line+"\n")])})
	}
	got := splitSections(text, n, hs, nil)
	want := []span{{0, hs[0].Offset, -1, false}, {hs[0].Offset, hs[1].Offset, 0, false}, {hs[1].Offset, hs[3].Offset, 1, false}, {hs[3].Offset, n, 3, false}}
	if !slices.Equal(got, want) {
		t.Fatalf("sections %v, want %v (B, a heading alone, takes in B1; D, a heading alone, joins C)", got, want)
	}
}

// TestSplitLongSections: a section longer than pieceMax is cut into
// pieces at its paragraph starts, each a place a read starts and none in
// a fence, the pieces covering the section in order and keeping its
// heading; a fence longer than pieceMax stays whole.
func TestSplitLongSections(t *testing.T) {
	t.Parallel()
	para := strings.TrimSpace(strings.Repeat("word ", 60)) + "\n" + strings.TrimSpace(strings.Repeat("more ", 30)) + "\n\n"
	fence := "```\n" + strings.Repeat("code line\n\n", 3*pieceMax/11) + "```\n\n"
	text := "# Title\n\n" + "## Long\n\n" + strings.Repeat(para, 20) + fence + strings.Repeat(para, 3) + "## Short\n\n" + para
	n := utf8.RuneCountInString(text)
	var hs []tzctx.Heading
	for _, line := range []string{"## Long", "## Short"} {
		hs = append(hs, tzctx.Heading{Depth: 2, Text: line[3:], Offset: utf8.RuneCountInString(text[:strings.Index(text, line+"\n")])})
	}
	m := textmap.Scan(text)
	got := splitSections(text, n, hs, m)
	if got[0] != (span{0, hs[0].Offset, -1, false}) || got[len(got)-1] != (span{hs[1].Offset, n, 1, false}) {
		t.Fatalf("sections %v: want the lead first and Short, short, whole last", got)
	}
	pieces := got[1 : len(got)-1]
	if len(pieces) < 3 {
		t.Fatalf("Long, %d code points, is cut into %d pieces, want at least 3 of at most %d", hs[1].Offset-hs[0].Offset, len(pieces), pieceMax)
	}
	fenceStart := utf8.RuneCountInString(text[:strings.Index(text, "```")])
	fenceEnd := fenceStart + utf8.RuneCountInString(fence)
	at := hs[0].Offset
	for _, p := range pieces {
		if p.start != at || p.head != 0 {
			t.Fatalf("pieces %v: want contiguous pieces of Long from %d", pieces, hs[0].Offset)
		}
		if p.start > hs[0].Offset && (m.LastBaseAtOrBefore(p.start) != p.start || !strings.HasSuffix(textmap.Slice(text, 0, p.start), "\n\n")) {
			t.Fatalf("piece %v does not start a paragraph at a place a read starts: %q", p, textmap.Slice(text, p.start-20, p.start+20))
		}
		if p.start > fenceStart && p.start < fenceEnd-2 {
			t.Fatalf("piece %v starts inside the fence [%d, %d)", p, fenceStart, fenceEnd)
		}
		if p.end-p.start > pieceMax && !(p.start <= fenceStart && p.end >= fenceEnd-2) {
			t.Fatalf("piece %v is longer than %d and holds no fence", p, pieceMax)
		}
		at = p.end
	}
	if at != hs[1].Offset {
		t.Fatalf("pieces %v end at %d, want %d", pieces, at, hs[1].Offset)
	}
}

// searchOracle ranks sections with plain loops over their texts, analysed
// afresh: BM25F, the page's share and the proximity bonus as
// sectionindex.go states them, without the index's postings, positions or
// candidate cut.
type searchOracle struct {
	secs  []oracleSection
	pages []oracleSecPage
}

// oracleSecPage is one page: its tree and its text's terms (its sections'
// taken together).
type oracleSecPage struct {
	tree int
	text map[string]int
	len  int
}

type oracleSection struct {
	tree, page    int
	title, text   map[string]int
	pos           map[string][]uint32
	lenTi, lenTxt int
}

func newSearchOracle(t testing.TB, v Version) *searchOracle {
	o := &searchOracle{}
	for ti, name := range v.TreeNames() {
		tr := v.Tree(name)
		for _, p := range tr.Pages() {
			txt, err := tr.Text(p.Route)
			if err != nil || txt == nil {
				t.Fatalf("no copy of %s", p.Route)
			}
			hs, _ := tr.Headings(p.Route)
			text := string(txt.Bytes())
			pg := oracleSecPage{tree: ti, text: map[string]int{}}
			for _, s := range splitSections(text, txt.Total(), hs, txt) {
				os := oracleSection{tree: ti, page: len(o.pages), title: map[string]int{}, text: map[string]int{}, pos: map[string][]uint32{}}
				os.lenTi = analyze(sectionTitle(p.Title, hs, s.head), 0, func(term string, _ int) { os.title[term]++ })
				os.lenTxt = analyze(txt.Slice(s.start, s.end), 0, sections.FirstOnly(s.code, func(term string, pos int) {
					os.text[term]++
					os.pos[term] = append(os.pos[term], uint32(pos))
				}))
				for w, c := range os.text {
					pg.text[w] += c
				}
				pg.len += os.lenTxt
				o.secs = append(o.secs, os)
			}
			o.pages = append(o.pages, pg)
		}
	}
	return o
}

// pageScores is each page's BM25 over its whole text for the query's
// terms, by index in o.pages.
func (o *searchOracle) pageScores(qs []string, scope []int) []float64 {
	var np, sum float64
	df := map[string]float64{}
	for _, p := range o.pages {
		if slices.Contains(scope, p.tree) {
			np++
			sum += float64(p.len)
			for _, q := range qs {
				if p.text[q] > 0 {
					df[q]++
				}
			}
		}
	}
	avg := max(sum/max(np, 1), 1)
	out := make([]float64, len(o.pages))
	for i, p := range o.pages {
		if !slices.Contains(scope, p.tree) {
			continue
		}
		for _, q := range qs {
			if tf := float64(p.text[q]); tf > 0 {
				tf /= 1 - bm25B + bm25B*float64(p.len)/avg
				out[i] += idf(np, df[q]) * tf / (bm25K1 + tf)
			}
		}
	}
	return out
}

func (o *searchOracle) rank(query string, scope []int, limit int) []scoredSection {
	var qs []string
	var qpos []int
	analyze(query, 0, func(term string, pos int) {
		if !slices.Contains(qs, term) {
			qs, qpos = append(qs, term), append(qpos, pos)
		}
	})
	var n, sumTi, sumTxt float64
	df := map[string]float64{}
	for _, s := range o.secs {
		if !slices.Contains(scope, s.tree) {
			continue
		}
		n++
		sumTi += float64(s.lenTi)
		sumTxt += float64(s.lenTxt)
		for _, q := range qs {
			if s.title[q] > 0 || s.text[q] > 0 {
				df[q]++
			}
		}
	}
	var qt []queryTerm
	var held []string
	for i, q := range qs {
		if df[q] > 0 {
			qt = append(qt, queryTerm{qpos: qpos[i], idf: idf(n, df[q])})
			held = append(held, q)
		}
	}
	pages := o.pageScores(held, scope)
	var out []scoredSection
	for i, s := range o.secs {
		if !slices.Contains(scope, s.tree) {
			continue
		}
		score, pos := 0.0, make([][]uint32, len(qt))
		for j, q := range held {
			if s.title[q] > 0 || s.text[q] > 0 {
				score += qt[j].idf * bm25F(float64(s.title[q]), float64(s.lenTi), max(sumTi/n, 1), float64(s.text[q]), float64(s.lenTxt), max(sumTxt/n, 1))
			}
			pos[j] = s.pos[q]
		}
		if score > 0 {
			score += pageWeight * pages[s.page]
			out = append(out, scoredSection{int32(i), score + proximityOf(qt, pos)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out[:min(len(out), limit)]
}

// sameRanking compares two rankings: the same sections in the same order,
// scores equal to rounding.
func sameRanking(got, want []scoredSection) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].sec != want[i].sec || math.Abs(got[i].score-want[i].score) > 1e-9 {
			return false
		}
	}
	return true
}

// searchDifferential ranks n queries drawn from the version's own texts
// through the index and through the oracle and requires the same
// rankings. Only the oracle's top sections are compared past the
// proximity cut: the index adds proximity to its best rescored by BM25F,
// so the queries are scored at a depth both see whole.
func searchDifferential(t *testing.T, v Version, n int) {
	ix, err := sectionsOf(v)
	if err != nil {
		t.Fatal(err)
	}
	o := newSearchOracle(t, v)
	var vocab []string
	for _, s := range o.secs[:min(len(o.secs), 400)] {
		for w := range s.text {
			vocab = append(vocab, w)
		}
	}
	sort.Strings(vocab)
	rng := rand.New(rand.NewPCG(uint64(len(o.secs)), 7))
	all := make([]int, len(v.TreeNames()))
	for i := range all {
		all[i] = i
	}
	bad := 0
	for q := 0; q < n; q++ {
		var words []string
		for k := 1 + rng.IntN(4); k > 0; k-- {
			words = append(words, vocab[rng.IntN(len(vocab))])
		}
		query := strings.Join(words, " ")
		scope := all
		if q%3 == 1 {
			scope = []int{rng.IntN(len(all))}
		}
		got, _, err := ix.rank(context.Background(), scope, ix.queryTerms(query), 20)
		if err != nil {
			t.Fatal(err)
		}
		want := o.rank(query, scope, 20)
		if !sameRanking(got, want) {
			bad++
			if bad <= 3 {
				t.Errorf("query %q scope %v:\n got  %v\n want %v", query, scope, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d queries rank otherwise than the oracle", bad, n)
	}
}

func TestSearchDocumentationMatchesOracleOnSampleSite(t *testing.T) {
	t.Parallel()
	v, err := FromStore(sampleStore).Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	searchDifferential(t, v, 300)
}

func TestSearchDocumentationMatchesOracleOnCorpora(t *testing.T) {
	for _, c := range []string{"vite-docs", "redux-docs"} {
		t.Run(c, func(t *testing.T) {
			dir := filepath.Join(testkit.Corpora(t), c)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s is absent: the test needs it", dir)
			}
			st := testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: dir})
			v, err := FromStore(st).Acquire()
			if err != nil {
				t.Fatal(err)
			}
			defer v.Release()
			searchDifferential(t, v, 200)
		})
	}
}

func search(t *testing.T, r *Reader, ctx context.Context, req SearchRequest) *SearchAnswer {
	t.Helper()
	a, subject, err := r.SearchDocumentation(ctx, req)
	if err != nil {
		t.Fatalf("search %+v: %v", req, err)
	}
	if req.Query != nil && *req.Query != "" && strings.Contains(subject, *req.Query) {
		t.Fatalf("subject %q holds the query", subject)
	}
	return a
}

// readSection reads a section back with read_documentation from its
// offset with its stamp, paged by a small limit, until its length is read.
func readSection(t *testing.T, r *Reader, s SearchSection) string {
	t.Helper()
	var b strings.Builder
	off, lim := s.Offset, 700
	for utf8.RuneCountInString(b.String()) < s.Length {
		stamp := s.Stamp
		a, _, err := r.ReadDocumentation(context.Background(), DocRequest{Page: str(s.Route), Paging: Paging{Offset: &off, Limit: &lim, Stamp: &stamp}})
		if err != nil {
			t.Fatalf("read %s@%d: %v", s.Route, off, err)
		}
		if a.Offset != off {
			t.Fatalf("read %s@%d starts at %d: the offset is no place a read starts", s.Route, off, a.Offset)
		}
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			break
		}
		off = *a.NextOffset
	}
	return textPrefix(b.String(), s.Length)
}

func textPrefix(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

// TestSearchDocumentationPack: every packed section is its page's text
// verbatim at its offset (read back through read_documentation with its
// stamp), led by its line, in the pack's text; the pack never passes the
// budget and used counts its code points; the same call answers the same
// bytes.
func TestSearchDocumentationPack(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	queries := []string{"how do I read a page by its route?", "error codes", "stamp offset continuation", "fenced code blocks", "search words", "limits", "product profile"}
	for _, q := range queries {
		for _, budget := range []int{500, 1200, 6000, 64000} {
			a := search(t, r, context.Background(), SearchRequest{Query: str(q), Budget: &budget})
			if got := utf8.RuneCountInString(a.Text); got != a.Used || a.Used > budget {
				t.Fatalf("%q budget %d: text %d code points, used %d", q, budget, got, a.Used)
			}
			if len(a.Sections) == 0 {
				t.Fatalf("%q: no section", q)
			}
			var want strings.Builder
			for i, s := range a.Sections {
				if i > 0 {
					want.WriteByte('\n')
				}
				body := readSection(t, r, s)
				want.WriteString(leadLine(s) + "\n" + body)
				if !strings.HasSuffix(body, "\n") {
					want.WriteByte('\n')
				}
			}
			if a.Text != want.String() {
				t.Fatalf("%q budget %d: the text is not the sections read back verbatim:\n%q\nwant\n%q", q, budget, clip(a.Text), clip(want.String()))
			}
			first, _ := json.Marshal(a)
			again, _ := json.Marshal(search(t, r, context.Background(), SearchRequest{Query: str(q), Budget: &budget}))
			fresh, _ := json.Marshal(search(t, sampleReader(t), context.Background(), SearchRequest{Query: str(q), Budget: &budget}))
			if string(first) != string(again) || string(first) != string(fresh) {
				t.Fatalf("%q: the same call answered other bytes", q)
			}
		}
	}
}

// TestSearchDocumentationFillsTheRest: where the best section that did
// not fit leaves at least fillMin code points of the budget, its start
// fills them, cut at a place a read starts (a later section shorter than
// the indexed one), and the pack stays within the budget.
func TestSearchDocumentationFillsTheRest(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	v, err := FromStore(sampleStore).Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	ix, err := sectionsOf(v)
	if err != nil {
		t.Fatal(err)
	}
	whole := map[[2]int]bool{}
	for _, e := range ix.secs {
		whole[[2]int{int(e.start), int(e.end)}] = true
	}
	filled := 0
	for _, q := range []string{"how do I read a page by its route?", "error codes", "stamp offset continuation", "fenced code blocks", "search words", "limits", "product profile"} {
		for _, budget := range []int{500, 800, 1200, 2000, 3000, 6000} {
			a := search(t, r, context.Background(), SearchRequest{Query: str(q), Budget: &budget})
			if a.Used > budget {
				t.Fatalf("%q budget %d: used %d", q, budget, a.Used)
			}
			for i, s := range a.Sections {
				if i > 0 && !whole[[2]int{s.Offset, s.Offset + s.Length}] {
					if i != len(a.Sections)-1 {
						t.Fatalf("%q budget %d: section %d of %d is cut; only the last may be", q, budget, i, len(a.Sections))
					}
					if got := readSection(t, r, s); utf8.RuneCountInString(got) != s.Length {
						t.Fatalf("%q budget %d: the filling section reads back %d code points, not %d", q, budget, utf8.RuneCountInString(got), s.Length)
					}
					filled++
				}
			}
		}
	}
	if filled == 0 {
		t.Fatal("no pack filled the rest of its budget with the start of a section that did not fit")
	}
	t.Logf("%d packs filled", filled)
}

// TestSearchDocumentationGatedTrees: a caller without blueprint's
// profile gets no blueprint section, named or collapsed; one with it does.
func TestSearchDocumentationGatedTrees(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	q := "blueprint files publishing limits"
	budget := 64000
	anon := search(t, r, context.Background(), SearchRequest{Query: str(q), Budget: &budget})
	for _, s := range anon.Sections {
		if s.Tree == "blueprint" || strings.HasPrefix(s.Route, "/blueprint/") {
			t.Fatalf("anonymous caller got %s", s.Route)
		}
		for _, o := range s.Also {
			if strings.HasPrefix(o, "/blueprint/") {
				t.Fatalf("anonymous caller got %s named", o)
			}
		}
	}
	if _, _, err := r.SearchDocumentation(context.Background(), SearchRequest{Query: str(q), Tree: str("blueprint")}); !isInvalid(err) || !strings.Contains(err.Error(), "not readable") {
		t.Fatalf("blueprint by name: %v", err)
	}
	ctx := tzctx.WithIdentity(context.Background(), tzctx.Identity{Credential: "0123456789ab", Account: "a", Profiles: []string{"blueprint"}})
	held := search(t, r, ctx, SearchRequest{Query: str(q), Budget: &budget})
	if !slices.ContainsFunc(held.Sections, func(s SearchSection) bool { return s.Tree == "blueprint" }) {
		t.Fatal("a holder of blueprint's profile got no blueprint section: the test proves nothing")
	}
}

// TestSearchDocumentationBounds: each bound is refused, the refusal
// naming the bound and never the query's words.
func TestSearchDocumentationBounds(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	long := strings.Repeat("canaryword ", 100)
	low, high := 499, 64001
	for _, c := range []struct {
		req  SearchRequest
		want string
	}{
		{SearchRequest{}, "query is required"},
		{SearchRequest{Query: str(long)}, "search query max length"},
		{SearchRequest{Query: str("canaryword"), Budget: &low}, "search budget min and max"},
		{SearchRequest{Query: str("canaryword"), Budget: &high}, "search budget min and max"},
		{SearchRequest{Query: str("canaryword"), Tree: str("nosuch")}, "not readable"},
	} {
		_, subject, err := r.SearchDocumentation(context.Background(), c.req)
		if !isInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want invalid_request naming %q", c.req, err, c.want)
		}
		if err != nil && strings.Contains(err.Error()+subject, "canaryword") {
			t.Errorf("refusal or subject holds the query's words: %v %q", err, subject)
		}
	}
	lim := 2000
	small := NewReader(Config{Limits: testLimits(), Search: SearchLimits{BudgetMax: lim}}, FromStore(sampleStore))
	over := lim + 1
	if _, _, err := small.SearchDocumentation(context.Background(), SearchRequest{Query: str("page"), Budget: &over}); err == nil || !strings.Contains(err.Error(), "500 through 2000") {
		t.Errorf("configured maximum: %v", err)
	}
	if a := search(t, small, context.Background(), SearchRequest{Query: str("page")}); a.Budget != lim {
		t.Errorf("default budget under a maximum of %d: %d", lim, a.Budget)
	}
}

func isInvalid(err error) bool {
	var te *tzctx.Error
	return errors.As(err, &te) && te.Code == tzctx.InvalidRequest
}
