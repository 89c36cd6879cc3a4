package query

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// SearchRequest is a search_documentation request, members absent where
// nil.
type SearchRequest struct {
	Query  *string `json:"query,omitempty"`
	Tree   *string `json:"tree,omitempty"`
	Budget *int    `json:"budget,omitempty"`
}

// SearchLimits are the bounds of search_documentation; zero members take
// their defaults (DefaultSearchLimits).
type SearchLimits struct {
	// QueryMaxLength is the most code points a query holds.
	QueryMaxLength int
	// BudgetDefault is the budget of a request that gives none.
	BudgetDefault int
	// BudgetMin and BudgetMax bound a request's budget.
	BudgetMin, BudgetMax int
}

// The defaults of SearchLimits. The query bound and the budget's least
// value are the contract's (schemas/action_payloads.json); the budget's
// most is configured (tzctx serve --search-budget-max).
const (
	SearchQueryMaxLength = 1000
	SearchBudgetDefault  = 6000
	SearchBudgetMin      = 500
	SearchBudgetMax      = 64000
)

// withDefaults returns l with every zero member set to its default.
func (l SearchLimits) withDefaults() SearchLimits {
	if l.QueryMaxLength <= 0 {
		l.QueryMaxLength = SearchQueryMaxLength
	}
	if l.BudgetMin <= 0 {
		l.BudgetMin = SearchBudgetMin
	}
	if l.BudgetMax <= 0 {
		l.BudgetMax = SearchBudgetMax
	}
	if l.BudgetDefault <= 0 {
		l.BudgetDefault = SearchBudgetDefault
	}
	l.BudgetDefault = min(l.BudgetDefault, l.BudgetMax)
	return l
}

// Packing's bounds: the most ranked sections packing considers, how
// many more it tries once one did not fit, the share of the budget a
// first section that alone passes it is cut to, so that the next best
// sections still fit beside it, and the fewest code points of the
// budget's rest that packing fills with the start of the best section
// that did not fit.
const (
	cutShare       = 0.7
	packConsidered = 50
	packTries      = 10
	fillMin        = 200
)

// SearchAnswer is the answer of search_documentation.
type SearchAnswer struct {
	// Version is the served version's name, Created when it was built
	// (RFC 3339, UTC; empty where the layout does not say).
	Version string `json:"version"`
	Created string `json:"created"`
	// Budget is the most code points Text may hold; Used how many it does.
	Budget int `json:"budget"`
	Used   int `json:"used"`
	// Sections are the packed sections, best first.
	Sections []SearchSection `json:"sections"`
	// Text is the packed sections, each led by one line naming it.
	Text string `json:"text"`
	// Continuation says how to read on.
	Continuation string `json:"continuation"`
}

// Served tells the call's record the version the answer was read from
// and the code points of its text, as a page read's answer does.
func (a *SearchAnswer) Served() (version string, codePoints int) { return a.Version, a.Used }

// SearchSection is one packed section: where it is in its page's served
// text, in code points, so that read_documentation with its route as
// page, its offset and its stamp reads it.
type SearchSection struct {
	Tree    string   `json:"tree"`
	Route   string   `json:"route"`
	Title   string   `json:"title"`
	Heading []string `json:"heading"`
	Anchor  string   `json:"anchor"`
	Offset  int      `json:"offset"`
	Length  int      `json:"length"`
	Stamp   string   `json:"stamp"`
	Score   float64  `json:"score"`
	// Also names, as route#anchor, the other places whose text is this
	// section's, in trees the caller may read.
	Also []string `json:"also,omitempty"`
}

// SearchSubject is the record subject of every search_documentation
// call: the bare search marker of its tree, never the query's words
//
func SearchSubject(tree string) string { return ContentID{Kind: KindSearch, Tree: tree}.Marker() }

