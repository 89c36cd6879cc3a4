package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// Versions hands out the served version; *store.Store is one.
type Versions interface {
	Acquire() (*store.Version, error)
}

var _ Versions = (*store.Store)(nil)

// MimeMarkdown is the media type of every documentation text.
const MimeMarkdown = "text/markdown"

// Answer is the response of a text read: read_context's shape, plus
// headings on a page read's first chunk. Members are in the order
// A-19 fixes.
type Answer struct {
	ContractVersion int            `json:"contract_version"`
	Stamp           string         `json:"stamp"`
	Offset          int            `json:"offset"`
	Total           int            `json:"total"`
	NextOffset      *int           `json:"next_offset"`
	ID              string         `json:"id"`
	MimeType        string         `json:"mime_type"`
	Continuation    string         `json:"continuation,omitempty"`
	Headings        []HeadingEntry `json:"headings,omitempty"`
	Text            string         `json:"text"`
}

// HeadingEntry is one entry of a page read's headings.
type HeadingEntry struct {
	Text   string `json:"text"`
	Offset int    `json:"offset"`
}

// Paging holds the paging members every text read shares.
type Paging struct {
	Offset *int    `json:"offset,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	Stamp  *string `json:"stamp,omitempty"`
}

// DocRequest is a read_documentation request, members absent where nil.
type DocRequest struct {
	Tree  *string `json:"tree,omitempty"`
	Part  *string `json:"part,omitempty"`
	Page  *string `json:"page,omitempty"`
	Query *string `json:"query,omitempty"`
	Paging
}

// ContextRequest is a read_context request.
type ContextRequest struct {
	ID string `json:"id"`
	Paging
}

// Reader answers documentation reads from the served version.
type Reader struct {
	cfg      Config
	versions Versions
}

// NewReader returns a Reader over versions.
func NewReader(cfg Config, versions Versions) *Reader {
	if cfg.Access == nil {
		cfg.Access = DefaultAccess()
	}
	return &Reader{cfg: cfg, versions: versions}
}

// Config returns the reader's configuration.
func (r *Reader) Config() Config { return r.cfg }

// text is what paging needs of a text: its place table, its stamp and its
// code points.
type text interface {
	textmap.Layout
	Stamp() string
	Slice(begin, end int) string
}

var _ text = (*store.Text)(nil)

// memText is a text composed per call, such as a search answer.
type memText struct {
	*textmap.Map
	s     string
	stamp string
}

func newMemText(s string) *memText {
	sum := sha256.Sum256([]byte(s))
	return &memText{Map: textmap.Scan(s), s: s, stamp: hex.EncodeToString(sum[:])}
}

func (m *memText) Stamp() string               { return m.stamp }
func (m *memText) Slice(begin, end int) string { return textmap.Slice(m.s, begin, end) }

// read is one text to page, with what its answer names.
type read struct {
	t        text
	id       string
	action   string // read_documentation or read_context
	selector string // how the continuation names the call that reads on
	page     []tzctx.Heading
	isPage   bool
}

func (r *Reader) limit(p Paging) int {
	if p.Limit != nil {
		return *p.Limit
	}
	return r.cfg.Limits.TextDefaultLimit
}

// checkPaging runs the paging checks that come before tree resolution.
func checkPaging(p Paging) error {
	if p.Offset != nil && *p.Offset > 0 && p.Stamp == nil {
		return tzctx.Errorf(tzctx.InvalidRequest, "offset %d needs the stamp of the answer that gave it; send offset and stamp together, or read from offset 0 without a stamp", *p.Offset)
	}
	return nil
}

// answer pages rd per the request's paging: stamp match, offset range,
// chunk, continuation and headings.
func (r *Reader) answer(rd read, p Paging) (*Answer, error) {
	total := rd.t.Total()
	stamp := rd.t.Stamp()
	if p.Stamp != nil && *p.Stamp != stamp {
		return nil, tzctx.Errorf(tzctx.ContextChanged, "the text of %s has changed since that stamp; read again from offset 0 without a stamp", rd.id)
	}
	off := 0
	if p.Offset != nil {
		off = *p.Offset
	}
	if off > total {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "offset %d is past the end of %s, which holds %d code points", off, rd.id, total)
	}
	limit := r.limit(p)
	begin, end := textmap.Chunk(rd.t, off, limit)
	a := &Answer{ContractVersion: 1, Stamp: stamp, Offset: begin, Total: total, ID: rd.id, MimeType: MimeMarkdown, Text: rd.t.Slice(begin, end)}
	if end < total {
		n := end
		a.NextOffset = &n
	}
	whole := begin == 0 && end == total
	if whole {
		return a, nil
	}
	nav := ""
	if rd.isPage {
		var cut bool
		if begin == 0 && a.NextOffset != nil {
			a.Headings, cut = r.headings(rd.page)
		}
		switch {
		case cut:
			nav = " The headings list is cut; for a later section or a passage's words, use query."
		case a.Headings != nil:
			nav = " For a section, read from an offset in headings with this stamp; for a passage's words, use query."
		default:
			nav = " For a passage's words, use query."
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Read code points %d to %d of %d.", begin, end, total)
	if a.NextOffset != nil {
		fmt.Fprintf(&b, " To read on, call %s with %s, offset %d and stamp %s.", rd.action, rd.selector, end, stamp)
	} else {
		b.WriteString(" This chunk is the last.")
	}
	b.WriteString(nav)
	a.Continuation = b.String()
	return a, nil
}

// headings selects a page's headings entries: depth 2 and deeper,
// falling to depth 2 alone above 40, bounded in count and length. cut
// reports whether either bound cut the list.
func (r *Reader) headings(hs []tzctx.Heading) (out []HeadingEntry, cut bool) {
	sel := hs
	if len(hs) > headingsFall {
		sel = nil
		for _, h := range hs {
			if h.Depth == 2 {
				sel = append(sel, h)
			}
		}
	}
	if len(sel) == 0 {
		return nil, false
	}
	if n := r.cfg.Limits.HeadingsLimit; len(sel) > n {
		sel, cut = sel[:n], true
	}
	out = make([]HeadingEntry, len(sel))
	for i, h := range sel {
		t := h.Text
		if utf8.RuneCountInString(t) > r.cfg.Limits.HeadingMaxLength {
			t, cut = string([]rune(t)[:r.cfg.Limits.HeadingMaxLength]), true
		}
		out[i] = HeadingEntry{Text: t, Offset: h.Offset}
	}
	return out, cut
}

// acquire returns the served version, or context_unavailable.
func (r *Reader) acquire() (*store.Version, error) {
	v, err := r.versions.Acquire()
	if errors.Is(err, store.ErrNoVersion) {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "no site version is served yet; an operator ingests and activates one")
	}
	return v, err
}

// treeText loads one stored text, or context_unavailable.
func treeText(v *store.Version, tree, key, what string) (*store.Tree, *store.Text, error) {
	t := v.Tree(tree)
	if t == nil {
		return nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version has no %s tree", tree)
	}
	txt, err := t.Text(key)
	if err != nil {
		return nil, nil, err
	}
	if txt == nil {
		return nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the %s of the %s tree", what, tree)
	}
	return t, txt, nil
}

// ReadContext answers read_context for the documentation IDs it accepts
// docs:<tree> and docs:<tree>:full. It returns the record subject.
func (r *Reader) ReadContext(ctx context.Context, req ContextRequest) (*Answer, string, error) {
	subject := req.ID
	if err := checkPaging(req.Paging); err != nil {
		return nil, subject, err
	}
	tree, part, ok := parseDocID(req.ID)
	if !ok || !r.cfg.mayRead(tzctx.IdentityFrom(ctx), tree) {
		return nil, subject, tzctx.Errorf(tzctx.ContextNotFound, "no entry %q in the catalog; list_context lists the IDs read_context reads", req.ID)
	}
	v, err := r.acquire()
	if err != nil {
		return nil, subject, err
	}
	defer v.Release()
	_, txt, err := treeText(v, tree, part, partWhat(part))
	if err != nil {
		return nil, subject, err
	}
	a, err := r.answer(read{t: txt, id: req.ID, action: "read_context", selector: fmt.Sprintf("id %q", req.ID)}, req.Paging)
	return a, subject, err
}

// parseDocID splits a catalog documentation ID into tree and part.
func parseDocID(id string) (tree, part string, ok bool) {
	rest, found := strings.CutPrefix(id, "docs:")
	if !found {
		return "", "", false
	}
	tree, suffix, hasSuffix := strings.Cut(rest, ":")
	if !tzctx.IsTree(tree) {
		return "", "", false
	}
	switch {
	case !hasSuffix:
		return tree, "index", true
	case suffix == "full":
		return tree, "full", true
	}
	return "", "", false
}

func partWhat(part string) string {
	switch part {
	case "full":
		return "whole text"
	case "outline":
		return "outline"
	}
	return "index"
}

// docID composes the identifier of a tree's part.
func docID(tree, part string) string {
	if part == "index" {
		return "docs:" + tree
	}
	return "docs:" + tree + ":" + part
}

// ReadDocumentation answers read_documentation. It returns the record
// subject, which never holds a query's words.
func (r *Reader) ReadDocumentation(ctx context.Context, req DocRequest) (*Answer, string, error) {
	// 2. Input consistency: paging, then conflicts.
	if err := checkPaging(req.Paging); err != nil {
		return nil, docSubject(req, treeName(req.Tree)), err
	}
	var words []string
	if req.Query != nil {
		words = QueryWords(*req.Query)
		if len(words) == 0 {
			req.Query = nil // a wordless query reads as no query
		}
	}
	part := "index"
	if req.Part != nil {
		part = *req.Part
	}
	var drop []string
	switch {
	case req.Page != nil:
		if req.Query != nil {
			drop = append(drop, "query")
		}
		if part != "index" {
			drop = append(drop, "part")
		}
	case req.Query != nil && part != "index":
		drop = append(drop, "part")
	}
	if len(drop) > 0 {
		kept := "page"
		if req.Page == nil {
			kept = "query"
		}
		return nil, docSubject(req, treeName(req.Tree)), tzctx.Errorf(tzctx.InvalidRequest, "%s excludes %s; drop %s", kept, strings.Join(drop, " and "), strings.Join(drop, " and "))
	}
	id := tzctx.IdentityFrom(ctx)
	readable := r.cfg.Readable(id)

	// 3. Tree resolution.
	var page string
	if req.Page != nil {
		page = r.stripOrigin(*req.Page)
	}
	tree := treeName(req.Tree)
	if tree == "" {
		switch {
		case req.Page != nil:
			first, _, _ := strings.Cut(trimSlash(page), "/")
			if tzctx.IsTree(first) {
				tree = first
			}
		case req.Query != nil:
			return r.search(ctx, "", words, *req.Query, req.Paging, readable)
		}
		if tree == "" {
			return nil, docSubject(req, ""), tzctx.Errorf(tzctx.InvalidRequest, "name a tree: give tree, a page route that starts with a tree, or a query; this connection may read %s", readableList(readable))
		}
	}
	// 4. Visibility.
	if !r.cfg.mayRead(id, tree) {
		return nil, docSubject(req, tree), tzctx.Errorf(tzctx.InvalidRequest, "tree %s is not readable by this connection; it may read %s", tree, readableList(readable))
	}
	if req.Query != nil {
		return r.search(ctx, tree, words, *req.Query, req.Paging, readable)
	}
	v, err := r.acquire()
	if err != nil {
		return nil, docSubject(req, tree), err
	}
	defer v.Release()
	if req.Page == nil {
		_, txt, err := treeText(v, tree, part, partWhat(part))
		if err != nil {
			return nil, docID(tree, part), err
		}
		a, err := r.answer(read{t: txt, id: docID(tree, part), action: "read_documentation", selector: "the same tree, part and page"}, req.Paging)
		return a, docID(tree, part), err
	}
	t := v.Tree(tree)
	if t == nil {
		return nil, docSubject(req, tree), tzctx.Errorf(tzctx.ContextUnavailable, "the served site version has no %s tree", tree)
	}
	i, tried := resolvePage(t, tree, page)
	if i < 0 {
		return nil, docSubject(req, tree), tzctx.Errorf(tzctx.ContextNotFound, "no page %s in the %s manifest; routes take the form /%s/<path>/ as docs:%s lists them", tried, tree, tree, tree)
	}
	p := t.Pages[i]
	pid := "docs:" + tree + ":page:" + p.Slug(tree)
	txt, err := t.Text(p.Route)
	if err != nil {
		return nil, pid, err
	}
	if txt == nil {
		return nil, pid, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the copy of %s", p.Route)
	}
	hs, err := t.Headings(p.Route)
	if err != nil {
		return nil, pid, err
	}
	a, err := r.answer(read{t: txt, id: pid, action: "read_documentation", selector: "the same tree, part and page", page: hs, isPage: true}, req.Paging)
	return a, pid, err
}

func treeName(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// RefusedDocSubject is the record subject of a read_documentation call
// refused before its handler ran (a schema violation): the bare page or
// search marker, or the tree with its part, from the members that are
// well formed. It never holds a query's words or a page value.
func RefusedDocSubject(args map[string]any) string {
	var req DocRequest
	if t, ok := args["tree"].(string); ok && tzctx.IsTree(t) {
		req.Tree = &t
	}
	if _, ok := args["page"]; ok {
		req.Page = new(string)
	}
	switch q := args["query"].(type) {
	case nil:
	case string:
		if len(strings.Fields(q)) > 0 {
			req.Query = new(string)
		}
	default:
		req.Query = new(string)
	}
	if p, ok := args["part"].(string); ok && (p == "index" || p == "full" || p == "outline") {
		req.Part = &p
	}
	return docSubject(req, treeName(req.Tree))
}

// RefusedContextSubject is the record subject of a read_context call
// refused before its handler ran: the ID as given where it is a string
// within the ID bound, else nothing.
func RefusedContextSubject(args map[string]any, idMax int) string {
	if id, ok := args["id"].(string); ok && utf8.RuneCountInString(id) <= idMax {
		return id
	}
	return ""
}

// docSubject is the record subject of a refused read_documentation call:
// the bare page or search marker, or the tree with its part.
func docSubject(req DocRequest, tree string) string {
	switch {
	case req.Page != nil:
		return "docs:" + tree + ":page"
	case req.Query != nil:
		return "docs:" + tree + ":search"
	case tree == "":
		return "docs:"
	}
	part := "index"
	if req.Part != nil {
		part = *req.Part
	}
	return docID(tree, part)
}

// stripOrigin removes the public origin from a page value (A-08 step 2).
func (r *Reader) stripOrigin(page string) string {
	o := r.cfg.Origin
	if o != "" && strings.HasPrefix(page, o) && (len(page) == len(o) || page[len(o)] == '/') {
		return page[len(o):]
	}
	return page
}

// resolvePage finds the page a value names in tree (A-08 step 4): first as
// the index prints it, then as a route without the base path. It returns
// the manifest position, or -1 with the value read in the manifest's form
// (the first reading), for the detail.
func resolvePage(t *store.Tree, tree, page string) (int, string) {
	rest := trimSlash(page)
	var cands []string
	if first, rem, _ := strings.Cut(rest, "/"); first == tree {
		cands = append(cands, routeFrom(tree, rem))
	}
	cands = append(cands, routeFrom(tree, rest))
	for _, c := range cands {
		if i := t.PageIndex(c); i >= 0 {
			return i, c
		}
	}
	return -1, cands[0]
}

// trimSlash removes one leading and one trailing slash: "//x" keeps a
// slash and so names no route (A-08: no collapsing of "//").
func trimSlash(s string) string {
	s = strings.TrimPrefix(s, "/")
	return strings.TrimSuffix(s, "/")
}

func routeFrom(tree, rest string) string {
	if rest == "" {
		return "/" + tree + "/"
	}
	return "/" + tree + "/" + rest + "/"
}
