// Package contracts embeds the contract documents of the served context:
// the overview, the contract in this service's words, the choices this
// build makes where the contract is open (a contents page and a file per
// subject under choices/), and the guides. The index that names them is
// schemas/served_context.json.
package contracts

import "embed"

// FS holds the contract documents.
//
//go:embed *.md choices/*.md guides/*.md
var FS embed.FS
