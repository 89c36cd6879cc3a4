package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/server"
)

// TestMCPStdioOIDC: tzctx mcp --token resolves a JWT at start-up: a good
// one reads blueprint over stdio, and a refused one stops the command
// with the reason.
func TestMCPStdioOIDC(t *testing.T) {
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "oidc-s", "--activate")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(time.Second)
	cfg.OIDC = oidcConfig(iss)

	in := strings.Join([]string{
		initializeBody,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"blueprint"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := server.ServeStdio(context.Background(), cfg, dataDir, server.Stdio{Token: iss.Token(t, nil), In: strings.NewReader(in), Out: &out, Log: log}); err != nil {
		t.Fatalf("serveStdio with a good JWT: %v", err)
	}
	var call struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Text string `json:"text"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	found := false
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			found = json.Unmarshal([]byte(line), &call) == nil
		}
	}
	if !found || call.Result.IsError || call.Result.StructuredContent.Text != storedText(t, dataDir, "blueprint", "index") {
		t.Errorf("stdio blueprint read with a JWT: %.500s", out.String())
	}

	cfgPath := filepath.Join(t.TempDir(), "tzctx.json")
	b, _ := json.Marshal(map[string]any{"oidc": cfg.OIDC})
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ token, says string }{
		"expired":      {iss.Token(t, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), "--token: unauthenticated: the bearer JWT has expired"},
		"no account":   {iss.Token(t, map[string]any{"sub": nil}), `--token: unauthenticated: the bearer JWT has no "sub" claim`},
		"unknown":      {"tzctx_nope", "--token: unauthenticated: the bearer credential is not known"},
		"wrong issuer": {iss.Token(t, map[string]any{"iss": "https://other.test"}), "was not issued by https://id.example.test"},
	} {
		r := runCLI(t, dataDir, "mcp", "--config", cfgPath, "--token", c.token)
		if r.err == nil || !strings.Contains(r.err.Error(), c.says) || r.stdout != "" {
			t.Errorf("tzctx mcp --token (%s): err %v, stdout %q; want a refusal saying %q", name, r.err, r.stdout, c.says)
		}
	}
	iss.Stop()
	r := runCLI(t, dataDir, "mcp", "--config", cfgPath, "--token", iss.Token(t, nil))
	if r.err == nil || !strings.Contains(r.err.Error(), "--token: context_unavailable: the identity provider's keys could not be fetched; try again later") {
		t.Errorf("tzctx mcp --token with the issuer down: %v", r.err)
	}
}
