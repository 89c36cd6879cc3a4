package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/server"
	"github.com/turnzerocloud/tzctx/store"
)

// adminSetup is a data directory holding two versions, "a-1" (the sample
// site, active) and "b-2" (the sample with the HTTP reference changed),
// and the tokens of an admin and of a non-admin credential.
type adminSetup struct {
	dataDir       string
	admin, reader string
	readerCred    identity.Credential
}

// adminToken makes a credential with tzctx token new --json.
func adminToken(t *testing.T, dataDir string, args ...string) (string, identity.Credential) {
	t.Helper()
	r := mustCLI(t, dataDir, append([]string{"token", "new", "--json"}, args...)...)
	var out struct {
		Token      string              `json:"token"`
		Credential identity.Credential `json:"credential"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("token new --json: %v\n%s", err, r.stdout)
	}
	return out.Token, out.Credential
}

func newAdminSetup(t *testing.T) (adminSetup, server.Config) {
	t.Helper()
	s := adminSetup{dataDir: t.TempDir()}
	mustCLI(t, s.dataDir, "ingest", testkit.SampleSite(t), "--version", "a-1", "--activate")
	mustCLI(t, s.dataDir, "ingest", changedSite(t), "--version", "b-2")
	var adminCred identity.Credential
	s.admin, adminCred = adminToken(t, s.dataDir, "--account", "ops", "--application", "console", "--admin")
	s.reader, s.readerCred = adminToken(t, s.dataDir, "--account", "acme", "--application", "docs-agent", "--profile", "blueprint")
	cfg := server.DefaultConfig()
	// An hour between checks of the pointer: a switch the tests see comes
	// from the action itself, not from the watcher.
	cfg.WatchInterval = server.Duration(time.Hour)
	cfg.Credentials = []identity.Credential{adminCred, s.readerCred}
	return s, cfg
}

// adminCall POSTs an admin action as the holder of token ("" for none),
// with the console header where console is set, and decodes the answer.
func adminCall(t *testing.T, base, action, token string, console bool, body map[string]any) (int, map[string]any, []byte) {
	t.Helper()
	var h []string
	if token != "" {
		h = append(h, "Authorization", "Bearer "+token)
	}
	if console {
		h = append(h, "X-Tzctx-Console", "1")
	}
	if body == nil {
		body = map[string]any{}
	}
	code, raw, err := postRaw(base, action, body, h...)
	if err != nil {
		t.Fatalf("%s: %v", action, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: answer is not JSON (%v): %.300s", action, err, raw)
	}
	return code, m, raw
}

// refusal returns the code and detail of a refusal's envelope.
func refusal(m map[string]any) (string, string) {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(string)
	detail, _ := e["detail"].(string)
	return code, detail
}

// httpPage is the page changedSite changes.
const httpPage = "/cloud/reference/http/"

// TestAdminStatusAndActivate: admin_status answers the versions, the
// active and served one with their counts, and the last records without
// a query's words; admin_activate switches the server to the other
// version before it answers (a read right after shows the other text and
// stamp, and a continuation of the old one is context_changed), rolls
// back, and is a no-op on the active version.
func TestAdminStatusAndActivate(t *testing.T) {
	s, cfg := newAdminSetup(t)
	srv := startServer(t, s.dataDir, cfg)

	// A search whose words must not reach the records admin_status shows.
	const secret = "zebraquuxword"
	if code, _, raw, err := post(srv.base, "read_documentation", map[string]any{"tree": "cloud", "query": secret}); err != nil || code != 200 {
		t.Fatalf("search: %d %s %v", code, raw, err)
	}
	first := mustRead(t, srv.base, map[string]any{"page": httpPage, "limit": 400})
	if first.NextOffset == nil {
		t.Fatal("the HTTP reference fits one 400-code-point chunk; the test needs a page that does not")
	}

	code, st, raw := adminCall(t, srv.base, "admin_status", s.admin, true, map[string]any{})
	if code != 200 {
		t.Fatalf("admin_status as admin: %d %s", code, raw)
	}
	if strings.Contains(string(raw), secret) {
		t.Fatalf("admin_status shows a query's words: %s", raw)
	}
	if st["contract_version"] != 1.0 || st["active"] != "a-1" || st["served"] != "a-1" || st["fault"] != nil {
		t.Errorf("admin_status: contract_version %v active %v served %v fault %v; want 1, a-1, a-1, null", st["contract_version"], st["active"], st["served"], st["fault"])
	}
	vs, _ := st["versions"].([]any)
	if len(vs) != 2 {
		t.Fatalf("admin_status lists %d versions, want a-1 and b-2: %s", len(vs), raw)
	}
	stor, err := store.Open(s.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a-1", "b-2"} {
		v := vs[i].(map[string]any)
		meta, err := stor.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		served := name == "a-1"
		if v["name"] != name || v["active"] != served || v["served"] != served || v["damaged"] != false || v["created"] != meta.Created.UTC().Format(time.RFC3339) || v["pages"] != float64(meta.Pages) {
			t.Errorf("version %d: %v; want %s (created %s, %d pages), active and served %v", i, v, name, meta.Created.UTC().Format(time.RFC3339), meta.Pages, served)
		}
		trees, _ := v["trees"].([]any)
		if len(trees) != len(meta.Trees) {
			t.Fatalf("version %s: %d trees, want %d", name, len(trees), len(meta.Trees))
		}
		for j, tm := range meta.Trees {
			tr := trees[j].(map[string]any)
			if tr["tree"] != tm.Name || tr["pages"] != float64(tm.Pages) || tr["bytes"] != float64(tm.Bytes) {
				t.Errorf("version %s tree %d: %v, want %s with %d pages, %d bytes", name, j, tr, tm.Name, tm.Pages, tm.Bytes)
			}
			if !served {
				if tr["code_points"] != nil {
					t.Errorf("version %s tree %s: code_points %v for a version not served, want null", name, tm.Name, tr["code_points"])
				}
				continue
			}
			if want := utf8.RuneCountInString(storedText(t, s.dataDir, tm.Name, "full")); tr["code_points"] != float64(want) {
				t.Errorf("served tree %s: code_points %v, want %d, its whole text's", tm.Name, tr["code_points"], want)
			}
		}
	}
	recs, _ := st["records"].([]any)
	if len(recs) != 2 {
		t.Fatalf("admin_status answers %d records, want the search's and the page read's: %s", len(recs), raw)
	}
	newest, oldest := recs[0].(map[string]any), recs[1].(map[string]any)
	if newest["action"] != "read_documentation" || newest["subject"] != "docs:cloud:page:reference/http" || newest["code"] != "ok" || newest["transport"] != "http" {
		t.Errorf("newest record %v, want the page read", newest)
	}
	if oldest["action"] != "read_documentation" || oldest["subject"] != "docs:cloud:search" {
		t.Errorf("oldest record %v, want the search", oldest)
	}
	for _, k := range []string{"time", "status", "code_points", "us"} {
		if _, ok := newest[k]; !ok {
			t.Errorf("record %v lacks %s, which tzctx records --json prints", newest, k)
		}
	}
	if code, st, raw := adminCall(t, srv.base, "admin_status", s.admin, true, map[string]any{"records": 1}); code != 200 || len(st["records"].([]any)) != 1 {
		t.Errorf("admin_status with records 1: %d %s", code, raw)
	} else if r := st["records"].([]any)[0].(map[string]any); r["action"] != "admin_status" || r["account"] != "ops" {
		t.Errorf("the newest record is %v, want the admin_status call before", r)
	}

	// Activate b-2: the answer comes once the server serves it.
	code, act, raw := adminCall(t, srv.base, "admin_activate", s.admin, true, map[string]any{"version": "b-2"})
	if code != 200 || act["active"] != "b-2" || act["previous"] != "a-1" || act["served"] != "b-2" || act["contract_version"] != 1.0 {
		t.Fatalf("admin_activate b-2: %d %s", code, raw)
	}
	if got := activeName(t, s.dataDir); got != "b-2" {
		t.Fatalf("ACTIVE names %q after admin_activate b-2", got)
	}
	second := mustRead(t, srv.base, map[string]any{"page": httpPage, "limit": 400})
	if second.Stamp == first.Stamp || !strings.Contains(second.Text, "THE") {
		t.Fatalf("the read right after admin_activate b-2 is not b-2's text (stamp %s, was %s)", second.Stamp, first.Stamp)
	}
	if code, a, raw, err := post(srv.base, "read_documentation", map[string]any{"page": httpPage, "limit": 400, "offset": *first.NextOffset, "stamp": first.Stamp}); err != nil || code != 409 || a.Error == nil || a.Error.Code != "context_changed" {
		t.Errorf("a continuation of a-1's text on b-2: %d %s, want 409 context_changed", code, raw)
	}
	if code, h, err := health(srv.base); err != nil || code != 200 || h != "b-2" {
		t.Errorf("/healthz after admin_activate b-2: %d %q %v", code, h, err)
	}

	// Roll back to a-1.
	code, act, raw = adminCall(t, srv.base, "admin_activate", s.admin, true, map[string]any{"version": "a-1"})
	if code != 200 || act["active"] != "a-1" || act["previous"] != "b-2" || act["served"] != "a-1" {
		t.Fatalf("admin_activate a-1 (roll back): %d %s", code, raw)
	}
	third := mustRead(t, srv.base, map[string]any{"page": httpPage, "limit": 400})
	if third.Stamp != first.Stamp || third.Text != first.Text {
		t.Fatal("the read after rolling back to a-1 is not a-1's text")
	}
	// The active version again: a no-op of the same shape.
	code, act, raw = adminCall(t, srv.base, "admin_activate", s.admin, true, map[string]any{"version": "a-1"})
	if code != 200 || act["active"] != "a-1" || act["previous"] != "a-1" || act["served"] != "a-1" {
		t.Errorf("admin_activate of the active a-1: %d %s", code, raw)
	}
	if code, st, raw := adminCall(t, srv.base, "admin_status", s.admin, true, nil); code != 200 || st["active"] != "a-1" || st["served"] != "a-1" {
		t.Errorf("admin_status after the roll back: %d %s", code, raw)
	}

	// Each activation is recorded like any call.
	out := mustCLI(t, s.dataDir, "records", "--action", "admin_activate", "--json").stdout
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("tzctx records --action admin_activate printed %d records, want 3:\n%s", len(lines), out)
	}
	for i, want := range []string{"version:b-2", "version:a-1", "version:a-1"} {
		var r map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		if r["subject"] != want || r["code"] != "ok" || r["status"] != 200.0 || r["account"] != "ops" || r["application"] != "console" {
			t.Errorf("activation record %d: %v, want subject %s, ok 200, account ops", i, r, want)
		}
	}
}

// TestAdminRefusals: an anonymous caller, a non-admin credential, a call
// without the console header, an unknown version, a damaged version and
// a malformed name are each refused with the agreed code and status,
// change nothing (ACTIVE and the served version stay a-1) and are
// recorded.
func TestAdminRefusals(t *testing.T) {
	s, cfg := newAdminSetup(t)
	// c-3 is stored but damaged: a file differs from its checksum.
	mustCLI(t, s.dataDir, "ingest", thirdSite(t), "--version", "c-3")
	damageVersion(t, filepath.Join(s.dataDir, "versions", "c-3"))
	srv := startServer(t, s.dataDir, cfg)

	cases := []struct {
		name, action, token string
		console             bool
		body                map[string]any
		code                int
		errCode, detail     string
		subject             string
	}{
		{"anonymous status", "admin_status", "", true, nil, 401, "unauthenticated", "admin credential", "versions"},
		{"anonymous activate", "admin_activate", "", true, map[string]any{"version": "b-2"}, 401, "unauthenticated", "admin credential", "version:b-2"},
		{"non-admin status", "admin_status", s.reader, true, nil, 403, "invalid_request", "this action needs an admin credential", "versions"},
		{"non-admin activate", "admin_activate", s.reader, true, map[string]any{"version": "b-2"}, 403, "invalid_request", "this action needs an admin credential", "version:b-2"},
		{"no console header, status", "admin_status", s.admin, false, nil, 403, "invalid_request", "X-Tzctx-Console: 1", "versions"},
		{"no console header, activate", "admin_activate", s.admin, false, map[string]any{"version": "b-2"}, 403, "invalid_request", "X-Tzctx-Console: 1", "version:b-2"},
		{"unknown version", "admin_activate", s.admin, true, map[string]any{"version": "zz-9"}, 404, "context_not_found", `"zz-9"`, "version:zz-9"},
		{"damaged version", "admin_activate", s.admin, true, map[string]any{"version": "c-3"}, 503, "context_unavailable", `"c-3" is damaged`, "version:c-3"},
		{"malformed name", "admin_activate", s.admin, true, map[string]any{"version": "../a-1"}, 400, "invalid_request", "version", "version"},
		{"no name", "admin_activate", s.admin, true, map[string]any{}, 400, "invalid_request", "version", "version"},
	}
	for _, c := range cases {
		code, m, raw := adminCall(t, srv.base, c.action, c.token, c.console, c.body)
		gotCode, detail := refusal(m)
		if code != c.code || gotCode != c.errCode || !strings.Contains(detail, c.detail) {
			t.Errorf("%s: %d %s; want %d %s with a detail holding %q", c.name, code, raw, c.code, c.errCode, c.detail)
		}
		if got := activeName(t, s.dataDir); got != "a-1" {
			t.Fatalf("%s: ACTIVE names %q, want a-1 unchanged", c.name, got)
		}
		if code, h, err := health(srv.base); err != nil || code != 200 || h != "a-1" {
			t.Fatalf("%s: /healthz %d %q %v, want a-1 still served", c.name, code, h, err)
		}
	}
	// A console header with another value is no console header.
	code, m, raw := adminCall(t, srv.base, "admin_status", s.admin, false, nil)
	if c, _ := refusal(m); code != 403 || c != "invalid_request" {
		t.Errorf("without the header: %d %s", code, raw)
	}
	if code, raw, err := postRaw(srv.base, "admin_status", map[string]any{}, "Authorization", "Bearer "+s.admin, "X-Tzctx-Console", "true"); err != nil || code != 403 {
		t.Errorf("X-Tzctx-Console: true: %d %s %v, want 403", code, raw, err)
	}

	// The refusals are counted per action and outcome, as the console's
	// metrics panel reads them.
	_, metrics := testkit.Scrape(t, srv.base+"/metrics")
	for _, want := range []string{
		`tzctx_calls_total{account="anonymous",action="admin_activate",application="",outcome="unauthenticated",transport="http"} 1`,
		`tzctx_calls_total{account="acme",action="admin_activate",application="docs-agent",outcome="invalid_request",transport="http"} 1`,
		`tzctx_calls_total{account="ops",action="admin_activate",application="console",outcome="context_not_found",transport="http"} 1`,
		`tzctx_calls_total{account="ops",action="admin_activate",application="console",outcome="context_unavailable",transport="http"} 1`,
		`tzctx_call_duration_seconds_count{action="admin_status"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "admin_"))
		}
	}

	// No other site's page may send the header: the API answers a CORS
	// preflight with no grant.
	pre, err := http.NewRequest(http.MethodOptions, srv.base+"/api/v1/actions/admin_activate", nil)
	if err != nil {
		t.Fatal(err)
	}
	pre.Header.Set("Origin", "https://elsewhere.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization, content-type, x-tzctx-console")
	resp, err := httpClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Headers") != "" {
		t.Errorf("a CORS preflight from another origin is granted: %d %v", resp.StatusCode, resp.Header)
	}

	// Every refusal is recorded, in order, with the caller's credential.
	out := mustCLI(t, s.dataDir, "records", "--json").stdout
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("records line %q: %v", l, err)
		}
		if a := r["action"].(string); strings.HasPrefix(a, "admin_") {
			recs = append(recs, r)
		}
	}
	// The cases, the two header refusals, and the preflight, which is
	// refused 405 as any method but POST is on an operator action.
	if len(recs) != len(cases)+3 {
		t.Fatalf("%d admin records, want %d:\n%s", len(recs), len(cases)+3, out)
	}
	if last := recs[len(recs)-1]; last["action"] != "admin_activate" || last["status"] != float64(http.StatusMethodNotAllowed) {
		t.Errorf("the preflight's record: %v, want a 405 of admin_activate", last)
	}
	for i, c := range cases {
		r := recs[i]
		if r["action"] != c.action || r["code"] != c.errCode || r["status"] != float64(c.code) || r["subject"] != c.subject {
			t.Errorf("record of %s: %v; want %s %s %d subject %s", c.name, r, c.action, c.errCode, c.code, c.subject)
		}
		switch c.token {
		case "":
			if r["credential"] != nil || r["account"] != nil {
				t.Errorf("record of %s names a caller: %v", c.name, r)
			}
		case s.reader:
			if r["account"] != "acme" || !strings.HasPrefix(s.readerCred.TokenSHA256, r["credential"].(string)) {
				t.Errorf("record of %s: %v, want account acme and the credential's hash prefix", c.name, r)
			}
		default:
			if r["account"] != "ops" {
				t.Errorf("record of %s: %v, want account ops", c.name, r)
			}
		}
	}
}

