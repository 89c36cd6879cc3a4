package catalog_test

import (
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/query"
)

// The catalog is what the reader lists and reads beside the documentation
// entries.
var _ query.ContractSet = (*catalog.Catalog)(nil)
