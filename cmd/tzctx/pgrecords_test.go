package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

// recordKeys reads `tzctx records --json` output into the keys of its
// records, counted.
func recordKeys(t *testing.T, out string) (map[callKey]int, int) {
	t.Helper()
	keys := map[callKey]int{}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		r, err := records.Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatalf("record %q: %v", sc.Text(), err)
		}
		keys[callKey{r.Transport, r.Action, r.Subject, r.Code}]++
		n++
	}
	return keys, n
}

// TestServePostgresOutage: tzctx serve with records.postgres_url answers
// every call while PostgreSQL is stopped and started again, and the
// database ends up holding each call's record exactly once, the same
// records as the embedded ones, read back with tzctx records
// --from-postgres; the server's log names the outage but never the
// URL's password.
func TestServePostgresOutage(t *testing.T) {
	pg := testkit.StartPostgres(t)
	t.Setenv("TZCTX_DATA", "")
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "pg", "--activate")
	// Trust authentication takes any password: it is here to be kept out
	// of the log.
	const password = "pgsecretpassw0rd"
	url := strings.Replace(pg.URL, "postgres@", "postgres:"+password+"@", 1)
	cfg := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms", "records": {"postgres_url": "`+url+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, dataDir, cfg, nil)
	calls := 0
	load := func(n int, phase string) {
		t.Helper()
		for i := range n {
			c := killLoadCalls[i%len(killLoadCalls)]
			if !c.do(base) {
				t.Fatalf("%s: call %d (%v) not answered as it should be", phase, i, c.want)
			}
			calls++
		}
	}
	load(60, "database up")
	pg.Stop(t)
	outage := time.Now()
	load(60, "database stopped")
	time.Sleep(time.Second)
	load(30, "database stopped")
	if !waitFor(10*time.Second, func() bool { return strings.Contains(srv.stderr.String(), "postgres does not take records") }) {
		t.Errorf("the outage is not logged:\n%s", srv.stderr.String())
	}
	pg.Start(t)
	t.Logf("PostgreSQL was stopped for %v", time.Since(outage).Round(time.Millisecond))
	load(60, "database back")

	var pgOut string
	var n int
	if !waitFor(60*time.Second, func() bool {
		pgOut = runProc(t, bin, nil, "--data", dataDir, "records", "--from-postgres", "--config", cfg, "--json").stdout.String()
		_, n = recordKeys(t, pgOut)
		return n >= calls
	}) {
		t.Fatalf("%d records in postgres for %d calls\n%s", n, calls, srv.stderr.String())
	}
	time.Sleep(500 * time.Millisecond) // a duplicate, were there one, would show now
	pgOut = runProc(t, bin, nil, "--data", dataDir, "records", "--from-postgres", "--config", cfg, "--json").stdout.String()
	pgKeys, n := recordKeys(t, pgOut)
	embKeys, m := recordKeys(t, runProc(t, bin, nil, "--data", dataDir, "records", "--json").stdout.String())
	if n != calls || m != calls {
		t.Fatalf("%d calls: %d records in postgres, %d embedded", calls, n, m)
	}
	for k, c := range embKeys {
		if pgKeys[k] != c {
			t.Errorf("%v: %d embedded records, %d in postgres", k, c, pgKeys[k])
		}
	}
	t.Logf("%d calls across the outage: %d records in postgres, %d embedded", calls, n, m)
	// The table form and the filters read the database too.
	table := runProc(t, bin, nil, "--data", dataDir, "records", "--from-postgres", "--config", cfg, "--action", "read_documentation", "--since", "1h").stdout.String()
	if rows := strings.Count(table, "\n"); rows != calls+1 || !strings.HasPrefix(table, "TIME") {
		t.Errorf("the table holds %d lines for %d calls:\n%.500s", rows, calls, table)
	}
	if out := runProc(t, bin, nil, "--data", dataDir, "records", "--from-postgres", "--config", cfg, "--account", "nobody").stdout.String(); out != "no records match\n" {
		t.Errorf("--account nobody: %q", out)
	}

	_ = srv.cmd.Process.Signal(os.Interrupt)
	if err := srv.wait(t, 30*time.Second); err != nil {
		t.Errorf("the server did not stop cleanly: %v", err)
	}
	if log := srv.stderr.String(); strings.Contains(log, password) {
		t.Errorf("the server logged the database password:\n%s", log)
	}
	if names := dirNames(t, filepath.Join(dataDir, "records-spool")); len(names) != 0 {
		t.Errorf("spool files left after every record reached the database: %v", names)
	}
}
