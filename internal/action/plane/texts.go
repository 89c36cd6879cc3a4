package plane

import (
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Texts are the served texts of one site, filled for it: the contract set
// (the actions' descriptions and request schemas, as tools/list shows
// them) and its catalog (the overview, contracts, guides, skills and
// reference pages list_context lists and read_context reads). A server
// whose served trees follow the served version computes them per version.
type Texts struct {
	// Site is the site the texts describe: its public name and the trees
	// they name (nil for the contract's own).
	Site     schemas.Site
	Contract *schemas.Contract
	Catalog  *catalog.Catalog
}

// TextsOf returns the texts of site. The contract's own trees (site.Trees
// nil) are parsed once per name, as every server of the contract's trees
// shares them (schemas.LoadSite); any other site is parsed afresh and kept
// nowhere, for a caller that holds the texts of the version it serves.
func TextsOf(site schemas.Site) (*Texts, error) {
	if site.Name == "" {
		site.Name = schemas.DefaultSiteName
	}
	var c *schemas.Contract
	var err error
	if site.Trees == nil {
		c, err = schemas.LoadSite(site)
	} else {
		c, err = schemas.ParseSite(site)
	}
	if err != nil {
		return nil, err
	}
	cat, err := catalog.BuildSite(site, c)
	if err != nil {
		return nil, err
	}
	return &Texts{Site: site, Contract: c, Catalog: cat}, nil
}
