package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/store"
)

// sampleTitle reads the "name" of a sample tree's docs.json: the title the
// composed index begins with.
func sampleTitle(t *testing.T, tree string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testkit.SampleSite(t), tree, "docs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Name == "" {
		t.Fatalf("sample %s/docs.json has no name: %v", tree, err)
	}
	return m.Name
}

// storedText reads a text of the active version of dataDir from the store:
// the ground truth HTTP answers are checked against.
func storedText(t *testing.T, dataDir, tree, key string) string {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	tr := v.Tree(tree)
	if tr == nil {
		t.Fatalf("the active version has no tree %s", tree)
	}
	txt, err := tr.Text(key)
	if err != nil || txt == nil {
		t.Fatalf("no stored text %s %s: %v", tree, key, err)
	}
	return txt.Slice(0, txt.Total())
}

func TestServeEmptyDataDirIngestsSample(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "fresh") // absent: serve creates it
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))

	// The sample site was ingested and activated: versions shows it.
	rows := parseVersions(t, mustCLI(t, dataDir, "versions").stdout)
	if len(rows) != 1 || !rows[0].active || rows[0].trees != "cloud,blueprint,tzdocs" {
		t.Fatalf("versions after serving an empty data directory: %+v", rows)
	}
	name := rows[0].name

	code, version, err := health(srv.base)
	if err != nil || code != http.StatusOK || version != name {
		t.Errorf("/healthz = %d %q (%v), want 200 naming %s", code, version, err, name)
	}

	a := mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	if a.ContractVersion != 1 || a.ID != "docs:cloud" || a.MimeType != "text/markdown" {
		t.Errorf("answer members: contract %d, id %q, mime %q", a.ContractVersion, a.ID, a.MimeType)
	}
	if a.Offset != 0 || a.NextOffset != nil || a.Total != utf8.RuneCountInString(a.Text) {
		t.Errorf("the whole index in one answer: offset %d, next %v, total %d for %d code points", a.Offset, a.NextOffset, a.Total, utf8.RuneCountInString(a.Text))
	}
	if a.Stamp != sha256Hex(a.Text) {
		t.Errorf("stamp %s is not the SHA-256 of the text", a.Stamp)
	}
	if want := "# " + sampleTitle(t, "cloud") + "\n\n"; !strings.HasPrefix(a.Text, want) {
		t.Errorf("cloud index does not begin %q:\n%.300s", want, a.Text)
	}
	if !strings.Contains(a.Text, "- [HTTP reference](/cloud/reference/http/): ") {
		t.Errorf("cloud index lacks the HTTP reference line:\n%s", a.Text)
	}
	if a.Text != storedText(t, dataDir, "cloud", "index") {
		t.Error("served index differs from the stored one")
	}
	// The same read as GET.
	resp, err := httpClient.Get(srv.base + "/api/v1/actions/read_documentation?tree=cloud")
	if err != nil {
		t.Fatal(err)
	}
	var g answer
	err = json.NewDecoder(resp.Body).Decode(&g)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || g.Text != a.Text || g.Stamp != a.Stamp {
		t.Errorf("GET read: status %d, err %v, same text %v", resp.StatusCode, err, g.Text == a.Text)
	}

	// Cancelling the context shuts the server down gracefully: serve
	// returns nil and the port no longer answers.
	if err := srv.stop(t); err != nil {
		t.Fatalf("serve returned %v after its context ended, want nil", err)
	}
	if _, _, err := health(srv.base); err == nil {
		t.Error("/healthz still answers after serve returned")
	}

	// A second start on the same directory serves the same version and
	// ingests nothing more.
	srv2 := startServer(t, dataDir, testConfig(50*time.Millisecond))
	if _, v, err := health(srv2.base); err != nil || v != name {
		t.Errorf("second start serves %q (%v), want %s", v, err, name)
	}
	if n := dirNames(t, filepath.Join(dataDir, "versions")); len(n) != 1 {
		t.Errorf("second start left versions %v, want one", n)
	}
	if err := srv2.stop(t); err != nil {
		t.Errorf("second serve returned %v", err)
	}
}

// TestServeShutdownWithOpenConnection: an idle keep-alive connection does
// not hold shutdown up.
func TestServeShutdownWithOpenConnection(t *testing.T) {
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", site, "--version", "v1", "--activate")
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.Get(srv.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // the connection stays open, idle
	start := time.Now()
	if err := srv.stop(t); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v with an idle connection open", d)
	}
}

