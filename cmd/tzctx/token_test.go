package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/server"
)

// tokenLines splits the plain output of tzctx token new into its token
// and credential lines, the lines that are not comments.
func tokenLines(t *testing.T, out string) (string, identity.Credential) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("token new printed %d lines that are not comments, want the token and the credential:\n%s", len(lines), out)
	}
	var cred identity.Credential
	dec := json.NewDecoder(strings.NewReader(lines[1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cred); err != nil {
		t.Fatalf("the credential line %q is not a credential: %v", lines[1], err)
	}
	return lines[0], cred
}

// TestTokenNewLetsItsCallerRead: the credential tzctx token new prints,
// listed in a configuration file, lets the token it prints read the
// blueprint tree over HTTP; another token is refused 401.
func TestTokenNewLetsItsCallerRead(t *testing.T) {
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "tok-1", "--activate")
	r := mustCLI(t, dataDir, "token", "new", "--account", "acme", "--application", "docs-agent", "--profile", "blueprint")
	if !strings.Contains(r.stdout, "# The token, a secret") || !strings.Contains(r.stdout, `# The credential: add this line to the "credentials" array`) {
		t.Errorf("the output does not say which line is the secret and which goes in the configuration:\n%s", r.stdout)
	}
	token, cred := tokenLines(t, r.stdout)
	if !regexp.MustCompile(`^tzctx_[A-Za-z0-9_-]{43}$`).MatchString(token) {
		t.Errorf("token %q is not tzctx_ and 32 bytes base64url", token)
	}
	want := identity.Credential{TokenSHA256: identity.SHA256(token), Account: "acme", Application: "docs-agent", Profiles: []string{"blueprint"}}
	if !reflect.DeepEqual(cred, want) {
		t.Errorf("credential %+v, want %+v", cred, want)
	}
	if strings.Contains(r.stdout[strings.Index(r.stdout, token)+len(token):], token) {
		t.Error("the token is printed twice")
	}

	line := strings.Split(strings.TrimSpace(r.stdout), "\n")[3]
	cfgPath := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(cfgPath, []byte(`{"watch_interval": "50ms", "credentials": [`+line+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.LoadConfig(cfgPath)
	if err != nil {
		t.Fatalf("a configuration listing the printed credential: %v", err)
	}
	srv := startServer(t, dataDir, cfg)
	code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "blueprint"}, "Authorization", "Bearer "+token)
	if err != nil || code != http.StatusOK || a.Text != storedText(t, dataDir, "blueprint", "index") {
		t.Errorf("blueprint read with the printed token: %d %.200s (%v)", code, raw, err)
	}
	other := mustCLI(t, dataDir, "token", "new", "--account", "acme", "--application", "docs-agent", "--profile", "blueprint")
	otherToken, _ := tokenLines(t, other.stdout)
	if otherToken == token {
		t.Fatal("two runs printed the same token")
	}
	for _, tok := range []string{otherToken, token + "x"} {
		req, _ := http.NewRequest(http.MethodPost, srv.base+"/api/v1/actions/read_documentation", strings.NewReader(`{"tree":"blueprint"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body answer
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || body.Error == nil || body.Error.Code != "unauthenticated" || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("a token the configuration lacks: %d %+v, WWW-Authenticate %q; want 401 unauthenticated with a Bearer challenge", resp.StatusCode, body.Error, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestTokenNewJSON(t *testing.T) {
	r := mustCLI(t, t.TempDir(), "token", "new", "--account", "ops", "--application", "cli", "--admin", "--profile", "blueprint", "--profile", "tzdocs", "--json")
	var out struct {
		Token      string              `json:"token"`
		Credential identity.Credential `json:"credential"`
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	if strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
		t.Errorf("--json printed more than one line:\n%s", r.stdout)
	}
	want := identity.Credential{TokenSHA256: identity.SHA256(out.Token), Account: "ops", Application: "cli", Profiles: []string{"blueprint", "tzdocs"}, Admin: true}
	if !strings.HasPrefix(out.Token, "tzctx_") || !reflect.DeepEqual(out.Credential, want) {
		t.Errorf("--json: %+v, want a tzctx_ token and %+v", out, want)
	}
	// Without --profile the credential lists none, as an empty array.
	r = mustCLI(t, t.TempDir(), "token", "new", "--account", "ops", "--application", "cli", "--json")
	if !strings.Contains(r.stdout, `"profiles":[]`) || !strings.Contains(r.stdout, `"admin":false`) {
		t.Errorf("a credential without profiles or --admin: %s", r.stdout)
	}
}

func TestTokenNewRefusesMissingFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--application", "b"}, "--account is required"},
		{[]string{"--account", "a"}, "--application is required"},
		{[]string{"--account", "", "--application", "b"}, "--account is required"},
		{[]string{"--account", "a", "--application", "b", "--profile", ""}, "--profile: is empty"},
		{[]string{"--account", "a", "--application", "b", "extra"}, "unknown command"},
	} {
		r := runCLI(t, t.TempDir(), append([]string{"token", "new"}, c.args...)...)
		if r.err == nil || !strings.Contains(r.err.Error(), c.want) || r.stdout != "" {
			t.Errorf("token new %v: err %v, stdout %q; want an error saying %q and nothing printed", c.args, r.err, r.stdout, c.want)
		}
	}
}
