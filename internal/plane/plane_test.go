package plane

import (
	"testing"
)

// TestSchemasAgreeWithLimits is the drift guard between the wire shapes in
// action_payloads.json and the limits in served_context.json: a bound
// written in both places must hold the same value.
func TestSchemasAgreeWithLimits(t *testing.T) {
	lim, err := Limits()
	if err != nil {
		t.Fatal(err)
	}
	if lim.TextDefaultLimit <= 0 || lim.TextMaxLimit < lim.TextDefaultLimit || lim.CatalogEntryLimit <= 0 {
		t.Fatalf("limits %+v are not positive and ordered", lim)
	}
	p, err := LoadPayloads()
	if err != nil {
		t.Fatal(err)
	}
	num := func(m map[string]any, path ...string) float64 {
		var cur any = m
		for _, k := range path {
			cur = cur.(map[string]any)[k]
		}
		return cur.(float64)
	}
	checks := []struct {
		name string
		got  float64
		want int
	}{
		{"$defs/limit/maximum", num(p.Defs, "limit", "maximum"), lim.TextMaxLimit},
		{"read_context id maxLength", num(p.Actions["read_context"].Request, "properties", "id", "maxLength"), lim.IDMaxLength},
		{"read_documentation page maxLength", num(p.Actions["read_documentation"].Request, "properties", "page", "maxLength"), lim.IDMaxLength},
		{"read_documentation query maxLength", num(p.Actions["read_documentation"].Request, "properties", "query", "maxLength"), lim.QueryMaxLength},
		{"read_documentation headings maxItems", num(p.Actions["read_documentation"].Response, "properties", "headings", "maxItems"), lim.HeadingsLimit},
		{"read_documentation heading text maxLength", num(p.Actions["read_documentation"].Response, "properties", "headings", "items", "properties", "text", "maxLength"), lim.HeadingMaxLength},
	}
	for _, c := range checks {
		if int(c.got) != c.want {
			t.Errorf("%s = %v in action_payloads.json, %d in served_context.json", c.name, c.got, c.want)
		}
	}
	if p.ContractVersion != 1 {
		t.Errorf("contract_version = %d", p.ContractVersion)
	}
}

func TestNewRegistersEveryPayloadAction(t *testing.T) {
	p, err := LoadPayloads()
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// list_context has wire shapes and no handler yet.
	for _, name := range []string{"read_context", "read_documentation"} {
		a := d.Action(name)
		if a == nil || a.Summary != p.Actions[name].Summary {
			t.Errorf("action %s is not registered with its contract summary", name)
		}
	}
	if len(d.Actions()) != 2 {
		t.Errorf("%d actions registered, want read_context and read_documentation", len(d.Actions()))
	}
}
