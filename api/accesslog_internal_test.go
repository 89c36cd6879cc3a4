package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
)

// TestAccessLogKeepsTheCallOfAnAbortedAnswer: where a panic passes
// through the access log (an answer aborted with http.ErrAbortHandler,
// which the recovery re-panics), the call's record the request held is
// still logged, in its one line, with status 500.
func TestAccessLogKeepsTheCallOfAnAbortedAnswer(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	h := accessLogged(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		tzctx.LogRecorder{Logger: log}.Record(r.Context(), tzctx.Record{Action: "read_documentation", Code: "ok", Status: 200})
		panic(http.ErrAbortHandler)
	}), log)
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("the panic %v did not pass through", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/api/v1/actions/read_documentation", nil))
	}()
	got := buf.String()
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "msg=call") || !strings.Contains(got, "action=read_documentation") || !strings.Contains(got, "http_status=500") {
		t.Errorf("the log of an aborted call: %q, want its one call line with status 500", got)
	}
}