func TestServePagePaging(t *testing.T) {
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", site, "--version", "v1", "--activate")
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))
	want := storedText(t, dataDir, "cloud", "/cloud/reference/http/")

	first := mustRead(t, srv.base, map[string]any{"page": "/cloud/reference/http/", "limit": 2000})
	if first.NextOffset == nil || first.ID != "docs:cloud:page:reference/http" {
		t.Fatalf("first chunk: id %q, next %v; want a page id and more to read", first.ID, first.NextOffset)
	}
	if !strings.Contains(first.Continuation, fmt.Sprintf("offset %d and stamp %s", *first.NextOffset, first.Stamp)) {
		t.Errorf("continuation does not say how to read on: %q", first.Continuation)
	}
	got, stamp := readWhole(t, srv.base, map[string]any{"page": "/cloud/reference/http/", "limit": 2000})
	if got != want {
		t.Errorf("reassembled page differs from the stored copy (%d vs %d bytes)", len(got), len(want))
	}
	if stamp != first.Stamp {
		t.Errorf("stamp changed between reads of one version")
	}
	// Other accepted forms of the route name the same page.
	for _, req := range []map[string]any{
		{"tree": "cloud", "page": "reference/http", "limit": 2000},
		{"page": "https://turnzero.ai/cloud/reference/http", "limit": 2000},
	} {
		if a := mustRead(t, srv.base, req); a.Stamp != first.Stamp || a.Text != first.Text {
			t.Errorf("read %v answers another text", req)
		}
	}

	// Refusals carry their codes.
	cases := []struct {
		body map[string]any
		code int
		err  string
	}{
		{map[string]any{"page": "/cloud/reference/http/", "limit": 2000, "offset": *first.NextOffset, "stamp": strings.Repeat("0", 64)}, 409, "context_changed"},
		{map[string]any{"page": "/cloud/reference/http/", "offset": *first.NextOffset}, 400, "invalid_request"},
		{map[string]any{"page": "/cloud/no-such-page/"}, 404, "context_not_found"},
		{map[string]any{"tree": "manual"}, 400, "invalid_request"},
	}
	for _, c := range cases {
		code, a, raw, err := post(srv.base, "read_documentation", c.body)
		if err != nil {
			t.Fatalf("%v: %v", c.body, err)
		}
		if code != c.code || a.Error == nil || a.Error.Code != c.err {
			t.Errorf("%v: %d %s, want %d %s", c.body, code, raw, c.code, c.err)
		}
	}
}

// TestServeCredentials: the config's trees and credentials reach the
// reader: blueprint needs its product profile.
func TestServeCredentials(t *testing.T) {
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", site, "--version", "v1", "--activate")
	cfg := testConfig(50 * time.Millisecond)
	cfg.Credentials = []identity.Credential{{TokenSHA256: identity.SHA256("tok-bp"), Account: "ci", Application: "test", Profiles: []string{"blueprint"}}}
	srv := startServer(t, dataDir, cfg)

	code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"})
	if err != nil || code != http.StatusBadRequest || a.Error == nil || !strings.Contains(a.Error.Detail, "not readable") {
		t.Errorf("anonymous blueprint read: %d %s (%v), want 400 not readable", code, raw, err)
	}
	code, a, raw, err = post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer tok-bp")
	if err != nil || code != http.StatusOK || a.Text != storedText(t, dataDir, "blueprint", "index") {
		t.Errorf("blueprint read with its profile: %d %.200s (%v)", code, raw, err)
	}
}

// TestServeNoActiveVersion: versions but none active: the server starts,
// answers 503, and picks up an activation by polling.
func TestServeNoActiveVersion(t *testing.T) {
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", "--tree", "cloud="+filepath.Join(site, "cloud"), "--version", "idle")
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))

	if code, _, _ := health(srv.base); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz with no active version = %d, want 503", code)
	}
	code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "cloud"})
	if err != nil || code != http.StatusServiceUnavailable || a.Error == nil || a.Error.Code != "context_unavailable" {
		t.Errorf("read with no active version: %d %s (%v), want 503 context_unavailable", code, raw, err)
	}
	if n := dirNames(t, filepath.Join(dataDir, "versions")); strings.Join(n, ",") != "idle" {
		t.Errorf("serve ingested the sample beside a stored version: %v", n)
	}

	mustCLI(t, dataDir, "activate", "idle")
	if !waitFor(5*time.Second, func() bool { c, v, _ := health(srv.base); return c == 200 && v == "idle" }) {
		t.Fatal("the server did not pick up the activation within 5 s (watch interval 50 ms)")
	}
	if a := mustRead(t, srv.base, map[string]any{"tree": "cloud"}); a.Text != storedText(t, dataDir, "cloud", "index") {
		t.Error("served index differs from the stored one after activation")
	}
}

