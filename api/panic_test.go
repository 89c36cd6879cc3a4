package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
)

// panicky is a dispatcher whose every call panics with the caller's
// arguments in the panic value: the worst case for a front end.
type panicky struct{}

func (panicky) Call(_ context.Context, _ string, args map[string]any) (any, error) {
	panic("answering " + args["query"].(string))
}
func (panicky) Refuse(_ context.Context, _ string, err error) error { return err }
func (panicky) Action(string) *dispatch.Action                      { return nil }
func (panicky) Authenticate(ctx context.Context) (context.Context, error) {
	return ctx, nil
}

var _ api.Dispatcher = panicky{}

// captureStd redirects os.Stdout and os.Stderr while f runs and returns
// what was written to them.
func captureStd(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	defer func() {
		os.Stdout, os.Stderr = oldOut, oldErr
	}()
	f()
	w.Close()
	return string(<-done)
}

// TestPanicAnswersEnvelope: a panic while a request is handled is answered
// 500 with the contract's envelope, and logged without the caller's words
// on any stream.
func TestPanicAnswersEnvelope(t *testing.T) {
	const words = "zebra crossing"
	var logs bytes.Buffer
	var code int
	var body string
	std := captureStd(t, func() {
		e := api.New(panicky{}, api.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		srv := httptest.NewServer(e)
		defer srv.Close()
		resp, err := http.Post(srv.URL+"/api/v1/actions/read_documentation", "application/json", strings.NewReader(`{"query":"`+words+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		code, body = resp.StatusCode, string(raw)
	})
	if code != 500 || body != `{"error":{"code":"internal","detail":"the server failed to answer; try again"}}`+"\n" {
		t.Errorf("answer = %d %s, want 500 and the internal envelope", code, body)
	}
	if !strings.Contains(logs.String(), "request panicked") || !strings.Contains(logs.String(), "stack=") {
		t.Errorf("the panic was not logged with its stack:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "status=500") {
		t.Errorf("the access log line does not show the 500:\n%s", logs.String())
	}
	for _, w := range strings.Fields(words) {
		if strings.Contains(logs.String(), w) || strings.Contains(std, w) {
			t.Errorf("the caller's word %q was logged:\nslog: %s\nstd: %s", w, logs.String(), std)
		}
	}
}
