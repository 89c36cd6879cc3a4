package query

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx"
)

// Kind is what a documentation content ID names.
type Kind uint8

// The kinds of documentation content ID (CTX-07 ¶3 and ¶9).
const (
	// KindPart names one of a tree's texts: docs:<tree> (its index),
	// docs:<tree>:full or docs:<tree>:outline.
	KindPart Kind = iota + 1
	// KindPage names a page's copy: docs:<tree>:page:<slug>.
	KindPage
	// KindSearch names a search answer: docs:<tree>:search:<digits>, or
	// docs::search:<digits> for a search of every tree the caller may read.
	KindSearch
)

// The parts of a tree, as read_documentation's part member and a KindPart
// ID name them.
const (
	PartIndex   = "index"
	PartFull    = "full"
	PartOutline = "outline"
)

// ErrInvalidID is the error, in the chain of ParseID's, of a string that
// is not a documentation content ID in the form the plane composes.
var ErrInvalidID = errors.New("not a documentation content ID")

// ContentID is a documentation content ID: the id of a read_documentation
// answer, and of the catalog's documentation entries that read_context
// reads. String composes it and ParseID reads it back; no other code
// builds or splits one.
type ContentID struct {
	Kind Kind
	// Tree is the tree read; empty only for a search of every tree the
	// caller may read.
	Tree string
	// Part is a KindPart ID's part: PartIndex, PartFull or PartOutline.
	Part string
	// Slug is a KindPage ID's page route without the tree's base path
	// and without slashes at either end; empty for the home page.
	Slug string
	// Search is a KindSearch ID's sixteen lower-case hexadecimal digits,
	// as SearchID gives them.
	Search string
}

// partID is the ID of a tree's part.
func partID(tree, part string) ContentID {
	return ContentID{Kind: KindPart, Tree: tree, Part: part}
}

// String returns the ID in its one written form.
func (id ContentID) String() string {
	base := "docs:" + id.Tree
	switch id.Kind {
	case KindPart:
		if id.Part == PartIndex {
			return base
		}
		return base + ":" + id.Part
	case KindPage:
		return base + ":page:" + id.Slug
	case KindSearch:
		return base + ":search:" + id.Search
	}
	return base
}

// Marker returns the record subject of a call of id's kind that names no
// page or words: the bare docs:<tree>:page or docs:<tree>:search marker
// the ID itself for a tree's part, and docs: for the zero
// ContentID, a call naming no tree.
func (id ContentID) Marker() string {
	switch id.Kind {
	case KindPage:
		return "docs:" + id.Tree + ":page"
	case KindSearch:
		return "docs:" + id.Tree + ":search"
	case KindPart:
		return id.String()
	}
	return "docs:"
}

// Listed reports whether the catalog lists id, so that read_context reads
// it: a tree's index or whole text. The outline, page and search
// IDs are read_documentation's alone.
func (id ContentID) Listed() bool {
	return id.Kind == KindPart && (id.Part == PartIndex || id.Part == PartFull)
}

// ParseID reads a documentation content ID of the contract's trees
// (tzctx.DefaultTrees) in the form String writes, and no other: ParseID(s)
// succeeds exactly where s is id.String() of the ID it returns. Its error
// wraps ErrInvalidID and never holds s. A reader reads the IDs of its
// configured trees with Reader.ParseID.
func ParseID(s string) (ContentID, error) {
	return parseID(s, func(t string) bool { return slices.Contains(tzctx.DefaultTrees, t) })
}

// ParseID reads a documentation content ID of a tree r serves, as the
// package's ParseID reads one of the contract's trees.
func (r *Reader) ParseID(s string) (ContentID, error) { return parseID(s, r.isTree) }

// parseID reads a documentation content ID whose tree isTree accepts.
func parseID(s string, isTree func(string) bool) (ContentID, error) {
	bad := func(why string) (ContentID, error) {
		return ContentID{}, fmt.Errorf("%w: %s", ErrInvalidID, why)
	}
	rest, ok := strings.CutPrefix(s, "docs:")
	if !ok {
		return bad("it does not start with docs:")
	}
	tree, suffix, hasSuffix := strings.Cut(rest, ":")
	if tree != "" && !isTree(tree) {
		return bad("it names no tree the plane serves")
	}
	kind, arg, hasArg := strings.Cut(suffix, ":")
	var id ContentID
	switch {
	case !hasSuffix:
		id = partID(tree, PartIndex)
	case suffix == PartFull || suffix == PartOutline:
		id = partID(tree, suffix)
	case kind == "page" && hasArg:
		if strings.HasPrefix(arg, "/") || strings.HasSuffix(arg, "/") {
			return bad("a page slug has no slash at either end")
		}
		id = ContentID{Kind: KindPage, Tree: tree, Slug: arg}
	case kind == "search" && hasArg:
		if !isSearchDigits(arg) {
			return bad("a search ID ends in sixteen lower-case hexadecimal digits")
		}
		id = ContentID{Kind: KindSearch, Tree: tree, Search: arg}
	default:
		return bad("its part is none of full, outline, page:<slug> or search:<digits>")
	}
	if tree == "" && id.Kind != KindSearch {
		return bad("only a search ID leaves the tree out")
	}
	return id, nil
}

// isSearchDigits reports whether s is sixteen lower-case hexadecimal digits.
func isSearchDigits(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
