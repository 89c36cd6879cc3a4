package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

type memRecorder []tzctx.Record

func (m *memRecorder) Record(_ context.Context, r tzctx.Record) { *m = append(*m, r) }

// fakeContract defines actions for the tests, as *schemas.Contract does.
type fakeContract map[string]schemas.Action

func (f fakeContract) Action(name string) (schemas.Action, error) {
	a, ok := f[name]
	if !ok {
		return schemas.Action{}, fmt.Errorf("%w: the test contract has no %s", schemas.ErrUnknownAction, name)
	}
	return a, nil
}

func echoContract() fakeContract {
	echo := schemas.Action{Entry: schemas.Entry{Name: "echo", Summary: "Echo."}, Request: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}, "s": map[string]any{"type": "string", "maxLength": 3}},
		"additionalProperties": false,
	}}
	return fakeContract{"echo": echo}
}

func newTest(t *testing.T, h Handler) (*Dispatcher, *memRecorder) {
	rec := &memRecorder{}
	c := echoContract()
	d := New(c, oneToken{"tok": {Credential: "alice", Account: "acme", Application: "app", Profiles: []string{"p"}}}, rec)
	if err := d.Register(&Action{Action: c["echo"], Handle: h}); err != nil {
		t.Fatal(err)
	}
	return d, rec
}

// TestRegisterHoldsActionsToTheContract: an action the contract lacks,
// one whose definition differs from the contract's, a second of one name
// and one without a handler are refused, each with its error.
func TestRegisterHoldsActionsToTheContract(t *testing.T) {
	h := func(context.Context, map[string]any) (any, string, error) { return nil, "", nil }
	c := echoContract()
	d := New(c, nil, nil)
	unknown := &Action{Handle: h}
	unknown.Name = "echoes"
	drifted := &Action{Action: echoContract()["echo"], Handle: h}
	drifted.Request["additionalProperties"] = true
	reworded := &Action{Action: c["echo"], Handle: h}
	reworded.Summary = "Echo what it is sent."
	for _, tc := range []struct {
		name string
		a    *Action
		want error
	}{
		{"unknown", unknown, schemas.ErrUnknownAction},
		{"drifted shape", drifted, ErrDefinitionDrift},
		{"reworded summary", reworded, ErrDefinitionDrift},
		{"no handler", &Action{Action: c["echo"]}, ErrNoHandler},
	} {
		if err := d.Register(tc.a); !errors.Is(err, tc.want) {
			t.Errorf("%s: Register = %v, want %v", tc.name, err, tc.want)
		}
	}
	if len(d.Actions()) != 0 {
		t.Fatalf("refused actions were registered: %v", d.Actions())
	}
	if err := d.Register(&Action{Action: c["echo"], Handle: h}); err != nil {
		t.Fatal(err)
	}
	if err := d.Register(&Action{Action: c["echo"], Handle: h}); !errors.Is(err, ErrDuplicateAction) {
		t.Errorf("second echo = %v", err)
	}
}

func TestCallRecordsEveryOutcome(t *testing.T) {
	d, rec := newTest(t, func(ctx context.Context, args map[string]any) (any, string, error) {
		id := tzctx.IdentityFrom(ctx)
		if args["s"] == "bad" {
			return nil, "subject-bad", tzctx.Errorf(tzctx.ContextNotFound, "nope")
		}
		if args["s"] == "boo" {
			panic("secret words in a panic")
		}
		return id.Credential, "subject-ok", nil
	})
	ctx := tzctx.WithCredential(context.Background(), "tok")
	if res, err := d.Call(ctx, "echo", map[string]any{"n": json.Number("2")}); err != nil || res != "alice" {
		t.Fatalf("call = %v, %v", res, err)
	}
	_, err := d.Call(ctx, "echo", map[string]any{"s": "bad"})
	if tzctx.ErrorCode(err) != tzctx.ContextNotFound {
		t.Errorf("refusal = %v", err)
	}
	_, err = d.Call(ctx, "echo", map[string]any{"s": "boo"})
	if tzctx.ErrorCode(err) != tzctx.Internal || strings.Contains(err.Error(), "secret") {
		t.Errorf("panic = %v", err)
	}
	_, err = d.Call(context.Background(), "echo", map[string]any{"n": json.Number("1.0")})
	if tzctx.ErrorCode(err) != tzctx.InvalidRequest || !strings.Contains(err.Error(), "integer literal") {
		t.Errorf("1.0 = %v", err)
	}
	_, err = d.Call(context.Background(), "echo", map[string]any{"s": "longer", "x": 1})
	if tzctx.ErrorCode(err) != tzctx.InvalidRequest || strings.Contains(err.Error(), "longer") {
		t.Errorf("schema violation = %v (must not echo the value)", err)
	}
	_, err = d.Call(tzctx.WithCredential(context.Background(), "nope"), "echo", nil)
	if tzctx.ErrorCode(err) != tzctx.Unauthenticated || tzctx.StatusOf(err) != 401 {
		t.Errorf("unknown credential = %v", err)
	}
	_, err = d.Call(context.Background(), "missing", nil)
	if tzctx.ErrorCode(err) != tzctx.ContextNotFound || !strings.Contains(err.Error(), "echo") {
		t.Errorf("unknown action = %v", err)
	}
	want := []struct {
		subject, code, cred string
	}{
		{"subject-ok", "ok", "alice"}, {"subject-bad", "context_not_found", "alice"}, {"", "internal", "alice"},
		{"", "invalid_request", ""}, {"", "invalid_request", ""}, {"", "unauthenticated", tzctx.CredentialPrefix("nope")}, {"", "context_not_found", ""},
	}
	if len(*rec) != len(want) {
		t.Fatalf("%d records, want %d", len(*rec), len(want))
	}
	for i, w := range want {
		r := (*rec)[i]
		if r.Subject != w.subject || string(r.Code) != w.code || r.Credential != w.cred {
			t.Errorf("record %d = %+v, want %+v", i, r, w)
		}
	}
}

// oneToken resolves the tokens it lists; no token is anonymous and any
// other is refused unauthenticated.
type oneToken map[string]tzctx.Identity

func (o oneToken) Resolve(_ context.Context, bearer string) (tzctx.Identity, error) {
	if bearer == "" {
		return tzctx.Identity{}, nil
	}
	if id, ok := o[bearer]; ok {
		return id, nil
	}
	return tzctx.Identity{}, tzctx.Errorf(tzctx.Unauthenticated, "the bearer credential is not known")
}