// thirdSite is the sample site with one page changed, so that its
// version differs from a-1's and b-2's.
func thirdSite(t *testing.T) string {
	t.Helper()
	return editedSample(t, "site-c", func(s string) string { return s + "\nA third version's closing line.\n" })
}

// damageVersion appends a byte to the biggest file of a version folder
// but meta.json, so the version no longer verifies.
func damageVersion(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var target string
	var size int64 = -1
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || e.IsDir() || e.Name() == "meta.json" {
			continue
		}
		if fi.Size() > size {
			target, size = filepath.Join(dir, e.Name()), fi.Size()
		}
	}
	f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAdminActionsHiddenFromAgents: no caller, admin or not, is offered
// an admin action as a catalog payload entry or an MCP tool, and MCP
// cannot call one; a refusal naming an unknown action does not list
// them.
func TestAdminActionsHiddenFromAgents(t *testing.T) {
	s, cfg := newAdminSetup(t)
	srv := startServer(t, s.dataDir, cfg)
	for _, who := range []struct{ name, token string }{{"anonymous", ""}, {"non-admin", s.reader}, {"admin", s.admin}} {
		var h []string
		if who.token != "" {
			h = []string{"Authorization", "Bearer " + who.token}
		}
		code, raw, err := postRaw(srv.base, "list_context", map[string]any{}, h...)
		if err != nil || code != 200 {
			t.Fatalf("list_context as %s: %d %s %v", who.name, code, raw, err)
		}
		var cat struct {
			Entries []struct {
				ID string `json:"id"`
			} `json:"entries"`
			Next *int `json:"next_offset"`
		}
		if err := json.Unmarshal(raw, &cat); err != nil {
			t.Fatal(err)
		}
		if cat.Next != nil {
			t.Fatalf("the catalog runs past one page; the test reads one")
		}
		payloads := 0
		for _, e := range cat.Entries {
			if strings.HasPrefix(e.ID, "payload:") {
				payloads++
			}
			if strings.HasPrefix(e.ID, "payload:admin_") {
				t.Errorf("list_context offers %s to the %s caller", e.ID, who.name)
			}
		}
		// The reading actions: list_context, read_context,
		// read_documentation, search_documentation, list_library and
		// read_library_entry.
		if payloads != 6 {
			t.Errorf("list_context lists %d payload entries to the %s caller, want the six reading actions'", payloads, who.name)
		}

		c := mcpSession(t, srv.base, who.token)
		tools, err := c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if strings.HasPrefix(tool.Name, "admin_") {
				t.Errorf("MCP tools/list offers %s to the %s caller", tool.Name, who.name)
			}
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "admin_status", map[string]any{}
		if res, err := c.CallTool(t.Context(), req); err == nil && !res.IsError {
			t.Errorf("MCP tools/call admin_status as the %s caller answered: %+v", who.name, res.Content)
		}
	}
	code, a, raw, err := post(srv.base, "no_such_action", map[string]any{})
	if err != nil || code != 404 || a.Error == nil || strings.Contains(a.Error.Detail, "admin_") || !strings.Contains(a.Error.Detail, "read_documentation") {
		t.Errorf("an unknown action: %d %s, want 404 listing the reading actions alone", code, raw)
	}
	if got := activeName(t, s.dataDir); got != "a-1" {
		t.Errorf("ACTIVE names %q, want a-1", got)
	}
}

