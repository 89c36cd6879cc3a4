package dispatch

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

// TestPanicIsLoggedWithoutWords: a handler's panic answers internal, is
// recorded, and is logged with its stack but without the caller's words,
// whether the panic value is a string, an error or a runtime error.
func TestPanicIsLoggedWithoutWords(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	const words = "zebra"
	d, rec := newTest(t, func(ctx context.Context, args map[string]any) (any, string, error) {
		s, _ := args["s"].(string)
		switch s {
		case "str":
			panic("query " + words)
		case "err":
			panic(tzctx.Errorf(tzctx.InvalidRequest, "query %s", words))
		default:
			var xs []string
			_ = xs[len(s)] // a runtime error: index out of range
		}
		return nil, "", nil
	})
	for _, s := range []string{"str", "err", "idx"} {
		logs.Reset()
		_, err := d.Call(context.Background(), "echo", map[string]any{"s": s})
		if tzctx.ErrorCode(err) != tzctx.Internal {
			t.Errorf("%s: Call = %v, want internal", s, err)
		}
		out := logs.String()
		if !strings.Contains(out, "action panicked") || !strings.Contains(out, "action=echo") || !strings.Contains(out, "stack=") {
			t.Errorf("%s: the panic was not logged with its action and stack:\n%s", s, out)
		}
		if strings.Contains(out, words) || strings.Contains(err.Error(), words) {
			t.Errorf("%s: the caller's words reached the log or the error:\n%s", s, out)
		}
		if s == "idx" && !strings.Contains(out, "index out of range") {
			t.Errorf("a runtime error's text is not logged:\n%s", out)
		}
	}
	if len(*rec) != 3 || (*rec)[2].Code != string(tzctx.Internal) {
		t.Errorf("records = %+v, want three internal", *rec)
	}
}
