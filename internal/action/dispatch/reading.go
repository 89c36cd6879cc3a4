package dispatch

import (
	"context"
	"iter"
	"maps"
	"slices"

	"github.com/turnzerocloud/tzctx"
)

// Chunk is one chunk of a paged text answer (read_context,
// read_documentation) as a front end that reads a text whole takes it
// from Call's result: typed, so no chunk is encoded and decoded again on
// its way. The reader's answer is one.
type Chunk interface {
	// Chunk returns the chunk's text and media type, and the stamp and
	// offset that continue the read; next is nil at the text's end.
	Chunk() (text, mimeType, stamp string, next *int)
}

// TextChunk is a Chunk with every member an agent acts on, as a front end
// that shows the answer as text (MCP's text content) takes it: typed, so
// that the text is made without the answer's JSON. The reader's answer
// is one.
type TextChunk interface {
	Chunk
	// ChunkPlace returns the text's ID, the chunk's first code point, the
	// text's code points and the continuation, "" where there is none.
	ChunkPlace() (id string, offset, total int, continuation string)
	// HeadingLines returns the answer's headings entries in order, each
	// its offset and text; none where it lists none.
	HeadingLines() iter.Seq2[int, string]
}

// CatalogPage is one page of list_context's answer, as Chunk is one
// chunk of a text. The reader's catalog answer is one.
type CatalogPage interface {
	// CatalogPage returns the page's entries, and the stamp and offset
	// of the next page; next is nil at the catalog's end.
	CatalogPage() (entries []tzctx.CatalogEntry, stamp string, next *int)
}

// PlacedCatalogPage is a CatalogPage that tells where it stands in the
// catalog, as a front end that shows the page as text takes it. The
// reader's catalog answer is one.
type PlacedCatalogPage interface {
	CatalogPage
	// PagePlace returns the page's first entry's offset and the
	// catalog's entries.
	PagePlace() (offset, total int)
}

// EntrySizer is a CatalogPage that can tell each entry's size, in bytes
// of its UTF-8 text, -1 where unknown; a front end listing entries as
// resources states it. The reader's catalog answer is one.
type EntrySizer interface {
	EntrySizes() []int64
}

// Trees says which documentation trees a caller can read now: those its
// access allows that the served version holds, in tree order. The reader
// is one.
type Trees interface {
	Trees(ctx context.Context) ([]string, error)
}

// TreeNames names every configured tree, whatever the caller or the
// version, in order: the trees a request's tree member may name. The
// reader is one; a Trees without it serves the contract's trees.
type TreeNames interface {
	TreeNames() []string
}

// Trees returns the documentation trees the caller of ctx (its identity,
// tzctx.IdentityFrom) can read in the served version, for a front end
// that lists them (MCP's tool schema); all of them (TreeNames) where
// the dispatcher was given no Trees (WithTrees).
func (d *Dispatcher) Trees(ctx context.Context) ([]string, error) {
	if d.trees == nil {
		return d.TreeNames(), nil
	}
	return d.trees.Trees(ctx)
}

// TreeNames returns every configured tree in order: the Trees' TreeNames
// where it has them, else the contract's (tzctx.DefaultTrees).
func (d *Dispatcher) TreeNames() []string {
	if n, ok := d.trees.(TreeNames); ok {
		return n.TreeNames()
	}
	return append([]string(nil), tzctx.DefaultTrees...)
}

// TreeText is what the configuration says of a documentation tree
// beside its name: its title and its one-line description, either
// possibly empty (the contract's trees, by default, have neither).
type TreeText struct {
	Title       string
	Description string
}

// TreeTitles gives the title a tree is served under where the
// configuration gives none (a tree of the served version a reader serves
// unlisted, or a listed one without a title): "" where it has none to
// add. The reader is one.
type TreeTitles interface {
	TreeTitle(tree string) string
}

// TreeText returns what the configuration says of tree beside its name,
// its title where it gives none that the Trees' TreeTitle gives; the
// zero TreeText where neither says anything.
func (d *Dispatcher) TreeText(tree string) TreeText {
	t := d.treeTexts[tree]
	if tt, ok := d.trees.(TreeTitles); ok && t.Title == "" {
		t.Title = tt.TreeTitle(tree)
	}
	return t
}

// withTreeEnum returns request with the enumeration of its tree member,
// where it has one, listing names, the configured trees: the contract's
// schema lists the contract's trees, and a server serving others takes
// their names in the same member. Where names are the enumeration's, the
// request is returned as it is, so the contract's trees serve the
// contract's schema byte for byte.
func withTreeEnum(request map[string]any, names []string) map[string]any {
	props, _ := request["properties"].(map[string]any)
	tree, _ := props["tree"].(map[string]any)
	enum, ok := tree["enum"].([]any)
	if !ok || slices.Equal(enum, toAny(names)) {
		return request
	}
	req := maps.Clone(request)
	props = maps.Clone(props)
	tree = maps.Clone(tree)
	tree["enum"] = toAny(names)
	props["tree"] = tree
	req["properties"] = props
	return req
}

// hasTreeEnum reports whether request has a tree member with an
// enumeration: the configured trees, after withTreeEnum.
func hasTreeEnum(request map[string]any) bool {
	props, _ := request["properties"].(map[string]any)
	tree, _ := props["tree"].(map[string]any)
	_, ok := tree["enum"].([]any)
	return ok
}

func toAny(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}
