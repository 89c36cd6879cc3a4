// Package schemas embeds the served contract's JSON schemas: the index
// with its limits (served_context.json) and the actions' wire shapes
// (action_payloads.json).
package schemas

import "embed"

// FS holds the schema files.
//
//go:embed *.json
var FS embed.FS
