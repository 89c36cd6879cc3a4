package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/server"

	"github.com/turnzerocloud/tzctx/internal/dev/apitest"
)

// What the tests share with the other package that starts a server.
type (
	answer     = apitest.Answer
	recordLine = apitest.RecordLine
)

var (
	httpClient       = apitest.HTTPClient
	postRaw          = apitest.PostRaw
	post             = apitest.Post
	mustRead         = apitest.MustRead
	health           = apitest.Health
	waitFor          = apitest.WaitFor
	freePort         = apitest.FreePort
	mcpSession       = apitest.MCPSession
	mcpCall          = apitest.MCPCall
	parseRecordsJSON = apitest.ParseRecordsJSON
	sha256Hex        = apitest.SHA256Hex
	readWhole        = apitest.ReadWhole
	storedText       = apitest.StoredText
	dirNames         = apitest.DirNames
	oidcConfig       = apitest.OIDCConfig
	activeName       = apitest.ActiveName
	damageFile       = apitest.DamageFile
	pointAt          = apitest.PointAt
)

const initializeBody = apitest.InitializeBody

// TestMain silences the server's slog lines: serve, the dispatcher and the
// access log all write to slog.Default(); and removes the tzctx binary
// the package's tests share (testkit.Binary).
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	code := m.Run()
	testkit.RemoveBinary()
	os.Exit(code)
}

// cliResult is what one in-process run of the command printed.
type cliResult struct {
	stdout, stderr string
	err            error
}

// runCLI runs tzctx --data dataDir ARGS... in process through newRoot.
func runCLI(t *testing.T, dataDir string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetArgs(append([]string{"--data", dataDir}, args...))
	err := root.Execute()
	return cliResult{stdout: out.String(), stderr: errb.String(), err: err}
}

// mustCLI runs the command and fails the test on an error.
func mustCLI(t *testing.T, dataDir string, args ...string) cliResult {
	t.Helper()
	r := runCLI(t, dataDir, args...)
	if r.err != nil {
		t.Fatalf("tzctx %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r
}

// versionRow is one row of `tzctx versions`.
type versionRow struct {
	active bool
	name   string
	create time.Time
	trees  string
	pages  string
	bytes  string
	state  string // ok or damaged
}

// parseVersions parses the table `tzctx versions` prints, and fails the
// test where the output lists a fault below the table: tests that expect
// faults call parseVersionsFaults.
func parseVersions(t *testing.T, out string) []versionRow {
	t.Helper()
	rows, faults := parseVersionsFaults(t, out)
	if len(faults) > 0 {
		t.Fatalf("versions reports faults:\n%s", out)
	}
	return rows
}

// parseVersionsFaults parses the table `tzctx versions` prints and the
// fault lines that follow it after a blank line.
func parseVersionsFaults(t *testing.T, out string) ([]versionRow, []string) {
	t.Helper()
	table, notes, _ := strings.Cut(strings.TrimRight(out, "\n"), "\n\n")
	lines := strings.Split(table, "\n")
	if len(lines) == 0 || strings.Join(strings.Fields(lines[0]), " ") != "ACTIVE NAME CREATED TREES PAGES BYTES STATE" {
		t.Fatalf("versions header is not ACTIVE NAME CREATED TREES PAGES BYTES STATE:\n%s", out)
	}
	var rows []versionRow
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		// BYTES is a number and a unit ("12.3 MiB"): one column.
		if n := len(f); n >= 3 && strings.HasSuffix(f[n-2], "B") {
			f = append(f[:n-3], f[n-3]+" "+f[n-2], f[n-1])
		}
		r := versionRow{}
		if len(f) == 7 && f[0] == "*" {
			r.active, f = true, f[1:]
		}
		if len(f) != 6 {
			t.Fatalf("versions row %q: want [*] NAME CREATED TREES PAGES BYTES STATE", l)
		}
		var c time.Time
		if f[1] != "-" || f[5] != "damaged" { // an unreadable version has no date
			var err error
			if c, err = time.Parse(time.RFC3339, f[1]); err != nil {
				t.Fatalf("versions row %q: created is not RFC 3339: %v", l, err)
			}
		}
		r.name, r.create, r.trees, r.pages, r.bytes, r.state = f[0], c, f[2], f[3], f[4], f[5]
		if r.state != "ok" && r.state != "damaged" {
			t.Fatalf("versions row %q: state %q is neither ok nor damaged", l, r.state)
		}
		rows = append(rows, r)
	}
	var faults []string
	if notes != "" {
		faults = strings.Split(notes, "\n")
	}
	return rows, faults
}

// changedSite returns a copy of the sample site whose cloud tree differs
// from the sample throughout: the HTTP reference page has every "the"
// upper-cased (same length, changes spread over the page), and the page's
// title changes, so the composed cloud index changes too.
func changedSite(t *testing.T) string {
	t.Helper()
	return editedSample(t, "site-b", func(s string) string {
		c := strings.Replace(s, `title: "HTTP reference"`, `title: "HTTP reference, version B"`, 1)
		if c == s {
			t.Fatal("sample http.mdx has no title \"HTTP reference\" to change; update changedSite")
		}
		return strings.ReplaceAll(c, "the", "THE")
	})
}

// editedSample returns a copy of the sample site, in a folder named name,
// whose cloud HTTP reference page is edit's of the sample's.
func editedSample(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	testkit.CopyTree(t, testkit.SampleSite(t), dst)
	f := filepath.Join(dst, "cloud", "reference", "http.mdx")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// testServer is an in-process server started with serve.
type testServer struct {
	base   string
	cancel context.CancelFunc
	done   chan error
}

// startServer runs serve(ctx, dataDir, cfg, ready) in a goroutine on
// 127.0.0.1:0 and returns once it listens. The server is stopped at the
// test's end where the test has not stopped it.
func startServer(t *testing.T, dataDir string, cfg server.Config) *testServer {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	s := &testServer{cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- serve(ctx, dataDir, cfg, ready) }()
	select {
	case addr := <-ready:
		s.base = "http://" + addr
	case err := <-s.done:
		cancel()
		t.Fatalf("serve returned before listening: %v", err)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("serve did not listen within 60 s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			t.Error("serve did not return within 15 s of its context ending")
		}
	})
	return s
}

// stop cancels the server's context and returns what serve returned.
func (s *testServer) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return within 15 s of its context ending")
		return nil
	}
}

// testConfig is the default configuration with a short watch interval.
func testConfig(watch time.Duration) server.Config {
	c := server.DefaultConfig()
	c.WatchInterval = server.Duration(watch)
	return c
}
