package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// TestRecordsCommand: calls a server answered are listed by tzctx
// records while it runs, as a table and as JSON lines, filtered by time,
// account and action; a bad --since is refused naming the forms it
// takes, and a data directory without records says so.
func TestRecordsCommand(t *testing.T) {
	dataDir := t.TempDir()
	if r := mustCLI(t, dataDir, "records"); !strings.HasPrefix(r.stdout, "no records yet") {
		t.Errorf("records of a fresh data directory printed %q, want a line saying there are none yet", r.stdout)
	}
	if r := mustCLI(t, dataDir, "records", "--json"); r.stdout != "" {
		t.Errorf("records --json of a fresh data directory printed %q, want nothing", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "records")); !os.IsNotExist(err) {
		t.Errorf("tzctx records created the records folder (stat: %v); it only reads", err)
	}

	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "rec-a", "--activate")
	cfg := testConfig(time.Hour)
	const token = "records-test-token"
	cfg.Credentials = []identity.Credential{{TokenSHA256: sha256Hex(token), Account: "acme", Application: "docs-bot"}}
	srv := startServer(t, dataDir, cfg)
	start := time.Now()
	mustRead(t, srv.base, map[string]any{"tree": "cloud"})
	if code, _, _, err := post(srv.base, "read_documentation", map[string]any{"page": "/cloud/no-such-page/"}); err != nil || code != 404 {
		t.Fatalf("a read of a missing page: %d, %v; want 404", code, err)
	}
	mustRead(t, srv.base, map[string]any{"tree": "cloud", "query": privateWords})
	time.Sleep(20 * time.Millisecond)
	mid := time.Now()
	if code, _, raw, err := post(srv.base, "list_context", map[string]any{}, "Authorization", "Bearer "+token); err != nil || code != 200 {
		t.Fatalf("list_context as acme: %d, %v: %s", code, err, raw)
	}

	// While the server runs.
	recs := parseRecordsJSON(t, mustCLI(t, dataDir, "records", "--json").stdout)
	type want struct{ action, subject, code, account string }
	wants := []want{
		{"read_documentation", "docs:cloud", "ok", ""},
		{"read_documentation", "docs:cloud:page", "context_not_found", ""},
		{"read_documentation", "docs:cloud:search", "ok", ""},
		{"list_context", "catalog", "ok", "acme"},
	}
	if len(recs) != len(wants) {
		t.Fatalf("records --json listed %d records, want %d:\n%+v", len(recs), len(wants), recs)
	}
	for i, w := range wants {
		r := recs[i]
		if (want{r.Action, r.Subject, r.Code, r.Account}) != w || r.Transport != tzctx.TransportHTTP {
			t.Errorf("record %d = %+v, want %+v over http", i, r, w)
		}
		if r.Time.Before(start.Add(-time.Second)) || (i > 0 && r.Time.Before(recs[i-1].Time)) {
			t.Errorf("record %d has time %v, out of order or before the calls", i, r.Time)
		}
	}
	if r := recs[0]; r.Status != 200 || r.Version != "rec-a" || r.CodePoints == 0 || r.US <= 0 {
		t.Errorf("the index read's record %+v lacks its status, version, code points or duration", r)
	}
	if r := recs[1]; r.Status != 404 || r.Version != "" {
		t.Errorf("the refusal's record %+v: want status 404 and no version", r)
	}
	if r := recs[3]; r.Credential != sha256Hex(token)[:12] || r.Application != "docs-bot" {
		t.Errorf("acme's record %+v does not name its credential prefix and application", r)
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "records", dirNames(t, filepath.Join(dataDir, "records"))[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Fields(privateWords) {
		if strings.Contains(string(raw), w) {
			t.Errorf("the records hold the query word %q", w)
		}
	}

	// The table: a header and one aligned row per record.
	table := mustCLI(t, dataDir, "records").stdout
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	header := "TIME TRANSPORT ACTION SUBJECT CODE STATUS ACCOUNT APPLICATION CREDENTIAL VERSION CODE POINTS µs"
	if len(lines) != 1+len(wants) || strings.Join(strings.Fields(lines[0]), " ") != header {
		t.Fatalf("records printed:\n%s\nwant the header %q and %d rows", table, header, len(wants))
	}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 12 {
			t.Fatalf("row %q has %d cells, want 12", l, len(f))
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", f[0]); err != nil {
			t.Errorf("row %q: time is not RFC 3339 UTC to the millisecond: %v", l, err)
		}
		if f[1] != "http" || f[2] != wants[i].action || f[3] != wants[i].subject || f[4] != wants[i].code {
			t.Errorf("row %q does not show %+v", l, wants[i])
		}
		if strings.Index(l, f[2]) != strings.Index(lines[0], "ACTION") {
			t.Errorf("row %q: the ACTION column is not aligned under its header", l)
		}
	}
	if f := strings.Fields(lines[4]); f[6] != "acme" || f[7] != "docs-bot" || f[8] != sha256Hex(token)[:12] || f[9] != "-" {
		t.Errorf("acme's row %q does not show its account, application and credential, and no version", lines[4])
	}

	// Filters.
	count := func(args ...string) int {
		return len(parseRecordsJSON(t, mustCLI(t, dataDir, append([]string{"records", "--json"}, args...)...).stdout))
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--account", "acme"}, 1},
		{[]string{"--action", "read_documentation"}, 3},
		{[]string{"--action", "list_context", "--account", "acme"}, 1},
		{[]string{"--since", mid.UTC().Format(time.RFC3339Nano)}, 1},
		{[]string{"--since", "1h"}, 4},
		{[]string{"--since", time.Now().Add(time.Hour).Format(time.RFC3339)}, 0},
		{[]string{"--account", "nobody"}, 0},
	} {
		if got := count(c.args...); got != c.want {
			t.Errorf("records %v listed %d records, want %d", c.args, got, c.want)
		}
	}
	if r := mustCLI(t, dataDir, "records", "--account", "nobody"); r.stdout != "no records match\n" {
		t.Errorf("records matching nothing printed %q", r.stdout)
	}
	for _, bad := range []string{"yesterday", "-5m", "2026-12-01"} {
		r := runCLI(t, dataDir, "records", "--since", bad)
		if r.err == nil || !strings.Contains(r.err.Error(), "--since") || !strings.Contains(r.err.Error(), "RFC 3339") || !strings.Contains(r.err.Error(), "24h") {
			t.Errorf("records --since %s: err %v; want a refusal naming --since and the forms it takes", bad, r.err)
		}
	}

	// After the server stops, the same records, and a torn line is
	// skipped with a note.
	if err := srv.stop(t); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != len(wants) {
		t.Errorf("records after the server stopped: %d, want %d", got, len(wants))
	}
	seg := filepath.Join(dataDir, "records", dirNames(t, filepath.Join(dataDir, "records"))[0])
	f, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"time":"2026-12-01T10:`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := mustCLI(t, dataDir, "records", "--json")
	if got := len(parseRecordsJSON(t, r.stdout)); got != len(wants) || !strings.Contains(r.stderr, "skipped 1 unfinished last line ") {
		t.Errorf("records with a torn last line: %d records, stderr %q", got, r.stderr)
	}
}
