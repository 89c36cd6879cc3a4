package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

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

// TestRefusalLoggedOnce: the real binary logs a refused version once, not
// at every watch tick, and again only when asked to look again (SIGHUP).
func TestRefusalLoggedOnce(t *testing.T) {
	tier.Long(t, "waits for the watch ticks of a tzctx serve child process")
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
