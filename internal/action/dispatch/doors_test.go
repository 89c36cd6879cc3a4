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

// fixedTrees is a Trees with titles, as the reader is one.
type fixedTrees []string

func (f fixedTrees) Trees(context.Context) ([]string, error) { return f, nil }
func (f fixedTrees) TreeNames() []string                     { return f }
func (f fixedTrees) TreeTitle(tree string) string            { return "Title of " + tree }

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

// TestNewTakesTheTreesAndTheirTexts: the trees and their texts are New's
// options, read back by the front ends' methods; without them the
// dispatcher answers the contract's trees.
func TestNewTakesTheTreesAndTheirTexts(t *testing.T) {
	texts := map[string]TreeText{"guides": {Description: "How to."}}
	d := New(echoContract(), nil, nil, WithTrees(fixedTrees{"guides", "api"}), WithTreeTexts(texts))
	texts["guides"] = TreeText{Description: "changed after New"}
	trees, err := d.Trees(context.Background())
	if err != nil || !slices.Equal(trees, []string{"guides", "api"}) {
		t.Errorf("Trees = %v, %v; want the given trees", trees, err)
	}
	if got := d.TreeNames(); !slices.Equal(got, []string{"guides", "api"}) {
		t.Errorf("TreeNames = %v; want the given trees", got)
	}
	if got, want := d.TreeText("guides"), (TreeText{Title: "Title of guides", Description: "How to."}); got != want {
		t.Errorf("TreeText(guides) = %+v, want %+v (the texts as New took them)", got, want)
	}
	plain := New(echoContract(), nil, nil)
	if got := plain.TreeNames(); !slices.Equal(got, tzctx.DefaultTrees) {
		t.Errorf("TreeNames without WithTrees = %v, want the contract's %v", got, tzctx.DefaultTrees)
	}
	if got := plain.TreeText("guides"); got != (TreeText{}) {
		t.Errorf("TreeText without WithTreeTexts = %+v, want none", got)
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
