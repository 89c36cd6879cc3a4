// Package query answers the reads of the served-context plane: the
// documentation texts of read_documentation and read_context, paged by the
// contract's chunk rules, and word search with the contract's 3/2/1
// scoring over candidates from the version's n-gram index.
package query

import (
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/catalog"
	"github.com/turnzerocloud/tzctx/schemas"
)

// headingsFall is the contract's fixed threshold above which a page's
// headings fall to depth 2 alone; it is not configurable.
const headingsFall = 40

// Access says what identity reading a tree requires: "anonymous",
// "signed_in" or "product_profile:<name>".
type Access string

// Config configures the reader.
type Config struct {
	// Limits are the contract's bounds, from schemas.Load.
	Limits schemas.Limits
	// Origin is the estate's public origin, stripped from page values.
	Origin string
	// Access maps each tree to the identity reading it requires; a tree
	// not named is anonymous.
	Access map[string]Access
	// Catalog holds the contract set's entries; nil serves the
	// documentation entries alone.
	Catalog *catalog.Catalog
}

// DefaultAccess gates blueprint behind its product profile.
func DefaultAccess() map[string]Access {
	return map[string]Access{"cloud": "anonymous", "blueprint": "product_profile:blueprint", "tzdocs": "anonymous"}
}

// Readable returns the trees id may read, in tree order. It is the one
// predicate behind listing, reading and searching (ACB-L0-82's place).
func (c *Config) Readable(id tzctx.Identity) []string {
	var out []string
	for _, t := range tzctx.Trees {
		if c.mayRead(id, t) {
			out = append(out, t)
		}
	}
	return out
}

func (c *Config) mayRead(id tzctx.Identity, tree string) bool {
	a := c.Access[tree]
	switch {
	case a == "" || a == "anonymous":
		return true
	case a == "signed_in":
		return !id.Anonymous()
	case strings.HasPrefix(string(a), "product_profile:"):
		return id.HasProfile(strings.TrimPrefix(string(a), "product_profile:"))
	}
	return false
}

// readableList names trees for an error detail: "cloud and tzdocs".
func readableList(trees []string) string {
	switch len(trees) {
	case 0:
		return "none"
	case 1:
		return trees[0]
	}
	return strings.Join(trees[:len(trees)-1], ", ") + " and " + trees[len(trees)-1]
}

// ValidAccess reports whether a is a known access setting.
func ValidAccess(a Access) bool {
	return a == "anonymous" || a == "signed_in" || (strings.HasPrefix(string(a), "product_profile:") && len(a) > len("product_profile:"))
}
