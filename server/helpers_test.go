package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/apitest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
	"github.com/turnzerocloud/tzctx/store"
)

// What the tests share with the other package that starts a server.
type (
	answer = apitest.Answer
	apiErr = apitest.APIError
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
	rawPost          = apitest.RawPost
	sha256Hex        = apitest.SHA256Hex
	readWhole        = apitest.ReadWhole
	storedText       = apitest.StoredText
	dirNames         = apitest.DirNames
	oidcConfig       = apitest.OIDCConfig
	activeName       = apitest.ActiveName
	damageFile       = apitest.DamageFile
	pointAt          = apitest.PointAt
)

// TestMain silences the server's slog lines: the server, the dispatcher
// and the access log all write to slog.Default().
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// defaultLogs sends the lines of slog.Default(), which the server, the
// dispatcher and the access log write, to the buffer it returns until
// the test ends.
func defaultLogs(t *testing.T) *testkit.SyncBuffer {
	t.Helper()
	logs := &testkit.SyncBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logs
}

// testServer is a Server serving on a loopback listener.
type testServer struct {
	base   string
	srv    *Server
	cancel context.CancelFunc
	done   chan error
}

// startServer builds a Server over dataDir with New and runs Serve on a
// listener of 127.0.0.1:0 in a goroutine, as tzctx serve does. The server
// is stopped and closed at the test's end where the test has not stopped
// it.
func startServer(t *testing.T, dataDir string, cfg Config) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, cfg, dataDir, slog.Default())
	if err != nil {
		cancel()
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		_ = srv.Close()
		t.Fatal(err)
	}
	s := &testServer{base: "http://" + ln.Addr().String(), srv: srv, cancel: cancel, done: make(chan error, 1)}
	go func() {
		err := srv.Serve(ctx, ln)
		_ = srv.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-s.done:
			s.done <- err
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return within 15 s of its context ending")
		}
	})
	return s
}

// stop cancels the server's context and returns what Serve returned,
// once the server is closed.
func (s *testServer) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return within 15 s of its context ending")
		return nil
	}
}

// testConfig is the default configuration with a short watch interval.
func testConfig(watch time.Duration) Config {
	c := DefaultConfig()
	c.WatchInterval = Duration(watch)
	return c
}

// ingestSample ingests the sample site into dataDir as version, and
// activates it, as tzctx ingest SITE --version V --activate does.
func ingestSample(t *testing.T, dataDir, version string) {
	t.Helper()
	testkit.IngestInto(t, dataDir, version, true, testkit.SiteTrees(t, testkit.SampleSite(t))...)
}

// recordsJSON is what tzctx records --json prints of dataDir's records:
// each record in its stored form, one a line, oldest first.
func recordsJSON(t *testing.T, dataDir string) string {
	t.Helper()
	recs, _, err := records.Read(filepath.Join(dataDir, "records"), records.Filter{})
	if err != nil && !errors.Is(err, records.ErrNoRecords) {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		raw, err := records.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(raw, '\n'))
	}
	return b.String()
}

// changedSite returns a copy of the sample site whose cloud tree differs
// from the sample throughout: the HTTP reference page has every "the"
// upper-cased, and the page's title changes.
func changedSite(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "site-b")
	testkit.CopyTree(t, testkit.SampleSite(t), dst)
	f := filepath.Join(dst, "cloud", "reference", "http.mdx")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	c := strings.Replace(string(b), `title: "HTTP reference"`, `title: "HTTP reference, version B"`, 1)
	if c == string(b) {
		t.Fatal("sample http.mdx has no title \"HTTP reference\" to change; update changedSite")
	}
	if err := os.WriteFile(f, []byte(strings.ReplaceAll(c, "the", "THE")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// activate makes a stored version of dataDir the active one, as tzctx
// activate NAME does.
func activate(t *testing.T, dataDir, name string) {
	t.Helper()
	st, err := store.OpenExisting(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Activate(context.Background(), name); err != nil {
		t.Fatalf("activate %s: %v", name, err)
	}
}

// privateWords are a query's words no log line may hold.
const privateWords = "zanzibarquokka marmaladeheron"

const initializeBody = apitest.InitializeBody
