package plane

import (
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/actions"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// TestRegistrationNamesEachAction: the table of registrations names each
// action the contract enumerates, once, beside the constructor that
// returns it, so a reader goes from an action's name to its handler's
// constructor in one step (issue 34); a line whose constructor returns
// another action is refused, naming both.
func TestRegistrationNamesEachAction(t *testing.T) {
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	regs := append(served(c, nil, nil), operator(c, &actions.Operator{})...)
	lines := map[string]int{}
	for _, r := range regs {
		lines[r.name]++
		if r.action.Name != r.name {
			t.Errorf("the line %s constructs the action %s", r.name, r.action.Name)
		}
	}
	for _, e := range c.Enumeration() {
		if lines[e.Name] != 1 {
			t.Errorf("%s has %d lines in the table, want 1", e.Name, lines[e.Name])
		}
	}
	if len(lines) != len(regs) {
		t.Errorf("%d lines name %d actions: a name is repeated", len(regs), len(lines))
	}
	swapped := []registration{{"read_documentation", actions.SearchDocumentation(c, (*query.Reader)(nil))}}
	err = register(dispatch.New(c, nil, nil), swapped)
	if err == nil || !strings.Contains(err.Error(), "read_documentation") || !strings.Contains(err.Error(), "search_documentation") {
		t.Errorf("a line constructing another action: %v, want a refusal naming both", err)
	}
}
