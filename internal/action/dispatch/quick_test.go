package dispatch

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/schemas"
)

// contractActions registers each action of the embedded contract, with a
// handler that does nothing, and returns them by name.
func contractActions(t *testing.T) map[string]*Action {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	d := New(c, nil, nil)
	for _, name := range []string{"list_context", "read_context", "read_documentation"} {
		def, err := c.Action(name)
		if err != nil {
			t.Fatal(err)
		}
		a := &Action{Action: def, Handle: func(context.Context, map[string]any) (any, string, error) { return nil, "", nil }}
		if err := d.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return d.actions
}

// TestQuickCheckIsSound checks the quick check against the validator on
// every action of the contract: arguments it proves valid, the validator
// takes, over many mixes of valid and invalid members; and it does prove
// the common calls valid, so they skip the validator.
func TestQuickCheckIsSound(t *testing.T) {
	stamp := strings.Repeat("ab12", 16)
	values := []any{
		"", "cloud", "blueprint", "tzdocs", "other", "index", "full", "outline", "Index",
		"tzdocs/7.6/CimCmdlets/Get-CimClass", "docs:tzdocs", "remote session", stamp, strings.ToUpper(stamp),
		stamp[:63], stamp + "0", "x" + stamp, strings.Repeat("a", 160), strings.Repeat("a", 161),
		strings.Repeat("é", 160), strings.Repeat("é", 161), strings.Repeat("日", 80) + "\xff",
		json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("-0"), json.Number("16000"), json.Number("16001"),
		json.Number("9007199254740991"), json.Number("9007199254740992"), json.Number("01"), json.Number("1.0"),
		json.Number("1e3"), json.Number("99999999999999999999"), json.Number("x"),
		true, false, nil, float64(1), []any{}, map[string]any{}, 3,
	}
	names := []string{"tree", "part", "page", "query", "offset", "stamp", "limit", "id", "other", "Page"}
	r := rand.New(rand.NewPCG(3, 4))
	for name, act := range contractActions(t) {
		a := act.checks.Load()
		if a.quick == nil {
			t.Errorf("%s: no quick check; its request schema left the subset", name)
			continue
		}
		proven := 0
		for range 20000 {
			args := map[string]any{}
			for range r.IntN(4) {
				args[names[r.IntN(len(names))]] = values[r.IntN(len(values))]
			}
			if !a.quick.valid(args) {
				continue
			}
			proven++
			if err := a.schema.Validate(any(args)); err != nil {
				t.Fatalf("%s: the quick check proved %v valid; the validator refuses it: %v", name, args, err)
			}
		}
		if proven == 0 {
			t.Errorf("%s: the quick check proved no arguments valid", name)
		}
	}
	a := contractActions(t)
	for name, args := range map[string]map[string]any{
		"read_documentation": {"page": "tzdocs/7.6/CimCmdlets/Get-CimClass", "limit": json.Number("16000")},
		"read_context":       {"id": "docs:tzdocs", "offset": json.Number("15992"), "stamp": stamp},
		"list_context":       {},
	} {
		if !a[name].checks.Load().quick.valid(args) {
			t.Errorf("%s: the quick check does not prove %v valid", name, args)
		}
	}
}

// TestQuickCheckSubset checks that a schema beyond the subset gets no
// quick check, so that its calls all go to the validator.
func TestQuickCheckSubset(t *testing.T) {
	str := map[string]any{"type": "string"}
	for _, s := range []map[string]any{
		{"type": "object", "properties": map[string]any{"a": str}},                                             // other members allowed
		{"type": "array", "additionalProperties": false},                                                       // not an object
		{"type": "object", "additionalProperties": false, "minProperties": float64(1)},                         // an unknown keyword
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{}}}, // any value
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "number"}}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string", "format": "uri"}}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"enum": []any{"x", float64(1)}}}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string", "pattern": "("}}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/x", "maxLength": float64(3)}}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/missing"}}},
		{"type": "object", "additionalProperties": false, "required": []any{"b"}, "properties": map[string]any{"a": str}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "integer", "maximum": 1.5}}},
	} {
		if q := compileQuick(s); q != nil {
			t.Errorf("compileQuick(%v) gave a quick check; the schema is beyond its subset", s)
		}
	}
}
