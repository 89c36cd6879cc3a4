package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// segmentFile returns the bleve segment of a stored version.
func segmentFile(t *testing.T, data, version string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(data, "versions", version, "index.bleve", "store", "*.zap"))
	if len(m) != 1 {
		t.Fatalf("version %s has segments %v, want one", version, m)
	}
	return m[0]
}

// healthBody GETs /healthz and decodes it whole.
func healthBody(t *testing.T, base string) (int, map[string]string) {
	t.Helper()
	resp, err := httpClient.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, h
}

// TestServeDoesNotMaskDamagedOnlyData: a data directory whose only version
// is damaged beyond description is not given the sample site.
func TestServeDoesNotMaskDamagedOnlyData(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testkit.IngestInto(t, data, "A", false, testkit.SiteTrees(t, testkit.SampleSite(t))...)
	if err := os.WriteFile(filepath.Join(data, "versions", "A", "meta.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, data, testConfig(20*time.Millisecond))
	if code, h := healthBody(t, srv.base); code != 503 {
		t.Errorf("/healthz = %d %v, want 503: nothing to serve", code, h)
	}
	if names := dirNames(t, filepath.Join(data, "versions")); len(names) != 1 {
		t.Errorf("versions after serve: %v; the sample site was ingested", names)
	}
}

// TestServerKeepsServingOnDamage: a running server asked to switch to a
// damaged version refuses it and goes on serving what it had, reporting
// the fault on /healthz; it switches to the next good version activated.
func TestServerKeepsServingOnDamage(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	ingestSample(t, data, "A")
	testkit.IngestInto(t, data, "B", false, testkit.SiteTrees(t, changedSite(t))...)
	srv := startServer(t, data, testConfig(20*time.Millisecond))
	before := mustRead(t, srv.base, map[string]any{"page": "/cloud/reference/http/"}).Text

	damageFile(t, segmentFile(t, data, "B"))
	pointAt(t, data, "B")
	var h map[string]string
	if !waitFor(10*time.Second, func() bool {
		_, h = healthBody(t, srv.base)
		return h["status"] == "degraded"
	}) {
		t.Fatalf("/healthz = %v, want degraded", h)
	}
	if code, _ := healthBody(t, srv.base); code != 200 || h["version"] != "A" || !strings.Contains(h["detail"], `"B"`) || !strings.Contains(h["detail"], "index.bleve") || !strings.Contains(h["detail"], "tzctx activate") {
		t.Errorf("/healthz = %d %v; want 200, version A, a detail naming B's index and what to do", code, h)
	}
	time.Sleep(100 * time.Millisecond) // several watch ticks
	if got := mustRead(t, srv.base, map[string]any{"page": "/cloud/reference/http/"}).Text; got != before {
		t.Fatal("the page served after the refusal is not A's")
	}

	testkit.IngestInto(t, data, "C", false, testkit.SiteTrees(t, changedSite(t))...)
	activate(t, data, "C")
	if !waitFor(10*time.Second, func() bool { _, h = healthBody(t, srv.base); return h["version"] == "C" }) {
		t.Fatalf("/healthz = %v, want version C", h)
	}
	if h["status"] != "ok" || h["detail"] != "" {
		t.Errorf("/healthz = %v once C is served, want ok and no detail", h)
	}
}

// TestServeStartsWithDamagedVersion: a server whose active version is
// damaged starts, serves nothing from it, says on /healthz what to do, and
// serves the next good version activated.
func TestServeStartsWithDamagedVersion(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	ingestSample(t, data, "A")
	testkit.IngestInto(t, data, "B", false, testkit.SiteTrees(t, changedSite(t))...)
	damageFile(t, segmentFile(t, data, "A"))

	srv := startServer(t, data, testConfig(20*time.Millisecond))
	code, h := healthBody(t, srv.base)
	if code != 503 || h["status"] != "unavailable" || !strings.Contains(h["detail"], "damaged") || !strings.Contains(h["detail"], "tzctx activate") {
		t.Errorf("/healthz = %d %v; want 503 naming the damage and what to do", code, h)
	}
	if c, a, _, err := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"}); err != nil || c != 503 || a.Error == nil || a.Error.Code != "context_unavailable" {
		t.Errorf("a read on the damaged version = %d %+v %v, want 503 context_unavailable", c, a, err)
	}
	activate(t, data, "B")
	if !waitFor(10*time.Second, func() bool { _, h = healthBody(t, srv.base); return h["version"] == "B" }) {
		t.Fatalf("/healthz = %v, want version B", h)
	}
	if c, _, _, _ := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"}); c != 200 {
		t.Errorf("a read once B is served answered %d", c)
	}
}
