package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/console"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/server"
)

// consoleGet GETs a path of the server without following redirects.
func consoleGet(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return r, string(b)
}

// TestConsoleServedByDefault: tzctx serve answers the console at
// /console/ with its policy, /console and GET / redirect there,
// /favicon.ico is its icon, and the API beside it is untouched.
func TestConsoleServedByDefault(t *testing.T) {
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "con-1", "--activate")
	s := startServer(t, dataDir, testConfig(time.Second))
	r, body := consoleGet(t, s.base+"/console/")
	if r.StatusCode != http.StatusOK || !strings.Contains(body, `<script type="module" src="console.js"></script>`) {
		t.Fatalf("GET /console/: %d %.200q", r.StatusCode, body)
	}
	if r.Header.Get("Content-Security-Policy") != console.CSP || r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("GET /console/ headers: %v", r.Header)
	}
	if r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET /console/: Content-Type %q", r.Header.Get("Content-Type"))
	}
	r, _ = consoleGet(t, s.base+"/console/console.js")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("GET /console/console.js: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	r, _ = consoleGet(t, s.base+"/console")
	if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/console/" {
		t.Errorf("GET /console: %d Location %q, want 301 to /console/", r.StatusCode, r.Header.Get("Location"))
	}
	// GET / goes to the console, and the browser's icon is there.
	r, _ = consoleGet(t, s.base+"/")
	if r.StatusCode != http.StatusFound || r.Header.Get("Location") != "/console/" {
		t.Errorf("GET /: %d Location %q, want 302 to /console/", r.StatusCode, r.Header.Get("Location"))
	}
	r, body = consoleGet(t, s.base+"/favicon.ico")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(body, "\x00\x00\x01\x00") {
		t.Errorf("GET /favicon.ico: %d %q, want 200 and an ICO file", r.StatusCode, r.Header.Get("Content-Type"))
	}
	r, _ = consoleGet(t, s.base+"/console/favicon.svg")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("GET /console/favicon.svg: %d %q, want 200 and SVG", r.StatusCode, r.Header.Get("Content-Type"))
	}
	// Only GET / is redirected: another method, or another path, is the
	// API's unknown path still.
	if pr, err := http.Post(s.base+"/", "application/json", strings.NewReader("{}")); err != nil {
		t.Errorf("POST /: %v", err)
	} else {
		pr.Body.Close()
		if pr.StatusCode != http.StatusNotFound {
			t.Errorf("POST /: %d, want 404", pr.StatusCode)
		}
	}
	if code, _, raw, err := post(s.base, "read_documentation", map[string]any{"tree": "cloud"}); err != nil || code != http.StatusOK {
		t.Errorf("the API beside the console: %d %v %.200s", code, err, raw)
	}
}

// TestConsoleOff: "console": false in the configuration file turns the
// console off; /console/ and its files, / and /favicon.ico are then
// unknown paths (404), as they are to the API.
func TestConsoleOff(t *testing.T) {
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "con-1", "--activate")
	cfgPath := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(cfgPath, []byte(`{"console": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConsoleOn() {
		t.Fatal(`"console": false reads as on`)
	}
	s := startServer(t, dataDir, cfg)
	for _, p := range []string{"/console/", "/console/console.js", "/console", "/", "/favicon.ico"} {
		r, body := consoleGet(t, s.base+p)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s with the console off: %d %.200q, want 404", p, r.StatusCode, body)
		}
		if strings.Contains(body, "console.js") {
			t.Errorf("GET %s with the console off serves the page", p)
		}
	}
	if err := os.WriteFile(cfgPath, []byte(`{"console": "no"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := server.LoadConfig(cfgPath); err == nil || !strings.Contains(err.Error(), "console") {
		t.Errorf(`"console": "no" is not refused naming the member: %v`, err)
	}
}

// TestConsoleE2E runs the browser tests of the console
// (internal/console/e2e) against a real tzctx serve with a gated tree, a
// holder credential, a credential without the profile and an admin
// credential, and two versions whose HTTP reference page differs.
// Screenshots and axe-core's findings go to TZCTX_CONSOLE_SHOTS, else to
// the test's temporary folder; TZCTX_README_SHOT, where set, is where
// the screenshot of docs/operating.md is written.
func TestConsoleE2E(t *testing.T) {
	tier.Long(t, "drives the console in a browser")
	chromium := os.Getenv("TZCTX_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no browser at %s (apt-get install chromium, or set TZCTX_CHROMIUM): %v", chromium, err)
	}
	node, e2e, err := testkit.NodePackage(t, "internal/console/e2e", testkit.ConsoleE2EModulesEnv, "playwright-core", "axe-core")
	if err != nil {
		t.Skipf("the browser tests cannot run: %v", err)
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "console-a", "--activate")
	mustCLI(t, dataDir, "ingest", changedSite(t), "--version", "console-b")
	tok := map[string]string{}
	var creds []identity.Credential
	for _, c := range []struct {
		name string
		args []string
	}{
		{"holder", []string{"--profile", "blueprint"}},
		{"reader", nil},
		{"admin", []string{"--admin"}},
	} {
		r := mustCLI(t, dataDir, append([]string{"token", "new", "--account", "console", "--application", c.name}, c.args...)...)
		token, cred := tokenLines(t, r.stdout)
		tok[c.name] = token
		creds = append(creds, cred)
	}
	// The default trees gate blueprint behind the blueprint profile.
	raw, err := json.Marshal(map[string]any{"credentials": creds, "watch_interval": "200ms"})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(cfgPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, dataDir, cfgPath, nil)
	shots := os.Getenv("TZCTX_CONSOLE_SHOTS")
	if shots == "" {
		shots = filepath.Join(t.TempDir(), "console-shots")
	}
	cmd := exec.Command(node, "console.e2e.mjs")
	cmd.Dir = e2e
	cmd.Env = append(os.Environ(),
		"TZCTX_CONSOLE_BASE="+base,
		"TZCTX_HOLDER_TOKEN="+tok["holder"],
		"TZCTX_READER_TOKEN="+tok["reader"],
		"TZCTX_ADMIN_TOKEN="+tok["admin"],
		"TZCTX_ACTIVATE_VERSION=console-b",
		"TZCTX_SCREENSHOTS="+shots,
		"TZCTX_CHROMIUM="+chromium,
	)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node console.e2e.mjs (%.1f s):\n%s", time.Since(start).Seconds(), out)
	for name, v := range tok {
		if strings.Contains(srv.stderr.String(), v) {
			t.Errorf("the %s token is in the server's log", name)
		}
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		t.Skip("the console's steps passed, but the server has no admin actions, so the operator panel's steps were skipped (see the log above)")
	default:
		t.Fatalf("the browser tests failed: %v; screenshots and axe.json in %s", err, shots)
	}
}
