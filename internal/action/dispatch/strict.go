package dispatch

import (
	"errors"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/strictjson"
)

// StrictArgs checks the JSON text of a call's arguments with strictjson
// and returns the refusal of what it finds, nil where the text is fit to
// decode: each member name once in its object, every string and name
// valid UTF-8. what names the text in the detail ("the request body",
// "the arguments"). Members are named by their path (EchoedPath), never
// by a value: a value may be a query's words.
func StrictArgs(raw []byte, what string) error {
	err := strictjson.Check(raw)
	if err == nil {
		return nil
	}
	var f *strictjson.Fault
	if !errors.As(err, &f) {
		return tzctx.Errorf(tzctx.InvalidRequest, "%s is not valid JSON; send one JSON object", what)
	}
	where := what
	if len(f.Path) > 0 {
		where = "member " + EchoedPath(f.Path)
	}
	switch f.Kind {
	case strictjson.Trailing:
		return tzctx.Errorf(tzctx.InvalidRequest, "%s holds more than one JSON value; send one JSON object", what)
	case strictjson.Duplicate:
		return tzctx.Errorf(tzctx.InvalidRequest, "member %s is given more than once; give each member once", EchoedPath(f.Path))
	case strictjson.BadString:
		return tzctx.Errorf(tzctx.InvalidRequest, "%s is not valid UTF-8 (an invalid byte or a lone surrogate escape); send text as UTF-8", where)
	case strictjson.BadName:
		in := "in " + what
		if len(f.Path) > 0 {
			in = "in member " + EchoedPath(f.Path)
		}
		return tzctx.Errorf(tzctx.InvalidRequest, "a member name %s is not valid UTF-8 (an invalid byte or a lone surrogate escape); send names as UTF-8", in)
	case strictjson.TooDeep:
		return tzctx.Errorf(tzctx.InvalidRequest, "%s is nested too deep; send one JSON object of the action's members", what)
	}
	return tzctx.Errorf(tzctx.InvalidRequest, "%s is not valid JSON; send one JSON object", what)
}
