package plane

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/actions"
	"github.com/turnzerocloud/tzctx/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestBuildServesTheEnumeration: the default dispatcher registers every
// action the contract enumerates, and no other; CTX-03's build
// metadata is read from here.
func TestBuildServesTheEnumeration(t *testing.T) {
	d, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, e := range c.Enumeration() {
		if d.Action(e.Name) == nil {
			missing = append(missing, e.Name)
		}
	}
	if len(missing) != 0 {
		t.Errorf("enumerated actions without a registration: %v", missing)
	}
	if len(d.Actions()) != len(c.Enumeration())-len(missing) {
		t.Errorf("%d actions registered", len(d.Actions()))
	}
}

// TestRegisteredActionsSnapshot pins what the default dispatcher
// registers: each action's name, enumeration entry, description and
// request and response schemas, as front ends read them.
func TestRegisteredActionsSnapshot(t *testing.T) {
	d, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var defs []schemas.Action
	for _, a := range d.Actions() {
		defs = append(defs, a.Action)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(defs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "registered_actions.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	const regen = "go test ./internal/action/plane -run TestRegisteredActionsSnapshot -update"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("internal/action/plane/%s: %v; create it with: %s", path, err, regen)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("internal/action/plane/%s differs from the actions the default dispatcher registers; if the change is intended, regenerate it with: %s\n got:\n%s", path, regen, buf.String())
	}
}

// TestRegisteredIsTheDispatchers: Registered names exactly the actions the
// default dispatcher registers, so the generators read build metadata
// from the registrations and from nothing else.
func TestRegisteredIsTheDispatchers(t *testing.T) {
	d, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, err := Registered()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range d.Actions() {
		want = append(want, a.Name)
	}
	if len(want) == 0 || strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("Registered() = %v, the dispatcher registers %v", names, want)
	}
}

// TestNewWithOperator: with an operator, the one registration point also
// registers admin_status and admin_activate, of access admin, after the
// contract's actions; without one, and in Registered (the generated
// reference), there is none.
func TestNewWithOperator(t *testing.T) {
	d, err := NewWith(Options{Operator: &actions.Operator{}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"admin_status", "admin_activate"} {
		a := d.Action(name)
		if a == nil || a.Access != schemas.AccessAdmin {
			t.Errorf("%s with an operator: %+v, want an admin action", name, a)
		}
		if plain.Action(name) != nil {
			t.Errorf("%s is registered without an operator", name)
		}
	}
	if len(d.Actions()) != len(plain.Actions())+2 {
		t.Errorf("%d actions with an operator, %d without; want two more", len(d.Actions()), len(plain.Actions()))
	}
	names, err := Registered()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(plain.Actions()) {
		t.Errorf("Registered names %v, want the contract's actions alone", names)
	}
}