// TestAdminActivateRefusedWhileFollowing: a server following published
// versions refuses admin_activate, naming what decides there, and leaves
// ACTIVE as it was; admin_status still answers. The store it follows is
// away, so the server serves the version it has.
func TestAdminActivateRefusedWhileFollowing(t *testing.T) {
	s, cfg := newAdminSetup(t)
	cfg.Follow.URL = "s3://versions/site"
	cfg.Follow.Interval = server.Duration(time.Hour)
	cfg.S3.Endpoint = "http://" + freeAddr(t) // nothing listens there
	cfg.S3.AccessKey, cfg.S3.SecretKey, cfg.S3.Region = "test", "testsecret", "us-east-1"
	srv := startServer(t, s.dataDir, cfg)
	if !waitFor(10*time.Second, func() bool { _, v, _ := health(srv.base); return v == "a-1" }) {
		t.Fatal("the following server does not serve a-1, the version it has")
	}
	code, m, raw := adminCall(t, srv.base, "admin_activate", s.admin, true, map[string]any{"version": "b-2"})
	if c, detail := refusal(m); code != 400 || c != "invalid_request" || !strings.Contains(detail, "follows") || !strings.Contains(detail, "s3://versions/site") || !strings.Contains(detail, "tzctx publish") {
		t.Errorf("admin_activate while following: %d %s; want 400 invalid_request naming the followed location and tzctx publish", code, raw)
	}
	if got := activeName(t, s.dataDir); got != "a-1" {
		t.Errorf("ACTIVE names %q after the refusal, want a-1", got)
	}
	if code, st, raw := adminCall(t, srv.base, "admin_status", s.admin, true, nil); code != 200 || st["active"] != "a-1" {
		t.Errorf("admin_status while following: %d %s", code, raw)
	}
	out := mustCLI(t, s.dataDir, "records", "--action", "admin_activate", "--json").stdout
	var r map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r["code"] != "invalid_request" || r["status"] != 400.0 || r["subject"] != "version:b-2" {
		t.Errorf("the refusal's record: %s (%v)", out, err)
	}
}

