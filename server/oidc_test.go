package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// TestServeOIDC: through a real serve with an oidc member, a JWT the
// issuer signed with the blueprint profile reads the blueprint tree over
// the HTTP API and over /mcp; an expired one, one for another audience
// and one of a key the issuer does not list are refused 401 with a
// Bearer challenge on both, /mcp's naming the resource metadata, which
// names the issuer. Configured tokens still work beside JWTs.
func TestServeOIDC(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "oidc-1")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(50 * time.Millisecond)
	cfg.OIDC = oidcConfig(iss)
	cfg.Credentials = []identity.Credential{{TokenSHA256: identity.SHA256("tok-static"), Account: "ops", Application: "cli", Profiles: []string{"blueprint"}}}
	srv := startServer(t, dataDir, cfg)
	want := storedText(t, dataDir, "blueprint", "index")

	good := iss.Token(t, nil)
	for name, tok := range map[string]string{"JWT": good, "static token": "tok-static"} {
		code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer "+tok)
		if err != nil || code != http.StatusOK || a.Text != want {
			t.Errorf("HTTP blueprint read with a %s: %d %.300s (%v)", name, code, raw, err)
		}
	}
	if code, a, raw, _ := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}); code != http.StatusBadRequest || a.Error == nil || !strings.Contains(a.Error.Detail, "not readable") {
		t.Errorf("anonymous blueprint read beside OIDC: %d %.200s, want 400 not readable", code, raw)
	}
	noProfile := iss.Token(t, map[string]any{"tzctx_profiles": nil})
	if code, _, raw, _ := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer "+noProfile); code != http.StatusBadRequest {
		t.Errorf("HTTP blueprint read with a JWT without the profile: %d %.200s, want 400", code, raw)
	}

	c := mcpSession(t, srv.base, good)
	res := mcpCall(t, c, "read_documentation", map[string]any{"tree": "blueprint"})
	var got struct {
		Text string `json:"text"`
	}
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || json.Unmarshal(b, &got) != nil || got.Text != want {
		t.Errorf("MCP blueprint read with a JWT: isError %v, %.300v", res.IsError, res.StructuredContent)
	}

	metaURL := srv.base + "/.well-known/oauth-protected-resource/mcp"
	refusals := map[string]struct{ token, says string }{
		"expired":        {iss.Token(t, map[string]any{"exp": time.Now().Add(-time.Minute).Unix()}), "has expired"},
		"wrong audience": {iss.Token(t, map[string]any{"aud": "another-service"}), `its audience (aud) does not include "tzctx"`},
		"unknown kid":    {iss.StrangerToken(t, "k2", nil), "signed by an unknown key"},
	}
	for name, r := range refusals {
		resp, raw := rawPost(t, srv.base+"/api/v1/actions/read_documentation", r.token, `{"tree":"blueprint"}`)
		var body answer
		_ = json.Unmarshal(raw, &body)
		if resp.StatusCode != http.StatusUnauthorized || body.Error == nil || body.Error.Code != "unauthenticated" || !strings.Contains(body.Error.Detail, r.says) {
			t.Errorf("HTTP, %s JWT: %d %s; want 401 unauthenticated saying %q", name, resp.StatusCode, raw, r.says)
		}
		if ch := resp.Header.Get("WWW-Authenticate"); !strings.Contains(ch, "Bearer") {
			t.Errorf("HTTP, %s JWT: WWW-Authenticate %q, want a Bearer challenge", name, ch)
		}
		if strings.Contains(string(raw), r.token) {
			t.Errorf("HTTP, %s JWT: the refusal echoes the token", name)
		}

		resp, raw = rawPost(t, srv.base+"/mcp", r.token, initializeBody)
		ch := resp.Header.Get("WWW-Authenticate")
		var rpc struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &rpc)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, "Bearer") || !strings.Contains(rpc.Error.Message, r.says) {
			t.Errorf("/mcp, %s JWT: %d %s, WWW-Authenticate %q; want 401 with a Bearer challenge saying %q", name, resp.StatusCode, raw, ch, r.says)
		}
		if !strings.Contains(ch, `resource_metadata="`+metaURL+`"`) {
			t.Errorf("/mcp, %s JWT: WWW-Authenticate %q does not name resource_metadata %q", name, ch, metaURL)
		}
	}

	// The metadata the challenge names, and the bare well-known path.
	for _, u := range []string{metaURL, srv.base + "/.well-known/oauth-protected-resource"} {
		resp, err := httpClient.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			BearerMethods        []string `json:"bearer_methods_supported"`
			ResourceName         string   `json:"resource_name"`
		}
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("GET %s: %d %s (%v)", u, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		if fmt.Sprint(meta.AuthorizationServers) != "["+iss.URL+"]" || meta.Resource != srv.base+"/mcp" || fmt.Sprint(meta.BearerMethods) != "[header]" || meta.ResourceName != "tzctx" {
			t.Errorf("GET %s: %+v; want resource %s/mcp, authorization_servers [%s], bearer_methods_supported [header]", u, meta, srv.base, iss.URL)
		}
	}
}

