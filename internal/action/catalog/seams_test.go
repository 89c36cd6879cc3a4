package catalog_test

import (
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
)

// The catalog is what the reader lists and reads beside the documentation
// entries, and what the dispatcher gives the front ends (MCP's prompts).
var (
	_ query.ContractSet = (*catalog.Catalog)(nil)
	_ dispatch.Catalog  = (*catalog.Catalog)(nil)
)