// SearchDocumentation answers search_documentation: the sections of the
// trees the caller may read (or of tree) best for the query, packed into
// the budget. It returns the record subject, which never holds the
// query's words.
func (r *Reader) SearchDocumentation(ctx context.Context, req SearchRequest) (*SearchAnswer, string, error) {
	lim := r.cfg.Search
	if lim.QueryMaxLength == 0 {
		lim.QueryMaxLength = r.cfg.Limits.SearchQueryMaxLength
	}
	if lim.BudgetMin == 0 {
		lim.BudgetMin = r.cfg.Limits.SearchBudgetMin
	}
	if lim.BudgetDefault == 0 {
		lim.BudgetDefault = r.cfg.Limits.SearchBudgetDefault
	}
	lim = lim.withDefaults()
	tree := treeName(req.Tree)
	subject := SearchSubject("")
	if tree != "" && r.isTree(tree) {
		subject = SearchSubject(tree)
	}
	if req.Query == nil {
		return nil, subject, tzctx.Errorf(tzctx.InvalidRequest, "query is required: give a question or a few words")
	}
	if n := utf8.RuneCountInString(*req.Query); n > lim.QueryMaxLength {
		return nil, subject, tzctx.Errorf(tzctx.InvalidRequest, "query holds %d code points, over the bound of %d (search query max length); shorten it", n, lim.QueryMaxLength)
	}
	budget := lim.BudgetDefault
	if req.Budget != nil {
		budget = *req.Budget
		if budget < lim.BudgetMin || budget > lim.BudgetMax {
			return nil, subject, tzctx.Errorf(tzctx.InvalidRequest, "budget %d is outside the bounds %d through %d (search budget min and max); give a budget within them", budget, lim.BudgetMin, lim.BudgetMax)
		}
	}
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, subject, err
	}
	if tree != "" && !contains(readable, tree) {
		return nil, subject, tzctx.Errorf(tzctx.InvalidRequest, "tree %s is not readable by this connection%s; it may read %s", tree, r.whyNot(tree), readableList(r.servedOf(readable)))
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	names := v.TreeNames()
	var scope []int
	for i, name := range names {
		if (tree == "" && contains(readable, name)) || name == tree {
			scope = append(scope, i)
		}
	}
	if len(scope) == 0 {
		if tree != "" {
			return nil, subject, noTree(v, tree, readable)
		}
		return nil, subject, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version holds none of the trees this connection may read")
	}
	ix, err := sectionsOf(v)
	if err != nil {
		return nil, subject, err
	}
	ranked, matched, err := ix.rank(ctx, scope, ix.queryTerms(*req.Query), packConsidered*4)
	if err != nil {
		return nil, subject, err
	}
	a, err := r.pack(v, ix, names, scope, ranked, budget)
	if err != nil {
		return nil, subject, err
	}
	a.Continuation = continuation(len(a.Sections), matched, budget, lim.BudgetMax)
	return a, subject, err
}

