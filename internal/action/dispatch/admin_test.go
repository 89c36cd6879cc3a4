package dispatch

import (
	"context"
	"errors"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// TestAdminActionsAdmitAdminsWithTheHeader: an action of access admin
// runs only for an admin credential on a request that carried the
// console header; otherwise it is refused ahead of its arguments' checks
// (anonymous 401, not admin 403, no header 403), its handler never runs,
// and the refusal is recorded. Check leaves such an action to Call.
func TestAdminActionsAdmitAdminsWithTheHeader(t *testing.T) {
	op := schemas.Action{Entry: schemas.Entry{Name: "op", Access: schemas.AccessAdmin}, Request: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "additionalProperties": false,
	}}
	rec := &memRecorder{}
	d := New(fakeContract{"op": op}, oneToken{
		"admin": {Credential: "aaaa", Account: "ops", Admin: true},
		"plain": {Credential: "bbbb", Account: "acme"},
	}, rec)
	ran := 0
	if err := d.Register(&Action{Action: op, Handle: func(context.Context, map[string]any) (any, string, error) {
		ran++
		return "done", "op", nil
	}, RefusedSubject: func(map[string]any) string { return "op" }}); err != nil {
		t.Fatal(err)
	}
	ctx := func(bearer string, header bool) context.Context {
		return WithConsoleHeader(tzctx.WithCredential(context.Background(), bearer), header)
	}
	bad := map[string]any{"n": "not a number", "extra": true}
	for _, c := range []struct {
		name   string
		ctx    context.Context
		code   tzctx.Code
		status int
	}{
		{"anonymous", ctx("", true), tzctx.Unauthenticated, 401},
		{"not admin", ctx("plain", true), tzctx.InvalidRequest, 403},
		{"no header", ctx("admin", false), tzctx.InvalidRequest, 403},
		{"no header flag", tzctx.WithCredential(context.Background(), "admin"), tzctx.InvalidRequest, 403},
	} {
		*rec = nil
		_, err := d.Call(c.ctx, "op", bad)
		var te *tzctx.Error
		if !errors.As(err, &te) || te.Code != c.code || tzctx.StatusOf(err) != c.status || errors.Is(err, ErrSchema) {
			t.Errorf("%s: %v, want %s %d ahead of the schema", c.name, err, c.code, c.status)
		}
		if len(*rec) != 1 || (*rec)[0].Code != string(c.code) || (*rec)[0].Status != c.status || (*rec)[0].Subject != "op" {
			t.Errorf("%s: records %+v", c.name, *rec)
		}
		if err := d.Check(c.ctx, "op", bad); err != nil {
			t.Errorf("%s: Check = %v, want nil: Call checks an admin action's caller first", c.name, err)
		}
	}
	if ran != 0 {
		t.Fatalf("the handler ran %d times for refused callers", ran)
	}
	if _, err := d.Call(ctx("admin", true), "op", bad); !errors.Is(err, ErrSchema) {
		t.Errorf("an admin's malformed call: %v, want the schema's refusal", err)
	}
	if res, err := d.Call(ctx("admin", true), "op", map[string]any{"n": 1}); err != nil || res != "done" || ran != 1 {
		t.Errorf("an admin's call with the header: %v %v", res, err)
	}
}
