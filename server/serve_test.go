package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/ingest"
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

// versionRow is one stored version as tzctx versions lists it: whether it
// is the active one, its name and its trees.
type versionRow struct {
	active bool
	name   string
	trees  string
}

// storedVersions lists the versions of dataDir through the store, as tzctx
// versions does, and fails the test where one does not read or verify,
// as versions would list it damaged.
func storedVersions(t *testing.T, dataDir string) []versionRow {
	t.Helper()
	st, err := store.OpenExisting(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ms, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	active, err := st.ActiveName()
	if err != nil {
		t.Fatal(err)
	}
	if bad, err := st.Unreadable(); err != nil || len(bad) > 0 {
		t.Fatalf("versions that do not read: %v (%v)", bad, err)
	}
	var rows []versionRow
	for _, m := range ms {
		if err := st.Verify(t.Context(), m.Name); err != nil {
			t.Fatalf("version %s does not verify: %v", m.Name, err)
		}
		var trees []string
		for _, tr := range m.Trees {
			trees = append(trees, tr.Name)
		}
		rows = append(rows, versionRow{active: m.Name == active, name: m.Name, trees: strings.Join(trees, ",")})
	}
	return rows
}

func TestServeEmptyDataDirIngestsSample(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "fresh") // absent: serve creates it
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))

	// The sample site was ingested and activated: the store lists it.
	rows := storedVersions(t, dataDir)
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
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
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
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
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
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
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
	t.Parallel()
	site := testkit.SampleSite(t)
	dataDir := t.TempDir()
	testkit.IngestInto(t, dataDir, "idle", false, ingest.TreeSource{Name: "cloud", Dir: filepath.Join(site, "cloud")})
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

	activate(t, dataDir, "idle")
	if !waitFor(5*time.Second, func() bool { c, v, _ := health(srv.base); return c == 200 && v == "idle" }) {
		t.Fatal("the server did not pick up the activation within 5 s (watch interval 50 ms)")
	}
	if a := mustRead(t, srv.base, map[string]any{"tree": "cloud"}); a.Text != storedText(t, dataDir, "cloud", "index") {
		t.Error("served index differs from the stored one after activation")
	}
}