// pack composes the answer: ranked sections, duplicates collapsed to
// the first, packed whole best first while they fit the budget, trying
// packTries more once one does not, and the first cut at the last place
// a reader can stop where it alone passes the budget. Where at least
// fillMin code points of the budget are left, the best section that did
// not fit fills them, cut at the last place a reader can stop.
func (r *Reader) pack(v Version, ix *secIndex, names []string, scope []int, ranked []scoredSection, budget int) (*SearchAnswer, error) {
	a := &SearchAnswer{Version: v.Name(), Budget: budget, Sections: []SearchSection{}}
	if c, ok := v.(interface{ Created() time.Time }); ok && !c.Created().IsZero() {
		a.Created = c.Created().UTC().Format(time.RFC3339)
	}
	inScope := make([]bool, len(names))
	for _, t := range scope {
		inScope[t] = true
	}
	ps := &pages{v: v, names: names, byOrd: map[int32]*packPage{}}
	var b strings.Builder
	collapsed := map[int32]int{} // dup group -> its packed section's index, -1 where skipped
	considered, tries := 0, 0
	add := func(c scoredSection, s SearchSection, lead, body string, sep, size int) error {
		e := ix.secs[c.sec]
		if g := ix.group(e.dup); g != nil {
			for _, o := range g {
				oe := ix.secs[o]
				if o == c.sec || !inScope[oe.tree] {
					continue
				}
				route, anchor, err := ps.place(oe)
				if err != nil {
					return err
				}
				s.Also = append(s.Also, route+anchorSuffix(anchor))
			}
		}
		collapsed[e.dup] = len(a.Sections)
		if sep == 1 {
			b.WriteByte('\n')
		}
		b.WriteString(lead + "\n" + body)
		if trailingNewline(body) == 1 {
			b.WriteByte('\n')
		}
		a.Used += size
		a.Sections = append(a.Sections, s)
		return nil
	}
	fill := -1 // the best section that did not fit, to fill the rest with
	for ci, c := range ranked {
		e := ix.secs[c.sec]
		if _, ok := collapsed[e.dup]; ok {
			continue // its group's first is packed, or did not fit
		}
		if considered == packConsidered || tries > packTries {
			break
		}
		considered++
		s, body, err := ps.section(ix, c)
		if err != nil {
			return nil, err
		}
		lead := leadLine(s)
		sep := 0
		if b.Len() > 0 {
			sep = 1
		}
		size := sep + utf8.RuneCountInString(lead) + 1 + utf8.RuneCountInString(body) + trailingNewline(body)
		switch {
		case a.Used+size <= budget:
		case len(a.Sections) == 0:
			lead = fitLead(s, budget/2)
			avail := int(float64(budget)*cutShare) - utf8.RuneCountInString(lead) - 1
			n := cutSection(ps.byOrd[e.ord].txt, s, avail)
			s.Length = n
			body = textmap.Slice(body, 0, n)
			size = utf8.RuneCountInString(lead) + 1 + n + trailingNewline(body)
			if size > budget {
				continue // a lead line too long for any budget; never over it
			}
		default:
			tries++
			collapsed[e.dup] = -1
			if fill < 0 {
				fill = ci
			}
			continue
		}
		if err := add(c, s, lead, body, sep, size); err != nil {
			return nil, err
		}
	}
	if fill >= 0 {
		c := ranked[fill]
		s, body, err := ps.section(ix, c)
		if err != nil {
			return nil, err
		}
		lead := leadLine(s)
		avail := budget - a.Used - 1 - utf8.RuneCountInString(lead) - 1 - 1
		if avail >= fillMin {
			n := cutSection(ps.byOrd[ix.secs[c.sec].ord].txt, s, avail)
			s.Length = n
			body = textmap.Slice(body, 0, n)
			size := 1 + utf8.RuneCountInString(lead) + 1 + n + trailingNewline(body)
			if a.Used+size <= budget {
				if err := add(c, s, lead, body, 1, size); err != nil {
					return nil, err
				}
			}
		}
	}
	a.Text = b.String()
	return a, nil
}

// continuation says how to read on from an answer's packed sections,
// of matched; it names nothing of the query.
func continuation(packed, matched, budget, budgetMax int) string {
	if packed == 0 {
		return "No section matched the query's words. Try other words, or read_documentation with query for exact words and names."
	}
	s := "Each section is its page's served text from offset for length code points. Read on from one with read_documentation: page set to its route, offset to its offset plus length, stamp to its stamp."
	if matched > packed {
		s += " " + strconv.Itoa(matched) + " sections matched the query's words; the best that fit the budget of " + strconv.Itoa(budget) + " code points are packed"
		if budget < budgetMax {
			s += "; ask again with a larger budget (at most " + strconv.Itoa(budgetMax) + ") for more"
		}
		s += "."
	}
	return s
}

func trailingNewline(body string) int {
	if strings.HasSuffix(body, "\n") {
		return 0
	}
	return 1
}

func anchorSuffix(anchor string) string {
	if anchor == "" {
		return ""
	}
	return "#" + anchor
}

// leadLine is the line a section's text is led by in the pack: the
// page's title, its heading path and route#anchor.
func leadLine(s SearchSection) string {
	name := s.Title
	for _, h := range s.Heading {
		name += " › " + h
	}
	return "[" + name + "](" + s.Route + anchorSuffix(s.Anchor) + ")"
}

// fitLead is a section's lead line in at most most code points: the
// whole line where it fits, else the page's title alone with the
// route#anchor, the title cut where that is still too long.
func fitLead(s SearchSection, most int) string {
	if l := leadLine(s); utf8.RuneCountInString(l) <= most {
		return l
	}
	target := "](" + s.Route + anchorSuffix(s.Anchor) + ")"
	room := max(most-utf8.RuneCountInString(target)-1, 0)
	return "[" + textmap.Slice(s.Title, 0, room) + target
}