// TestServeOIDCResource: a configured oidc.resource is the metadata's
// resource whatever the request's host, served also at its own
// well-known path, which /mcp's challenge names; and an issuer whose keys
// cannot be fetched answers context_unavailable, not unauthenticated.
func TestServeOIDCResource(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "oidc-r")
	iss := testkit.NewIssuer(t)
	cfg := testConfig(50 * time.Millisecond)
	cfg.OIDC = oidcConfig(iss)
	cfg.OIDC.Resource = "https://docs.example.com/tzctx/mcp"
	srv := startServer(t, dataDir, cfg)
	for _, p := range []string{"/.well-known/oauth-protected-resource/tzctx/mcp", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := httpClient.Get(srv.base + p)
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || meta["resource"] != cfg.OIDC.Resource {
			t.Errorf("GET %s: %d, resource %v; want the configured %s", p, resp.StatusCode, meta["resource"], cfg.OIDC.Resource)
		}
	}
	// The challenge names the configured resource's metadata URL, never
	// one built from the request's Host.
	resp, _ := rawPost(t, srv.base+"/mcp", "tzctx_unknown", initializeBody)
	if ch := resp.Header.Get("WWW-Authenticate"); !strings.Contains(ch, `resource_metadata="https://docs.example.com/.well-known/oauth-protected-resource/tzctx/mcp"`) {
		t.Errorf("/mcp challenge %q does not name the configured resource's metadata", ch)
	}

	iss.Stop()
	tok := iss.Token(t, nil)
	code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer "+tok)
	if err != nil || code != http.StatusServiceUnavailable || a.Error == nil || a.Error.Code != "context_unavailable" || !strings.Contains(a.Error.Detail, "identity provider's keys could not be fetched") {
		t.Errorf("a JWT while the issuer's JWKS is down: %d %s (%v), want 503 context_unavailable", code, raw, err)
	}
}

// TestServeWithoutOIDC: without an oidc member no metadata is served, a
// JWT is an unknown token, and /mcp's challenge names no metadata.
func TestServeWithoutOIDC(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "plain")
	iss := testkit.NewIssuer(t)
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))
	if resp, err := httpClient.Get(srv.base + "/.well-known/oauth-protected-resource/mcp"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("metadata without oidc: %v %v, want 404", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	resp, raw := rawPost(t, srv.base+"/mcp", iss.Token(t, nil), initializeBody)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || strings.Contains(ch, "resource_metadata") || !strings.Contains(string(raw), "not known") {
		t.Errorf("a JWT without oidc: %d %s, WWW-Authenticate %q; want 401 not known, no resource_metadata", resp.StatusCode, raw, ch)
	}
	if iss.Fetches.Load() != 0 {
		t.Error("the JWKS was fetched without an oidc member")
	}
}
