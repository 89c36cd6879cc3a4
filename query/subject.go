package query

import (
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
)

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
	if p, ok := args["part"].(string); ok && (p == PartIndex || p == PartFull || p == PartOutline) {
		req.Part = &p
	}
	return docSubject(req, treeName(req.Tree))
}

// RefusedContextSubject is the record subject of a read_context call
// refused before its handler ran: the ID as given where it is a string
// within the ID bound, else nothing.
func RefusedContextSubject(args map[string]any, idMax int) string {
	if id, ok := args["id"].(string); ok && utf8.RuneCountInString(id) <= idMax {
		return contextSubject(id)
	}
	return ""
}

// contextSubject is the record subject of a read_context call for id: the
// ID itself, but for a documentation ID read_context does not read (a
// page's or a search's, whose slug or digits may carry the caller's words,
// A-27) its bare marker.
func contextSubject(id string) string {
	if cid, err := ParseID(id); err == nil && !cid.Listed() {
		return cid.Marker()
	}
	return id
}

// docSubject is the record subject of a refused read_documentation call:
// the bare page or search marker, or the tree with its part.
func docSubject(req DocRequest, tree string) string {
	switch {
	case req.Page != nil:
		return ContentID{Kind: KindPage, Tree: tree}.Marker()
	case req.Query != nil:
		return ContentID{Kind: KindSearch, Tree: tree}.Marker()
	case tree == "":
		return ContentID{}.Marker()
	}
	part := PartIndex
	if req.Part != nil {
		part = *req.Part
	}
	return partID(tree, part).String()
}