// packPage is what packing reads of one page, read once per call.
type packPage struct {
	page    tzctx.Page
	txt     Text
	hs      []tzctx.Heading
	anchors []string
}

// pages reads the pages of one call's sections, each once.
type pages struct {
	v     Version
	names []string
	byOrd map[int32]*packPage
}

// of returns the page of an indexed section.
func (ps *pages) of(e secEntry) (*packPage, error) {
	if p, ok := ps.byOrd[e.ord]; ok {
		return p, nil
	}
	t := ps.v.Tree(ps.names[e.tree])
	pg := t.Pages()[int(e.ord)-t.First()]
	txt, err := t.Text(pg.Route)
	if err != nil {
		return nil, err
	}
	if txt == nil {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the copy of %s", pg.Route)
	}
	hs, err := t.Headings(pg.Route)
	if err != nil {
		return nil, err
	}
	p := &packPage{page: pg, txt: txt, hs: hs, anchors: pageAnchors(hs)}
	ps.byOrd[e.ord] = p
	return p, nil
}

// place returns the route and anchor of an indexed section.
func (ps *pages) place(e secEntry) (route, anchor string, err error) {
	p, err := ps.of(e)
	if err != nil {
		return "", "", err
	}
	if e.head < 0 {
		return p.page.Route, "", nil
	}
	return p.page.Route, p.anchors[e.head], nil
}

// pageAnchors returns the anchors of a page's headings, as its outline
// gives them.
func pageAnchors(hs []tzctx.Heading) []string {
	th := make([]textmap.Heading, len(hs))
	for i, h := range hs {
		th[i] = textmap.Heading{Depth: h.Depth, Text: h.Text, Offset: h.Offset, Anchor: h.Anchor}
	}
	return textmap.Anchors(th)
}

// section returns the answer's entry of a ranked section and its text.
func (ps *pages) section(ix *secIndex, c scoredSection) (SearchSection, string, error) {
	e := ix.secs[c.sec]
	p, err := ps.of(e)
	if err != nil {
		return SearchSection{}, "", err
	}
	s := SearchSection{
		Tree: ps.names[e.tree], Route: p.page.Route, Title: p.page.Title, Heading: []string{},
		Offset: int(e.start), Length: int(e.end - e.start), Stamp: p.txt.Stamp(),
		Score: math.Round(c.score*1e4) / 1e4,
	}
	for _, i := range headingPath(p.hs, int(e.head)) {
		s.Heading = append(s.Heading, p.hs[i].Text)
	}
	if e.head >= 0 {
		s.Anchor = p.anchors[e.head]
	}
	return s, p.txt.Slice(int(e.start), int(e.end)), nil
}

// cutSection returns how many code points of a section too long for the
// budget the pack holds: up to the last place a reader can stop (a line
// start outside fenced code) within avail code points, else the last
// line start, else avail itself.
func cutSection(txt Text, s SearchSection, avail int) int {
	avail = max(avail, 1)
	end := s.Offset + avail
	if p := txt.LastBaseAtOrBefore(end); p > s.Offset {
		return p - s.Offset
	}
	if p, ok := txt.LastLineStartIn(s.Offset, end); ok {
		return p - s.Offset
	}
	return avail
}

// TextMembers returns what an MCP text content holds of the answer: its
// text, then its members one a line (contracts/choices/mcp.md#ch-mcp,
// "Text content"): version, created, budget, used, continuation, then one
// line per section, best first, naming where to read it.
func (a *SearchAnswer) TextMembers() (string, []string) {
	m := []string{
		"version: " + a.Version,
		"created: " + a.Created,
		"budget: " + strconv.Itoa(a.Budget),
		"used: " + strconv.Itoa(a.Used),
		"continuation: " + a.Continuation,
		"sections (route#anchor: offset, length, stamp, score; read on with read_documentation from offset plus length with this stamp):",
	}
	for _, s := range a.Sections {
		m = append(m, s.Route+anchorSuffix(s.Anchor)+": offset "+strconv.Itoa(s.Offset)+", length "+strconv.Itoa(s.Length)+", stamp "+s.Stamp+", score "+strconv.FormatFloat(s.Score, 'f', -1, 64))
	}
	return a.Text, m
}
