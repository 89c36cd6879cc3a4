package schemas

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestOperatorActionsStandApart: the operator file's actions are answered
// by Action, each of access admin with object schemas that compile, and
// the platform enumeration holds none of them.
func TestOperatorActionsStandApart(t *testing.T) {
	c := load(t)
	ops := c.Operator()
	if len(ops) != 2 || ops[0].Name != "admin_status" || ops[1].Name != "admin_activate" {
		t.Fatalf("operator actions %+v, want admin_status and admin_activate", ops)
	}
	for _, e := range c.Enumeration() {
		if e.Access == AccessAdmin || strings.HasPrefix(e.Name, "admin_") {
			t.Errorf("the platform enumeration holds %s", e.Name)
		}
	}
	for _, e := range ops {
		a := action(t, c, e.Name)
		if a.Access != AccessAdmin || a.Description == "" || a.Request["type"] != "object" || a.Response["type"] != "object" {
			t.Errorf("%s: %+v", e.Name, a)
		}
		compile(t, a.Request)
		compile(t, a.Response)
		// Each call returns maps of the caller's own.
		a.Request["type"] = "array"
		if b := action(t, c, e.Name); b.Request["type"] != "object" {
			t.Errorf("%s: a change to one Action's request reached the contract", e.Name)
		}
	}
}

// TestOperatorFileIsChecked: an operator action that is not of access
// admin, that repeats a name of the enumeration, or whose schemas hold a
// $ref is refused, naming the file; a contract set without the file has
// no operator actions.
func TestOperatorFileIsChecked(t *testing.T) {
	base := withFile(t, "", nil).(fstest.MapFS)
	raw, err := FS.ReadFile(OperatorFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(base)
	if err != nil || len(c.Operator()) != 0 {
		t.Fatalf("without the operator file: %v, %d operator actions", err, len(c.Operator()))
	}
	for _, bad := range []struct {
		name string
		edit func(a map[string]any)
		want string
	}{
		{"anonymous access", func(a map[string]any) { a["access"] = "anonymous" }, "access must be"},
		{"a platform action's name", func(a map[string]any) { a["name"] = "read_context" }, "repeated"},
		{"a $ref", func(a map[string]any) { a["request"] = map[string]any{"$ref": "#/$defs/limit"} }, "no $ref"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		bad.edit(doc["actions"].([]any)[0].(map[string]any))
		edited, _ := json.Marshal(doc)
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		fsys[OperatorFile] = &fstest.MapFile{Data: edited}
		if _, err := Parse(fsys); err == nil || !strings.Contains(err.Error(), OperatorFile) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: Parse = %v, want a refusal naming %s and %q", bad.name, err, OperatorFile, bad.want)
		}
	}
}

// compile compiles a schema document alone.
func compile(t *testing.T, doc map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("urn:test:operator", v); err != nil {
		t.Fatal(err)
	}
	if _, err := comp.Compile("urn:test:operator"); err != nil {
		t.Errorf("a schema does not compile alone: %v", err)
	}
}
