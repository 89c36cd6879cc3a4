package catalog

import (
	"strings"

	"github.com/turnzerocloud/tzctx/schemas"
)

// payloadDoc is a payload:<action> entry, members in this order.
type payloadDoc struct {
	ContractVersion int            `json:"contract_version"`
	Action          string         `json:"action"`
	Shared          map[string]any `json:"shared"`
	Request         map[string]any `json:"request"`
	Response        map[string]any `json:"response"`
}

// Payload returns the text of the payload:<action> entry: one JSON
// document holding the contract version, the action, the shared shapes
// its request and response reference and no others, and the request and
// response, taken from the wire shapes with every reference rewritten to
// #/shared/<name> so that it resolves inside the document.
func Payload(c *schemas.Contract, action string) (string, error) {
	a, err := c.Action(action)
	if err != nil {
		return "", err
	}
	shared := map[string]any{}
	for _, doc := range []map[string]any{a.Request, a.Response} {
		if defs, ok := doc["$defs"].(map[string]any); ok {
			for k, v := range defs {
				shared[k] = v
			}
			delete(doc, "$defs")
		}
	}
	doc := payloadDoc{ContractVersion: c.Version(), Action: action, Shared: shared}
	doc.Request, _ = rewriteRefs(a.Request).(map[string]any)
	doc.Response, _ = rewriteRefs(a.Response).(map[string]any)
	for k, v := range shared {
		shared[k] = rewriteRefs(v)
	}
	return marshal(doc)
}

// rewriteRefs rewrites "#/$defs/X" references to "#/shared/X" throughout v.
func rewriteRefs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			if s, ok := y.(string); ok && k == "$ref" {
				if name, ok := strings.CutPrefix(s, "#/$defs/"); ok {
					x[k] = "#/shared/" + name
					continue
				}
			}
			x[k] = rewriteRefs(y)
		}
	case []any:
		for i, y := range x {
			x[i] = rewriteRefs(y)
		}
	}
	return v
}
