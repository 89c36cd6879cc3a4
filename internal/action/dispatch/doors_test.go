package dispatch

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

// fixedTrees is a Trees with its names, as the reader is one.
type fixedTrees []string

func (f fixedTrees) Trees(context.Context) ([]string, error) { return f, nil }
func (f fixedTrees) TreeNames() []string                     { return f }

// TestDispatcherHasNoSetter: what a front end reads of the dispatcher is
// fixed by New's inputs; no exported method sets it afterwards, so no
// rule says when a setter must run (issue 34).
func TestDispatcherHasNoSetter(t *testing.T) {
	typ := reflect.TypeFor[*Dispatcher]()
	var setters []string
	for m := range typ.Methods() {
		if strings.HasPrefix(m.Name, "Set") {
			setters = append(setters, m.Name)
		}
	}
	if len(setters) != 0 {
		t.Errorf("the dispatcher has setters %v; give what they set to New (an Option)", setters)
	}
}

// TestDispatcherIsTheCallPipeline: the dispatcher's exported methods are
// the call pipeline and the registry alone; what a front end reads of
// the trees beside its calls is a door it declares (mcp.TreeReader),
// wired in package server, not a pass-through here (issue 34).
func TestDispatcherIsTheCallPipeline(t *testing.T) {
	want := []string{"Action", "Actions", "Authenticate", "Call", "Check", "ReadWhole", "Refuse", "Register"}
	var got []string
	for m := range reflect.TypeFor[*Dispatcher]().Methods() {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the dispatcher's exported methods are %v, want the call pipeline %v", got, want)
	}
}

// TestNewTakesTheTrees: the trees are New's option, which a request's
// tree member enumerates; without it the dispatcher enumerates the
// contract's trees.
func TestNewTakesTheTrees(t *testing.T) {
	d := New(echoContract(), nil, nil, WithTrees(fixedTrees{"guides", "api"}))
	trees, err := d.servedTrees(context.Background())
	if err != nil || !slices.Equal(trees, []string{"guides", "api"}) {
		t.Errorf("servedTrees = %v, %v; want the given trees", trees, err)
	}
	if got := d.treeNames(); !slices.Equal(got, []string{"guides", "api"}) {
		t.Errorf("treeNames = %v; want the given trees", got)
	}
	plain := New(echoContract(), nil, nil)
	if got := plain.treeNames(); !slices.Equal(got, tzctx.DefaultTrees) {
		t.Errorf("treeNames without WithTrees = %v, want the contract's %v", got, tzctx.DefaultTrees)
	}
}

// TestTypedBindsTheRequest: a Typed handler runs its function with the
// arguments bound into its request type, and refuses arguments that do
// not bind under the subject it is given, without running the function.
func TestTypedBindsTheRequest(t *testing.T) {
	type req struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	runs := 0
	h := Typed(func(_ context.Context, r req) (*req, string, error) {
		runs++
		return &r, "ran", nil
	}, func(args map[string]any) string { return "unbound" })
	res, subject, err := h(context.Background(), map[string]any{"n": json.Number("2"), "s": "ab"})
	if err != nil || subject != "ran" || *res.(*req) != (req{N: 2, S: "ab"}) {
		t.Errorf("bound call = %v, %q, %v; want the request {2 ab} under ran", res, subject, err)
	}
	res, subject, err = h(context.Background(), map[string]any{"n": "two"})
	if tzctx.ErrorCode(err) != tzctx.InvalidRequest || subject != "unbound" || res != nil {
		t.Errorf("unbound call = %v, %q, %v; want invalid_request under unbound", res, subject, err)
	}
	if runs != 1 {
		t.Errorf("the function ran %d times, want once (not for the unbound call)", runs)
	}
}
