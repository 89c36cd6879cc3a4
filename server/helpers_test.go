package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/identity"
	"github.com/turnzerocloud/tzctx/internal/records"
	"github.com/turnzerocloud/tzctx/internal/testkit"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/store"
)

// TestMain silences the server's slog lines: the server, the dispatcher
// and the access log all write to slog.Default().
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
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

// answer is a read_documentation answer or refusal.
type answer struct {
	query.Answer
	Error *apiErr `json:"error"`
}

type apiErr struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

var httpClient = &http.Client{Timeout: 15 * time.Second}

// postRaw POSTs body to an action and returns the status and raw body.
func postRaw(base, action string, body any, header ...string) (int, []byte, error) {
	return testkit.PostAction(httpClient, base, action, body, header...)
}

// post POSTs a read and decodes the answer; an error is a transport or
// decoding failure, not a refusal.
func post(base, action string, body any, header ...string) (int, *answer, []byte, error) {
	code, raw, err := postRaw(base, action, body, header...)
	if err != nil {
		return code, nil, raw, err
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return code, nil, raw, fmt.Errorf("answer is not JSON (%v): %.200q", err, raw)
	}
	return code, &a, raw, nil
}

// mustRead POSTs a read_documentation request that must answer 200.
func mustRead(t *testing.T, base string, body map[string]any) *answer {
	t.Helper()
	code, a, raw, err := post(base, "read_documentation", body)
	if err != nil {
		t.Fatalf("read %v: %v", body, err)
	}
	if code != http.StatusOK || a.Error != nil {
		t.Fatalf("read %v: status %d: %s", body, code, raw)
	}
	return a
}

// health GETs /healthz and returns the status code and the version named.
func health(base string) (int, string, error) {
	resp, err := httpClient.Get(base + "/healthz")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var h struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return resp.StatusCode, "", err
	}
	return resp.StatusCode, h.Version, nil
}

// waitFor polls cond every 20 ms until it holds or the timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// oidcConfig trusts iss.
func oidcConfig(iss *testkit.Issuer) *identity.OIDCConfig {
	return &identity.OIDCConfig{Issuer: iss.URL, Audience: iss.Audience, JWKSURL: iss.JWKSURL}
}

// mcpSession initializes an MCP client of base's /mcp as the caller of
// token ("" for none), with any further transport options, and closes it
// at the test's end.
func mcpSession(t *testing.T, base, token string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(base+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), req); err != nil {
		t.Fatalf("initialize %s/mcp: %v", base, err)
	}
	return c
}

// mcpCall calls a tool and fails the test on a transport error.
func mcpCall(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// recordLine is one call record in its stored form.
type recordLine struct {
	Time        time.Time `json:"time"`
	Action      string    `json:"action"`
	Transport   string    `json:"transport"`
	Subject     string    `json:"subject"`
	Code        string    `json:"code"`
	Status      int       `json:"status"`
	Credential  string    `json:"credential"`
	Account     string    `json:"account"`
	Application string    `json:"application"`
	Version     string    `json:"version"`
	CodePoints  int       `json:"code_points"`
	US          float64   `json:"us"`
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

// parseRecordsJSON parses records in their stored form, one a line,
// failing the test on a line that is not one JSON object with a time and
// action.
func parseRecordsJSON(t *testing.T, out string) []recordLine {
	t.Helper()
	var recs []recordLine
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r recordLine
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.Time.IsZero() || r.Action == "" {
			t.Fatalf("records --json line %q is not a record (%v)", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
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

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// rawPost POSTs body to url with a bearer token and returns the response
// and its body.
func rawPost(t *testing.T, url, token, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
