package dispatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/turnzerocloud/tzctx"
)

// ErrSchema is in the chain of the error Call and Check return where a
// call's arguments do not fit the action's request schema, an integer
// member that is not an integer literal included. The same error
// is a *tzctx.Error of code invalid_request, as HTTP answers it; a front
// end whose protocol reports schema violations in a shape of its own
// (MCP, A-26) tells them apart with errors.Is.
var ErrSchema = errors.New("the arguments do not fit the action's request schema")

// schemaViolation is an invalid_request refusal marked as a schema
// violation: errors.As finds its *tzctx.Error, errors.Is its ErrSchema.
type schemaViolation struct{ te *tzctx.Error }

func (e schemaViolation) Error() string   { return e.te.Error() }
func (e schemaViolation) Unwrap() []error { return []error{e.te, ErrSchema} }

// violation marks te as a schema violation.
func violation(te *tzctx.Error) error { return schemaViolation{te} }

// treeChoices gives the trees a refusal of a request's tree member names:
// those the caller can read in the served version (Dispatcher.Trees).
// The schema enumerates every configured tree, but a refusal is an answer
// to one caller, which names no tree it may not read: a gated
// tree's name reaches only the callers the catalog lists it to.
type treeChoices func() ([]string, error)

// schemaError turns a schema violation into invalid_request with a detail
// naming the member and the rule, never the member's value: a value may be
// a query's words. A refusal of the tree member names the trees trees
// gives, where trees is not nil.
func schemaError(err error, trees treeChoices) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return violation(tzctx.Errorf(tzctx.InvalidRequest, "the request does not fit the action's schema"))
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msgs = append(msgs, describe(e, trees))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(msgs) > 3 {
		msgs = msgs[:3]
	}
	return violation(tzctx.Errorf(tzctx.InvalidRequest, "%s; see the action's request schema", strings.Join(msgs, "; ")))
}

func describe(e *jsonschema.ValidationError, trees treeChoices) string {
	member := "the request"
	if len(e.InstanceLocation) > 0 {
		member = "member " + EchoedPath(e.InstanceLocation)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("%s must be of type %s", member, strings.Join(k.Want, " or "))
	case *kind.Enum:
		if trees != nil && len(e.InstanceLocation) == 1 && e.InstanceLocation[0] == "tree" {
			return treeRefusal(trees)
		}
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		return fmt.Sprintf("%s must be one of %s", member, strings.Join(want, ", "))
	case *kind.MaxLength:
		return fmt.Sprintf("%s is %d characters long, over the bound of %d", member, k.Got, k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("%s must hold at least %d characters", member, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s", member, k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("%s must be at most %s", member, k.Want.RatString())
	case *kind.Pattern:
		return fmt.Sprintf("%s must match %s", member, k.Want)
	case *kind.AdditionalProperties:
		return fmt.Sprintf("unknown member %s; remove it", echoedList(k.Properties))
	case *kind.Required:
		return fmt.Sprintf("missing member %s", echoedList(k.Missing))
	}
	return member + " does not fit the schema"
}

// treeRefusal is the detail refusing a tree member that names no
// configured tree: the trees the caller can read, in the enumeration's
// words where it can read any.
func treeRefusal(trees treeChoices) string {
	names, err := trees()
	switch {
	case err != nil:
		return "member tree must name a documentation tree this connection may read; list_context lists them"
	case len(names) == 0:
		return "member tree must name a documentation tree this connection may read, and it may read none of the served site version"
	}
	return "member tree must be one of " + strings.Join(names, ", ")
}

// EchoedPath is tzctx.EchoedName of each step of a path to a member, joined
// with "/".
func EchoedPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = tzctx.EchoedName(p)
	}
	return strings.Join(parts, "/")
}

// echoedList is tzctx.EchoedName of the first few names, joined with ", ".
func echoedList(names []string) string {
	const most = 5
	var parts []string
	for i, n := range names {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		parts = append(parts, tzctx.EchoedName(n))
	}
	return strings.Join(parts, ", ")
}
