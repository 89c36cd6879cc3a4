package query

import (
	"context"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/hold"
)

// DocRequest is a read_documentation request, members absent where nil.
type DocRequest struct {
	Tree  *string `json:"tree,omitempty"`
	Part  *string `json:"part,omitempty"`
	Page  *string `json:"page,omitempty"`
	Query *string `json:"query,omitempty"`
	Paging
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
	part := PartIndex
	if req.Part != nil {
		part = *req.Part
	}
	var drop []string
	switch {
	case req.Page != nil:
		if req.Query != nil {
			drop = append(drop, "query")
		}
		if part != PartIndex {
			drop = append(drop, "part")
		}
	case req.Query != nil && part != PartIndex:
		drop = append(drop, "part")
	}
	if len(drop) > 0 {
		kept := "page"
		if req.Page == nil {
			kept = "query"
		}
		return nil, docSubject(req, treeName(req.Tree)), tzctx.Errorf(tzctx.InvalidRequest, "%s excludes %s; drop %s", kept, strings.Join(drop, " and "), strings.Join(drop, " and "))
	}
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, docSubject(req, treeName(req.Tree)), err
	}

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
			if r.isTree(first) {
				tree = first
			}
		case req.Query != nil:
			return r.search(ctx, "", words, *req.Query, req.Paging, readable)
		}
		if tree == "" {
			return nil, docSubject(req, ""), tzctx.Errorf(tzctx.InvalidRequest, "name a tree: give tree, a page route that starts with a tree, or a query; this connection may read %s", readableList(r.servedOf(readable)))
		}
	}
	// 4. Visibility.
	if !contains(readable, tree) {
		return nil, docSubject(req, tree), tzctx.Errorf(tzctx.InvalidRequest, "tree %s is not readable by this connection%s; it may read %s", tree, r.whyNot(tree), readableList(r.servedOf(readable)))
	}
	if req.Query != nil {
		return r.search(ctx, tree, words, *req.Query, req.Paging, readable)
	}
	v, err := r.acquire()
	if err != nil {
		return nil, docSubject(req, tree), err
	}
	// Where the request holds the version until its answer is written,
	// the answer's text is the stored text itself, not a copy.
	borrow := hold.Keep(ctx, v)
	if !borrow {
		defer v.Release()
	}
	if req.Page == nil {
		_, txt, err := treeText(v, tree, part, partWhat(part), readable)
		if err != nil {
			return nil, partID(tree, part).String(), err
		}
		id := partID(tree, part).String()
		a, err := r.answer(read{t: txt, id: id, action: "read_documentation", selector: "the same tree, part and page", version: v.Name(), borrow: borrow}, req.Paging)
		return a, id, err
	}
	t := v.Tree(tree)
	if t == nil {
		return nil, docSubject(req, tree), noTree(v, tree, readable)
	}
	i, tried := resolvePage(t, tree, page)
	if i < 0 {
		return nil, docSubject(req, tree), tzctx.Errorf(tzctx.ContextNotFound, "no page %s in the %s manifest; routes take the form /%s/<path>/ as %s lists them", tried, tree, tree, partID(tree, PartIndex))
	}
	p := t.Pages()[i]
	pid := ContentID{Kind: KindPage, Tree: tree, Slug: p.Slug(tree)}.String()
	txt, err := t.Text(p.Route)
	if err != nil {
		return nil, pid, err
	}
	if txt == nil {
		return nil, pid, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the copy of %s", p.Route)
	}
	headings := func() ([]tzctx.Heading, error) { return t.Headings(p.Route) }
	a, err := r.answer(read{t: txt, id: pid, action: "read_documentation", selector: "the same tree, part and page", page: headings, isPage: true, version: v.Name(), borrow: borrow}, req.Paging)
	return a, pid, err
}

func treeName(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
