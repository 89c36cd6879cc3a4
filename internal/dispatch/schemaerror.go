package dispatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/turnzerocloud/tzctx"
)

// schemaError turns a schema violation into invalid_request with a detail
// naming the member and the rule, never the member's value: a value may be
// a query's words.
func schemaError(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return tzctx.Errorf(tzctx.InvalidRequest, "the request does not fit the action's schema")
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msgs = append(msgs, describe(e))
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
	return tzctx.Errorf(tzctx.InvalidRequest, "%s; see the action's request schema", strings.Join(msgs, "; "))
}

func describe(e *jsonschema.ValidationError) string {
	member := "the request"
	if len(e.InstanceLocation) > 0 {
		member = "member " + strings.Join(e.InstanceLocation, "/")
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("%s must be of type %s", member, strings.Join(k.Want, " or "))
	case *kind.Enum:
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
		return fmt.Sprintf("unknown member %s; remove it", strings.Join(k.Properties, ", "))
	case *kind.Required:
		return fmt.Sprintf("missing member %s", strings.Join(k.Missing, ", "))
	}
	return member + " does not fit the schema"
}
