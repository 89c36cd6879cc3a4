package server

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestServeProbesAnswerHead: HEAD /healthz and HEAD /readyz answer GET's
// status without a body, 503 before a version is served and 200 after.
func TestServeProbesAnswerHead(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	testkit.IngestInto(t, dataDir, "idle", false, ingest.TreeSource{Name: "cloud", Dir: filepath.Join(site, "cloud")})
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))
	check := func(want int) {
		t.Helper()
		for _, p := range []string{"/healthz", "/readyz"} {
			gst, _, _ := testkit.Send(t, http.MethodGet, srv.base+p, nil)
			hst, h, raw := testkit.Send(t, http.MethodHead, srv.base+p, nil)
			if gst != want || hst != want || raw != "" || h.Get("Content-Type") != "application/json" {
				t.Errorf("%s: GET %d, HEAD %d %q %v; want %d both, HEAD without a body", p, gst, hst, raw, h, want)
			}
		}
	}
	check(http.StatusServiceUnavailable)
	for _, p := range []string{"/healthz", "/readyz"} {
		if st, h, raw := testkit.Send(t, http.MethodPost, srv.base+p, nil); st != 405 || h.Get("Allow") != "GET, HEAD" || !strings.Contains(raw, `"invalid_request"`) {
			t.Errorf("POST %s = %d Allow %q %s, want 405", p, st, h.Get("Allow"), raw)
		}
	}
	activate(t, dataDir, "idle")
	if !waitFor(5*time.Second, func() bool { c, v, _ := health(srv.base); return c == 200 && v == "idle" }) {
		t.Fatal("the server did not pick up the activation within 5 s")
	}
	check(http.StatusOK)
}

// TestServeRefusesMalformedRequests runs the HTTP refusals through a real
// serve: a chunked body over body_limit_bytes answers the 413 a body with
// a length answers, a method other than GET and POST on an action 405,
// and a repeated member 400.
func TestServeRefusesMalformedRequests(t *testing.T) {
	t.Parallel()
	cfg := testConfig(time.Second)
	cfg.BodyLimitBytes = 300
	srv := startServer(t, t.TempDir(), cfg)
	url := srv.base + "/api/v1/actions/read_documentation"
	body := `{"tree":"cloud","query":"` + strings.Repeat("x", 300) + `"}`
	st1, _, withLength := testkit.Send(t, http.MethodPost, url, strings.NewReader(body))
	st2, _, chunked := testkit.Send(t, http.MethodPost, url, io.MultiReader(strings.NewReader(body)))
	if st1 != 413 || st2 != 413 || withLength != chunked || !strings.Contains(chunked, "300 bytes; send a smaller body") {
		t.Errorf("over the bound: with a length %d %s, chunked %d %s; want one 413", st1, withLength, st2, chunked)
	}
	// /mcp answers the same bound 413, whether the body gives its
	// length or not (its JSON-RPC error, not the API's envelope).
	rpc := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`
	m1, _, mWithLength := testkit.Send(t, http.MethodPost, srv.base+"/mcp", strings.NewReader(rpc))
	m2, _, mChunked := testkit.Send(t, http.MethodPost, srv.base+"/mcp", io.MultiReader(strings.NewReader(rpc)))
	if m1 != 413 || m2 != 413 || mWithLength != mChunked {
		t.Errorf("/mcp over the bound: with a length %d %s, chunked %d %s; want one 413", m1, mWithLength, m2, mChunked)
	}
	t.Logf("/mcp over the bound answers %d %s", m2, strings.TrimSpace(mChunked))
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodHead} {
		if st, h, _ := testkit.Send(t, m, url, nil); st != 405 || h.Get("Allow") != "GET, POST" {
			t.Errorf("%s = %d Allow %q, want 405 GET, POST", m, st, h.Get("Allow"))
		}
	}
	if st, _, raw := testkit.Send(t, http.MethodPost, url, strings.NewReader(`{"tree":"nope","tree":"cloud"}`)); st != 400 || !strings.Contains(raw, "member tree is given more than once") {
		t.Errorf("a repeated member = %d %s", st, raw)
	}
}