// TestAdminStatusWithoutEmbeddedRecords: with records.embedded false the
// answer holds no records and a note saying where they are.
func TestAdminStatusWithoutEmbeddedRecords(t *testing.T) {
	s, cfg := newAdminSetup(t)
	off := false
	cfg.Records.Embedded = &off
	srv := startServer(t, s.dataDir, cfg)
	mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	code, st, raw := adminCall(t, srv.base, "admin_status", s.admin, true, nil)
	if code != 200 || len(st["records"].([]any)) != 0 || !strings.Contains(st["records_note"].(string), "records.embedded is false") {
		t.Errorf("admin_status with records.embedded false: %d %s", code, raw)
	}
	if code != http.StatusOK {
		return
	}
	if st["active"] != "a-1" {
		t.Errorf("active %v, want a-1", st["active"])
	}
}

// TestAdminActionsAnswerPOSTAlone: an operator action is never run by a
// GET (a URL a link or an image can fetch) or any method but POST, even
// with an admin credential and the console header; the refusal is 405
// with Allow: POST, changes nothing and is recorded.
func TestAdminActionsAnswerPOSTAlone(t *testing.T) {
	s, cfg := newAdminSetup(t)
	srv := startServer(t, s.dataDir, cfg)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodHead} {
		req, err := http.NewRequest(m, srv.base+"/api/v1/actions/admin_activate?version=b-2", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.admin)
		req.Header.Set("X-Tzctx-Console", "1")
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s admin_activate: %d Allow %q %s, want 405 with Allow: POST", m, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
		if got := activeName(t, s.dataDir); got != "a-1" {
			t.Fatalf("%s admin_activate: ACTIVE names %q, want a-1 unchanged", m, got)
		}
	}
	out := mustCLI(t, s.dataDir, "records", "--json").stdout
	if n := strings.Count(out, `"action":"admin_activate"`); n != 3 {
		t.Errorf("%d records of admin_activate, want the 3 refusals:\n%s", n, out)
	}
}
