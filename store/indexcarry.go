package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// routeDocID names the index document of the page route of tree. Tree
// names hold no colon and start with a letter (tzctx.CheckTreeName), so
// the name is told from a version-wide ordinal, which versions built
// before it name their documents by, and split back at its first colon.
// Named so, a page's document keeps its name in a version built on this
// one whatever the pages before it, so its base's index can be merged in.
func routeDocID(tree, route string) string { return tree + ":" + route }

// splitRouteDocID returns the tree and route a routeDocID names; false
// for an ordinal.
func splitRouteDocID(id string) (tree, route string, ok bool) {
	if id == "" || id[0] < 'a' || id[0] > 'z' {
		return "", "", false
	}
	return strings.Cut(id, ":")
}

// carriedSegment is a base version's index segment that the version's
// index takes in, less the documents drop numbers.
type carriedSegment struct {
	path string
	drop *roaring.Bitmap
}

// IndexRoute adds the page route of tree to the n-gram index, its
// document named by the two (routeDocID). A version's pages are each
// indexed once, by IndexRoute, by IndexPage or by CarryIndex.
func (b *Builder) IndexRoute(tree, route string, g PageGrams) error {
	b.indexed++
	return b.index.add(routeDocID(tree, route), g)
}

// CarryIndex takes the documents of base's trees carry into the
// version's n-gram index as base holds them, through the segment
// plugin's merge (which drops the base's other documents), instead of
// deriving them again. It returns how many pages it took: every page of
// the trees carry, or none where base's documents are not all named by
// route (a version built before they were), where its index is not one
// segment, or where base's derivation rules are not rules: then the
// caller indexes the pages itself. It checks ctx every carryCheck
// documents.
func (b *Builder) CarryIndex(ctx context.Context, base *Version, carry []string, rules int) (int, error) {
	if b.index.carried != nil {
		return 0, fmt.Errorf("a base's index is carried already")
	}
	if base.meta.Derivation != rules || len(carry) == 0 {
		return 0, nil
	}
	path, err := partSegment(filepath.Join(base.dir, indexDir))
	if err != nil {
		return 0, nil
	}
	seg, err := indexPlugin.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open the search index of the base %s: %w", base.meta.Name, err)
	}
	defer seg.Close()
	want := map[string]int{}
	for _, name := range carry {
		t := base.trees[name]
		if t == nil {
			return 0, fmt.Errorf("the base %s has no tree %s", base.meta.Name, name)
		}
		want[name] = len(t.Pages)
	}
	drop := roaring.New()
	got := map[string]int{}
	kept := 0
	for num := range seg.Count() {
		if num%carryCheck == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		id, err := seg.DocID(num)
		if err != nil {
			return 0, fmt.Errorf("the search index of the base %s: %w", base.meta.Name, err)
		}
		tree, route, ok := splitRouteDocID(string(id))
		if !ok {
			return 0, nil
		}
		if _, carried := want[tree]; !carried {
			drop.Add(uint32(num))
			continue
		}
		if _, ok := base.trees[tree].byRoute[route]; !ok {
			return 0, fmt.Errorf("the search index of the base %s holds unknown document %q", base.meta.Name, id)
		}
		got[tree]++
		kept++
	}
	for name, n := range want {
		if got[name] != n {
			return 0, fmt.Errorf("the search index of the base %s holds %d pages of tree %s, which has %d", base.meta.Name, got[name], name, n)
		}
	}
	b.index.carried = []carriedSegment{{path: path, drop: drop}}
	b.indexed += kept
	return kept, nil
}

// carryCheck is how many of a base's index documents CarryIndex reads
// between two checks of its context.
const carryCheck = 1024
