package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/turnzerocloud/tzctx/store/sections"
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

// carriedSegment is a base version's index segment, whose documents
// keep numbers the version's index takes in.
type carriedSegment struct {
	path  string
	count uint64            // the segment's documents
	nums  map[string]uint32 // document name -> number
	keep  *roaring.Bitmap
}

// drop returns the numbers of the segment's documents not kept.
func (c *carriedSegment) drop() *roaring.Bitmap {
	all := roaring.New()
	all.AddRange(0, c.count)
	all.AndNot(c.keep)
	return all
}

// IndexRoute adds the page route of tree to the n-gram index, its
// document named by the two (routeDocID). A version's pages are each
// indexed once, by IndexRoute, by IndexPage or by ReusePage.
func (b *Builder) IndexRoute(tree, route string, g PageGrams) error {
	b.indexed++
	return b.index.add(routeDocID(tree, route), g)
}

// ReuseIndex opens base's index so that the version's index takes in,
// as base holds them, the documents of the pages ReusePage names, through
// the segment plugin's merge (which drops base's other documents),
// instead of deriving them again. It reports false, and nothing is taken,
// where base's documents are not all named by route (a version built
// before they were), where its index is not one segment, or where base's
// derivation rules are not rules. It checks ctx every carryCheck
// documents.
func (b *Builder) ReuseIndex(ctx context.Context, base *Version, rules int) (bool, error) {
	if b.index.carried != nil {
		return false, fmt.Errorf("a base's index is reused already")
	}
	if base.meta.Derivation != rules {
		return false, nil
	}
	path, err := indexSegment(filepath.Join(base.dir, indexDir))
	if err != nil {
		return false, nil
	}
	var nums map[string]uint32
	count, err := segmentDocIDs(path, func(count, num uint64, id string) error {
		if nums == nil {
			nums = make(map[string]uint32, count)
		}
		if num%carryCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, _, ok := splitRouteDocID(id); !ok {
			return errNotRouteNamed
		}
		nums[id] = uint32(num)
		return nil
	})
	if errors.Is(err, errNotRouteNamed) {
		return false, nil
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return false, cerr
		}
		return false, fmt.Errorf("the search index of the base %s: %w", base.meta.Name, err)
	}
	b.index.carried = []carriedSegment{{path: path, count: count, nums: nums, keep: roaring.New()}}
	return true, nil
}

// ReusePage takes base's index document of the page route of tree into
// the version's index, where ReuseIndex opened base's; it reports false
// where it did not (no base index, or no such document there), and the
// caller then indexes the page itself. The caller vouches that the
// document is what the page would be indexed as: the same title, copy
// and headings derived by the same rules.
func (b *Builder) ReusePage(tree, route string) bool {
	if len(b.index.carried) == 0 {
		return false
	}
	c := &b.index.carried[0]
	num, ok := c.nums[routeDocID(tree, route)]
	if !ok || c.keep.Contains(num) {
		return false
	}
	c.keep.Add(num)
	b.indexed++
	return true
}

// errNotRouteNamed ends ReuseIndex's read of a base's documents at the
// first not named by route.
var errNotRouteNamed = errors.New("an index document not named by route")

// carryCheck is how many of a base's index documents ReuseIndex reads
// between two checks of its context.
const carryCheck = 1024

// ReuseSections makes base's section index the source of the sections
// of the pages ReusePageSections names, which the version then takes as
// base holds them (renumbered) instead of deriving them again. It reports
// false, and nothing is taken, where base holds no section index or was
// derived by rules other than rules. It is called before any page is
// given.
func (b *Builder) ReuseSections(base *Version, rules int) (bool, error) {
	if base.meta.Derivation != rules || base.sections == nil {
		return false, nil
	}
	if b.sections != nil {
		return false, fmt.Errorf("a base's section index is given after pages")
	}
	tb := base.tx.Bucket(bucketSections).Bucket(sections.TermsKey)
	terms := func(yield func(term, postings []byte) bool) {
		c := tb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !yield(k, v) {
				return
			}
		}
	}
	b.newSections()
	if err := b.sections.UseBase(base.sections, terms); err != nil {
		return false, fmt.Errorf("the section index of the base %s: %w", base.meta.Name, err)
	}
	return true, nil
}

// ReusePageSections gives the next page of tree to the version's section
// index as the base given to ReuseSections holds its page of ordinal ord;
// text is the page's served text. The caller vouches that the page's
// title, text and headings are the base's page's, derived by the same
// rules. It is PutPageSections for a page whose sections are not derived
// again.
func (b *Builder) ReusePageSections(ctx context.Context, tree string, ord int, text string) error {
	if b.sections == nil {
		return fmt.Errorf("a page's sections are reused without a base's section index")
	}
	return b.sections.Reuse(ctx, tree, ord, text)
}
