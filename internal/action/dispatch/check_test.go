package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

// TestSchemaViolationsAreMarked: Call's and Check's schema refusals, an
// integer literal's included, wrap ErrSchema and stay invalid_request
// *tzctx.Error values; a handler's invalid_request does not wrap it.
func TestSchemaViolationsAreMarked(t *testing.T) {
	d, _ := newTest(t, func(context.Context, map[string]any) (any, string, error) {
		return nil, "", tzctx.Errorf(tzctx.InvalidRequest, "the handler refuses")
	})
	ctx := context.Background()
	for _, args := range []map[string]any{
		{"n": json.Number("0")},
		{"n": json.Number("1.0")},
		{"s": "four"},
		{"x": "unknown"},
	} {
		for name, err := range map[string]error{"Call": call(ctx, d, args), "Check": d.Check(ctx, "echo", args)} {
			var te *tzctx.Error
			if !errors.Is(err, ErrSchema) || !errors.As(err, &te) || te.Code != tzctx.InvalidRequest {
				t.Errorf("%s(%v) = %v, want an invalid_request wrapping ErrSchema", name, args, err)
			}
		}
	}
	err := call(ctx, d, map[string]any{"n": json.Number("2")})
	if err == nil || errors.Is(err, ErrSchema) || tzctx.ErrorCode(err) != tzctx.InvalidRequest {
		t.Errorf("a handler's refusal = %v, want invalid_request without ErrSchema", err)
	}
}

// TestCheckRecordsAsCallDoes: Check passes what Call would hand to the
// handler and what it leaves to Call (an unknown action), and records a
// violation as Call records it, credential subject included.
func TestCheckRecordsAsCallDoes(t *testing.T) {
	d, rec := newTest(t, func(context.Context, map[string]any) (any, string, error) { return "ok", "s", nil })
	ctx := tzctx.WithCredential(context.Background(), "tok")
	if err := d.Check(ctx, "echo", map[string]any{"n": json.Number("2")}); err != nil {
		t.Fatalf("Check of valid arguments = %v", err)
	}
	if err := d.Check(ctx, "nope", map[string]any{"x": 1}); err != nil {
		t.Fatalf("Check of an unknown action = %v, want nil (Call refuses it)", err)
	}
	if len(*rec) != 0 {
		t.Fatalf("Check recorded calls it passed: %+v", *rec)
	}
	if err := d.Check(ctx, "echo", map[string]any{"s": "four"}); !errors.Is(err, ErrSchema) {
		t.Fatalf("Check = %v, want ErrSchema", err)
	}
	_ = call(ctx, d, map[string]any{"s": "four"})
	if len(*rec) != 2 {
		t.Fatalf("records = %+v, want one from Check and one from Call", *rec)
	}
	a, b := (*rec)[0], (*rec)[1]
	a.Time, a.Duration, b.Duration = b.Time, 0, 0
	if a != b || a.Credential != "alice" || a.Code != string(tzctx.InvalidRequest) {
		t.Errorf("Check recorded %+v, Call %+v; want the same, alice's, invalid_request", a, b)
	}
}

func call(ctx context.Context, d *Dispatcher, args map[string]any) error {
	_, err := d.Call(ctx, "echo", args)
	return err
}