// TestServeCommand runs `tzctx serve --config FILE --addr ADDR` through
// newRoot: the data directory comes from the configuration file, the flag
// overrides the configured address, and cancelling the command's context
// stops it cleanly.
func TestServeCommand(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", "--tree", "tzdocs="+filepath.Join(site, "tzdocs"), "--version", "cfg-v", "--activate")
	cfgFile := filepath.Join(t.TempDir(), "tzctx.json")
	cfgJSON := fmt.Sprintf(`{"addr": "127.0.0.1:1", "data": %q, "watch_interval": "50ms", "origin": "https://docs.example"}`, dataDir)
	if err := os.WriteFile(cfgFile, []byte(cfgJSON), 0o644); err != nil {
		t.Fatal(err)
	}

	var base string
	var done chan error
	var cancel context.CancelFunc
	for attempt := 0; attempt < 3 && base == ""; attempt++ {
		port := freePort(t)
		ctx, c := context.WithCancel(context.Background())
		cancel = c
		root := newRoot(&strings.Builder{}, &strings.Builder{})
		root.SetArgs([]string{"serve", "--config", cfgFile, "--addr", fmt.Sprintf("127.0.0.1:%d", port)})
		done = make(chan error, 1)
		go func() { done <- root.ExecuteContext(ctx) }()
		b := fmt.Sprintf("http://127.0.0.1:%d", port)
		up := waitFor(20*time.Second, func() bool {
			select {
			case err := <-done:
				done <- err
				return true
			default:
			}
			c, _, _ := health(b)
			return c == http.StatusOK
		})
		select {
		case err := <-done: // exited: the port was taken meanwhile; retry
			t.Logf("serve exited early: %v", err)
			cancel()
			continue
		default:
		}
		if !up {
			cancel()
			t.Fatal("serve command did not answer /healthz within 20 s")
		}
		base = b
	}
	if base == "" {
		t.Fatal("serve command could not listen on a free port in 3 attempts")
	}
	defer cancel()

	if _, v, _ := health(base); v != "cfg-v" {
		t.Errorf("/healthz names %q, want cfg-v from the configured data directory", v)
	}
	// The configured origin is stripped from page values.
	if a := mustRead(t, base, map[string]any{"page": "https://docs.example/tzdocs/routes"}); a.ID != "docs:tzdocs:page:routes" {
		t.Errorf("page by configured origin read %q", a.ID)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve command returned %v after its context ended, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve command did not return within 15 s of its context ending")
	}
}

func TestServeCommandRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, json, want string
	}{
		{"unknown member", `{"adress": "127.0.0.1:9"}`, `unknown field "adress"`},
		{"bad tree", `{"trees": {"manual": "anonymous"}}`, `"manual" is not a tree name`},
		{"bad access", `{"trees": {"cloud": "everyone"}}`, `trees.cloud: "everyone" must be anonymous`},
		{"bad duration", `{"watch_interval": 5}`, `watch_interval: 5 is not a positive duration`},
		{"bad duration text", `{"read_timeout": "soon"}`, `read_timeout: "soon" is not a positive duration`},
		{"zero body limit", `{"body_limit_bytes": 0}`, "body_limit_bytes: 0 is not a positive size"},
		{"negative body limit", `{"body_limit_bytes": -1}`, "body_limit_bytes: -1 is not a positive size"},
		{"negative read timeout", `{"read_timeout": "-1s"}`, `read_timeout: "-1s" is not a positive duration`},
		{"not json", `{`, "config "},
		{"oidc without audience", `{"oidc": {"issuer": "https://id.example.com", "jwks_url": "https://id.example.com/keys"}}`, "oidc.audience: is missing"},
		{"clear tokens", `{"credentials": {"tok": {"subject": "a"}}}`, "tzctx token new"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, url.PathEscape(c.name)+".json")
			if err := os.WriteFile(f, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			data := t.TempDir()
			r := runCLI(t, data, "serve", "--config", f, "--addr", "127.0.0.1:0")
			if r.err == nil || !strings.Contains(r.err.Error(), c.want) {
				t.Errorf("serve with config %s: err = %v, want it to say %q", c.json, r.err, c.want)
			}
			if v := dirNames(t, filepath.Join(data, "versions")); len(v) != 0 {
				t.Errorf("a refused config still ingested: %v", v)
			}
		})
	}
	if r := runCLI(t, t.TempDir(), "serve", "extra"); r.err == nil {
		t.Error("serve with an argument succeeded")
	}
}
