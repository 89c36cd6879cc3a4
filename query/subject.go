package query

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
)

// RefusedDocSubject is the record subject of a read_documentation call
// refused before its handler ran (a schema violation): the bare page or
// search marker, or the tree with its part, from the members that are
// well formed. It never holds a query's words or a page value. It knows
// the contract's trees (tzctx.DefaultTrees); Reader.RefusedDocSubject
// knows the configured ones.
func RefusedDocSubject(args map[string]any) string {
	return refusedDocSubject(args, func(t string) bool { return slices.Contains(tzctx.DefaultTrees, t) })
}

// RefusedDocSubject is the package's RefusedDocSubject over the trees r
// serves: a tree member names the subject's tree only where it is one.
func (r *Reader) RefusedDocSubject(args map[string]any) string {
	if r == nil {
		return RefusedDocSubject(args)
	}
	return refusedDocSubject(args, r.isTree)
}

func refusedDocSubject(args map[string]any, isTree func(string) bool) string {
	var req DocRequest
	if t, ok := args["tree"].(string); ok && isTree(t) {
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

// SubjectUnknownID is the record subject of a read_context call whose
// ID names no catalog entry: such an ID is the caller's free text, which
// may hold their words, so it is recorded nowhere (A-27's reading of
// unknown IDs).
const SubjectUnknownID = "(unknown id)"

// RefusedContextSubject is the record subject of a read_context call
// refused before its handler ran: the subject ContextSubject gives its ID
// where that is a string within the ID bound, else nothing.
func (r *Reader) RefusedContextSubject(args map[string]any, idMax int) string {
	if id, ok := args["id"].(string); ok && utf8.RuneCountInString(id) <= idMax {
		return r.ContextSubject(id)
	}
	return ""
}

// ContextSubject is the record subject of a read_context call for id: the
// ID itself where it names a catalog entry (the contract set's, or a
// tree's index or whole text, which read_context reads, whether or not
// this caller may read it); for a documentation ID read_context does not
// read, whose page slug or search digits may carry the caller's words
// its bare marker; for any other, SubjectUnknownID, never the ID
// as given.
func (r *Reader) ContextSubject(id string) string {
	if r.cfg.Catalog != nil {
		if _, ok := r.cfg.Catalog.Item(id); ok {
			return id
		}
	}
	cid, err := r.ParseID(id)
	switch {
	case err != nil:
		return SubjectUnknownID
	case cid.Listed():
		return id
	}
	return cid.Marker()
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
