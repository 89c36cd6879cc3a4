package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

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
