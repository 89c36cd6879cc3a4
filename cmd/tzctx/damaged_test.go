package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// damageFile inverts one byte in the middle of a version's file.
func damageFile(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// segmentFile returns the bleve segment of a stored version.
func segmentFile(t *testing.T, data, version string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(data, "versions", version, "index.bleve", "store", "*.zap"))
	if len(m) != 1 {
		t.Fatalf("version %s has segments %v, want one", version, m)
	}
	return m[0]
}

// pointAt writes the ACTIVE pointer by hand, as an older tzctx, a restore
// from backup or an editor could: the activate command refuses a damaged
// version.
func pointAt(t *testing.T, data, version string) {
	t.Helper()
	tmp := filepath.Join(data, "ACTIVE.hand")
	if err := os.WriteFile(tmp, []byte(version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(data, "ACTIVE")); err != nil {
		t.Fatal(err)
	}
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

// TestActivateRefusesDamagedVersion: a damaged pages.db is refused by
// activate, marked damaged by versions and reported by verify; the pointer
// stays where it was, so versions tells the truth about what is served.
func TestActivateRefusesDamagedVersion(t *testing.T) {
	data := t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	mustCLI(t, data, "ingest", changedSite(t), "--version", "B")
	damageFile(t, filepath.Join(data, "versions", "B", "pages.db"))

	r := runCLI(t, data, "activate", "B")
	if r.err == nil || !strings.Contains(r.err.Error(), "pages.db") || !strings.Contains(r.err.Error(), "damaged") || !strings.Contains(r.err.Error(), "tzctx activate") {
		t.Fatalf("activate B = %v, %q; want a refusal naming pages.db and what to do", r.err, r.stdout)
	}
	if a := activeName(t, data); a != "A" {
		t.Fatalf("ACTIVE = %q after a refused activation, want A", a)
	}
	rows, faults := parseVersionsFaults(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 2 || !rows[0].active || rows[0].state != "ok" || rows[1].active || rows[1].state != "damaged" {
		t.Errorf("versions rows = %+v, want A active and ok, B damaged", rows)
	}
	if len(faults) != 1 || !strings.Contains(faults[0], `"B"`) || !strings.Contains(faults[0], "pages.db") {
		t.Errorf("versions faults = %q, want one naming B's pages.db", faults)
	}

	r = runCLI(t, data, "verify")
	if r.err == nil || !strings.Contains(r.stdout, "A: ok") || !strings.Contains(r.stdout, "B: damaged") {
		t.Errorf("verify = %v, stdout %q; want A ok, B damaged, and a failure", r.err, r.stdout)
	}
	if r := runCLI(t, data, "verify", "A"); r.err != nil || !strings.HasPrefix(r.stdout, "A: ok") {
		t.Errorf("verify A = %v, %q", r.err, r.stdout)
	}
	if r := runCLI(t, data, "verify", "nope"); r.err == nil || !strings.Contains(r.err.Error(), "tzctx versions") {
		t.Errorf("verify nope = %v", r.err)
	}

	// An unreadable meta.json is damage too, and is listed as such.
	if err := os.WriteFile(filepath.Join(data, "versions", "B", "meta.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, faults = parseVersionsFaults(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 2 || rows[1].name != "B" || rows[1].state != "damaged" || len(faults) != 1 || !strings.Contains(faults[0], "meta.json") {
		t.Errorf("versions with B's meta.json unreadable: %+v, %q", rows, faults)
	}
	if r := runCLI(t, data, "activate", "B"); r.err == nil || !strings.Contains(r.err.Error(), "meta.json") {
		t.Errorf("activate B with its meta.json unreadable = %v", r.err)
	}
	// verify counts a version List cannot describe as damaged too.
	if r := runCLI(t, data, "verify"); r.err == nil || !strings.Contains(r.stdout, "A: ok") || !strings.Contains(r.stdout, "B: damaged") {
		t.Errorf("verify with B's meta.json unreadable = %v, %q", r.err, r.stdout)
	}
}

// TestReingestOverDamagedVersion: identical content whose stored version
// is damaged is not reported as stored already; ingest says how to
// repair, and a new name ingests it anew.
func TestReingestOverDamagedVersion(t *testing.T) {
	data := t.TempDir()
	site := testkit.SampleSite(t)
	first := mustCLI(t, data, "ingest", site, "--activate")
	name := strings.TrimPrefix(strings.SplitN(first.stdout, "\n", 2)[0], "version ")
	mustCLI(t, data, "ingest", changedSite(t), "--version", "other", "--activate")
	damageFile(t, filepath.Join(data, "versions", name, "pages.db"))
	r := runCLI(t, data, "ingest", site)
	if r.err == nil || !strings.Contains(r.err.Error(), "damaged") || !strings.Contains(r.err.Error(), "tzctx delete "+name) || strings.Contains(r.stdout, "identical content") {
		t.Fatalf("re-ingest over the damaged %s = %v, %q", name, r.err, r.stdout)
	}
	r = mustCLI(t, data, "ingest", site, "--version", "fresh")
	if !strings.HasPrefix(r.stdout, "version fresh\n") {
		t.Errorf("ingest under a new name printed %q", r.stdout)
	}
	mustCLI(t, data, "delete", name)
	r = mustCLI(t, data, "ingest", site)
	if !strings.Contains(r.stdout, "identical content is stored already as version fresh") {
		t.Errorf("with the damaged version deleted, ingest printed %q", r.stdout)
	}
}

// TestServeDoesNotMaskDamagedOnlyData: a data directory whose only version
// is damaged beyond description is not given the sample site.
func TestServeDoesNotMaskDamagedOnlyData(t *testing.T) {
	data := t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "A")
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
	data := t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	mustCLI(t, data, "ingest", changedSite(t), "--version", "B")
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

	mustCLI(t, data, "ingest", changedSite(t), "--version", "C")
	mustCLI(t, data, "activate", "C")
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
	data := t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	mustCLI(t, data, "ingest", changedSite(t), "--version", "B")
	damageFile(t, segmentFile(t, data, "A"))

	srv := startServer(t, data, testConfig(20*time.Millisecond))
	code, h := healthBody(t, srv.base)
	if code != 503 || h["status"] != "unavailable" || !strings.Contains(h["detail"], "damaged") || !strings.Contains(h["detail"], "tzctx activate") {
		t.Errorf("/healthz = %d %v; want 503 naming the damage and what to do", code, h)
	}
	if c, a, _, err := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"}); err != nil || c != 503 || a.Error == nil || a.Error.Code != "context_unavailable" {
		t.Errorf("a read on the damaged version = %d %+v %v, want 503 context_unavailable", c, a, err)
	}
	mustCLI(t, data, "activate", "B")
	if !waitFor(10*time.Second, func() bool { _, h = healthBody(t, srv.base); return h["version"] == "B" }) {
		t.Fatalf("/healthz = %v, want version B", h)
	}
	if c, _, _, _ := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"}); c != 200 {
		t.Errorf("a read once B is served answered %d", c)
	}
}

// TestRefusalLoggedOnce: the real binary logs a refused version once, not
// at every watch tick, and again only when asked to look again (SIGHUP).
func TestRefusalLoggedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	env := []string{"TZCTX_DATA="}
	runProc(t, bin, env, "--data", data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	runProc(t, bin, env, "--data", data, "ingest", changedSite(t), "--version", "B")
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "20ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startProc(t, bin, env, "--data", data, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
	if !waitFor(30*time.Second, func() bool { return servingRE.MatchString(srv.stderr.String()) }) {
		t.Fatalf("the server did not start:\n%s", srv.stderr.String())
	}
	damageFile(t, filepath.Join(data, "versions", "B", "pages.db"))
	pointAt(t, data, "B")
	count := func() int { return strings.Count(srv.stderr.String(), "ERROR activation") }
	if !waitFor(10*time.Second, func() bool { return count() >= 1 }) {
		t.Fatalf("no activation error logged:\n%s", srv.stderr.String())
	}
	time.Sleep(300 * time.Millisecond) // 15 watch ticks
	if n := count(); n != 1 {
		t.Errorf("the refusal was logged %d times in 15 ticks, want once:\n%s", n, srv.stderr.String())
	}
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return count() == 2 }) {
		t.Errorf("SIGHUP did not look again: %d lines", count())
	}
	if strings.Contains(srv.stderr.String(), "panic") {
		t.Errorf("the server logged a panic:\n%s", srv.stderr.String())
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.wait(t, 15*time.Second); err != nil {
		t.Errorf("the server exited with %v on SIGTERM", err)
	}
}
