package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func load(t *testing.T) *Contract {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func action(t *testing.T, c *Contract, name string) Action {
	t.Helper()
	a, err := c.Action(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// num reads the number at path in a decoded schema document.
func num(t *testing.T, m map[string]any, path ...string) int {
	t.Helper()
	var cur any = m
	for _, k := range path {
		next, ok := cur.(map[string]any)[k]
		if !ok {
			t.Fatalf("no %s in the schema", strings.Join(path, "/"))
		}
		cur = next
	}
	return int(cur.(float64))
}

// TestSchemasAgreeWithLimits is the drift guard between the wire shapes in
// action_payloads.json and the limits in served_context.json: a bound
// written in both places must hold the same value.
func TestSchemasAgreeWithLimits(t *testing.T) {
	c := load(t)
	lim := c.Limits()
	if lim.TextDefaultLimit <= 0 || lim.TextMaxLimit < lim.TextDefaultLimit || lim.CatalogEntryLimit <= 0 {
		t.Fatalf("limits %+v are not positive and ordered", lim)
	}
	doc, ctx, list := action(t, c, "read_documentation"), action(t, c, "read_context"), action(t, c, "list_context")
	checks := []struct {
		name      string
		got, want int
	}{
		{"read_context $defs/limit/maximum", num(t, ctx.Request, "$defs", "limit", "maximum"), lim.TextMaxLimit},
		{"read_documentation $defs/limit/maximum", num(t, doc.Request, "$defs", "limit", "maximum"), lim.TextMaxLimit},
		{"read_context id maxLength", num(t, ctx.Request, "properties", "id", "maxLength"), lim.IDMaxLength},
		{"read_documentation page maxLength", num(t, doc.Request, "properties", "page", "maxLength"), lim.IDMaxLength},
		{"read_documentation query maxLength", num(t, doc.Request, "properties", "query", "maxLength"), lim.QueryMaxLength},
		{"read_documentation headings maxItems", num(t, doc.Response, "properties", "headings", "maxItems"), lim.HeadingsLimit},
		{"read_documentation heading text maxLength", num(t, doc.Response, "properties", "headings", "items", "properties", "text", "maxLength"), lim.HeadingMaxLength},
		{"list_context entries maxItems", num(t, list.Response, "properties", "entries", "maxItems"), lim.CatalogEntryLimit},
		{"list_context entry id maxLength", num(t, list.Response, "properties", "entries", "items", "properties", "id", "maxLength"), lim.IDMaxLength},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %d in action_payloads.json, %d in served_context.json", ch.name, ch.got, ch.want)
		}
	}
	if c.Version() != 1 {
		t.Errorf("contract_version = %d", c.Version())
	}
}

// TestEnumerationAgreesWithPayloads holds actions.json and
// action_payloads.json to one set of actions, in both directions, and
// pins the enumeration CTX-07 and the read_context reference give: the
// three observe actions of platform_context, anonymous, read-only,
// idempotent, not destructive, closed world.
func TestEnumerationAgreesWithPayloads(t *testing.T) {
	c := load(t)
	var names []string
	for _, e := range c.Enumeration() {
		names = append(names, e.Name)
		want := Entry{Name: e.Name, Resource: "platform_context", Tier: "observe", Access: "anonymous", Summary: e.Summary,
			Annotations: Annotations{ReadOnly: true, Idempotent: true}}
		if e != want || e.Summary == "" {
			t.Errorf("enumeration entry %+v, want %+v with a summary", e, want)
		}
		if a := action(t, c, e.Name); a.Description == "" || a.Request == nil || a.Response == nil {
			t.Errorf("action %s lacks its description or a shape", e.Name)
		}
	}
	if want := []string{"list_context", "read_context", "read_documentation", "search_documentation", "list_library", "read_library_entry"}; !reflect.DeepEqual(names, want) {
		t.Errorf("enumeration = %v, want %v", names, want)
	}
	for name := range c.payloads {
		if _, err := c.Action(name); err != nil {
			t.Errorf("%s holds shapes for %s, which %s does not enumerate: %v", PayloadsFile, name, EnumerationFile, err)
		}
	}
	// read_context's metadata is the reference's, word for word.
	ctx := action(t, c, "read_context")
	if ctx.Summary != "Read a catalog content ID. Follow next_offset with its stamp to read the complete contracts, guide or live skill text." ||
		!strings.HasPrefix(ctx.Description, "Read one entry `list_context` listed") {
		t.Errorf("read_context summary %q, description %q", ctx.Summary, ctx.Description)
	}
}

// TestShapesAreSelfContained compiles every request and response alone:
// each holds, under $defs, exactly the shared shapes it references.
func TestShapesAreSelfContained(t *testing.T) {
	c := load(t)
	for _, e := range c.Enumeration() {
		a := action(t, c, e.Name)
		for which, doc := range map[string]map[string]any{"request": a.Request, "response": a.Response} {
			raw, _ := json.Marshal(doc)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			comp := jsonschema.NewCompiler()
			url := "urn:test:" + e.Name + ":" + which
			if err := comp.AddResource(url, v); err != nil {
				t.Fatal(err)
			}
			if _, err := comp.Compile(url); err != nil {
				t.Errorf("%s %s does not compile alone: %v", e.Name, which, err)
			}
			defs, _ := doc["$defs"].(map[string]any)
			delete(doc, "$defs")
			used := map[string]bool{}
			for _, r := range refs(doc) {
				used[r] = true
			}
			if len(defs) != len(used) {
				t.Errorf("%s %s: $defs holds %d shapes, it references %d", e.Name, which, len(defs), len(used))
			}
		}
	}
	// The requests reference the paging shapes; the responses none.
	if doc := action(t, c, "read_documentation"); len(doc.Request["$defs"].(map[string]any)) != 3 || doc.Response["$defs"] != nil {
		t.Errorf("read_documentation $defs: request %v, response %v", doc.Request["$defs"], doc.Response["$defs"])
	}
}

// TestActionReturnsMapsOfItsOwn: a caller changing one Action's shapes
// changes no other's.
func TestActionReturnsMapsOfItsOwn(t *testing.T) {
	c := load(t)
	a := action(t, c, "read_context")
	a.Request["$defs"].(map[string]any)["limit"].(map[string]any)["maximum"] = 1.0
	a.Request["properties"].(map[string]any)["id"] = nil
	if b := action(t, c, "read_context"); num(t, b.Request, "$defs", "limit", "maximum") != c.Limits().TextMaxLimit || b.Request["properties"].(map[string]any)["id"] == nil {
		t.Error("a change to one Action's request reached the contract")
	}
}

// withFile returns the embedded files with one replaced.
func withFile(t *testing.T, name string, edit func(m map[string]any)) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	for _, f := range []string{IndexFile, EnumerationFile, PayloadsFile} {
		raw, err := FS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if f == name {
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			edit(v)
			raw, _ = json.Marshal(v)
		}
		m[f] = &fstest.MapFile{Data: raw}
	}
	return m
}

func TestUnknownActionNamesTheFileThatLacksIt(t *testing.T) {
	c := load(t)
	if _, err := c.Action("read_everything"); !errors.Is(err, ErrUnknownAction) || !strings.Contains(err.Error(), EnumerationFile) {
		t.Errorf("unknown action = %v", err)
	}
	noShapes, err := Parse(withFile(t, PayloadsFile, func(m map[string]any) {
		delete(m["actions"].(map[string]any), "read_context")
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noShapes.Action("read_context"); !errors.Is(err, ErrUnknownAction) || !strings.Contains(err.Error(), PayloadsFile) {
		t.Errorf("action without shapes = %v", err)
	}
	badRef, err := Parse(withFile(t, PayloadsFile, func(m map[string]any) {
		delete(m["$defs"].(map[string]any), "stamp")
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := badRef.Action("read_context"); err == nil || !strings.Contains(err.Error(), "#/$defs/stamp") {
		t.Errorf("dangling $ref = %v", err)
	}
	_, err = Parse(withFile(t, EnumerationFile, func(m map[string]any) {
		acts := m["actions"].([]any)
		m["actions"] = append(acts, acts[0])
	}))
	if err == nil || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("repeated enumeration entry = %v", err)
	}
}
