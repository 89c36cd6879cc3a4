package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

func TestEchoedName(t *testing.T) {
	for in, want := range map[string]string{
		"tree":                   "tree",
		"read_documentation":     "read_documentation",
		"a.b-c_9":                "a.b-c_9",
		strings.Repeat("x", 40):  strings.Repeat("x", 40),
		strings.Repeat("x", 41):  "(a name of 41 bytes)",
		"has space":              "(a name of 9 bytes)",
		"quo\"te":                "(a name of 6 bytes)",
		"\xff":                   "(a name of 1 bytes)",
		"é":                      "(a name of 2 bytes)",
		"":                       "(an empty name)",
		"R&D":                    "(a name of 3 bytes)",
		strings.Repeat("k", 1e5): "(a name of 100000 bytes)",
	} {
		if got := tzctx.EchoedName(in); got != want {
			t.Errorf("tzctx.EchoedName(%.50q) = %q, want %q", in, got, want)
		}
	}
	if got := EchoedPath([]string{"x", "0", "a b"}); got != "x/0/(a name of 3 bytes)" {
		t.Errorf("EchoedPath = %q", got)
	}
}

// TestSchemaDetailsBounded: the validator's unknown-member refusal and
// the integer-literal check name long or odd members without echoing
// them, and list a few of many.
func TestSchemaDetailsBounded(t *testing.T) {
	d, _ := newTest(t, func(context.Context, map[string]any) (any, string, error) { return "ok", "", nil })
	huge := strings.Repeat("q", 100000)
	many := map[string]any{}
	for i := range 30 {
		many["m"+strings.Repeat("x", i)] = "v"
	}
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{huge: "v"}, "unknown member (a name of 100000 bytes); remove it"},
		{map[string]any{huge: json.Number("1.5")}, "member (a name of 100000 bytes) must be an integer literal"},
		{many, "and 25 more"},
		{map[string]any{"bogus": 1}, "unknown member bogus; remove it"},
	}
	for _, c := range cases {
		_, err := d.Call(context.Background(), "echo", c.args)
		if tzctx.ErrorCode(err) != tzctx.InvalidRequest || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 400 {
			t.Errorf("Call = %.300v, want invalid_request saying %q", err, c.want)
		}
	}
	_, err := d.Call(context.Background(), huge, nil)
	if tzctx.ErrorCode(err) != tzctx.ContextNotFound || !strings.Contains(err.Error(), "no action (a name of 100000 bytes)") {
		t.Errorf("Call of a long name = %.300v", err)
	}
}

func TestLoggedPath(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/actions/read_documentation": "/api/v1/actions/read_documentation",
		"/healthz":                           "/healthz",
		"/console/":                          "/console/",
		"/api/v1/actions/" + strings.Repeat("w", 41): "/api/v1/actions/(a name of 41 bytes)",
		"/api/v1/actions/secret words":               "/api/v1/actions/(a name of 12 bytes)",
		"/x/" + strings.Repeat("é", 3) + "/y":        "/x/(a name of 6 bytes)/y",
	} {
		if got := tzctx.LoggedPath(in); got != want {
			t.Errorf("tzctx.LoggedPath(%q) = %q, want %q", in, got, want)
		}
	}
}
