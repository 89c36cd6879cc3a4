package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// sample is the sample site's version, shared by the package's tests.
var sample *store.Store

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir, err := os.MkdirTemp("", "tzctx-mcp-test-")
	if err != nil {
		panic(err)
	}
	sample, err = testkit.SampleStoreIn(dir)
	if err != nil {
		panic(err)
	}
	code := m.Run()
	sample.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The test credentials: one holding the blueprint profile, one without.
const (
	tokenBlueprint = "tok-blueprint"
	tokenPlain     = "tok-plain"
)

var testCredentials = []identity.Credential{
	{TokenSHA256: identity.SHA256(tokenBlueprint), Account: "bea", Application: "agent", Profiles: []string{"blueprint"}},
	{TokenSHA256: identity.SHA256(tokenPlain), Account: "pat", Application: "agent"},
}

// memRecorder keeps every record of the dispatcher.
type memRecorder struct {
	mu   sync.Mutex
	recs []tzctx.Record
}

func (m *memRecorder) Record(_ context.Context, r tzctx.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
}

func (m *memRecorder) all() []tzctx.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]tzctx.Record(nil), m.recs...)
}

// fixture is one dispatcher with both front ends over the sample version:
// the HTTP API at base and the MCP front end at base+"/mcp".
type fixture struct {
	d *dispatch.Dispatcher
	// trees are what the front end tells of the trees, over the same
	// reader as d.
	trees *plane.Trees
	s     *mcp.Server
	h     *mcp.HTTPHandler
	rec   *memRecorder
	base  string
	cat   *catalog.Catalog
	// issuer signs the JWTs of OIDC callers; resolver resolves them and
	// the test credentials.
	issuer   *testkit.Issuer
	resolver *identity.Resolver
}

// newFixture serves the sample version; skills, where given, are the
// catalog's.
func newFixture(t testing.TB, skills ...catalog.Skill) *fixture {
	t.Helper()
	return newFixtureOn(t, sample, skills...)
}

// newFixtureOn is newFixture serving st's version.
func newFixtureOn(t testing.TB, st *store.Store, skills ...catalog.Skill) *fixture {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Build(catalog.Embedded(), c, skills)
	if err != nil {
		t.Fatal(err)
	}
	reader := query.NewReader(query.Config{Limits: c.Limits(), Origin: "https://turnzero.ai", Access: query.DefaultAccess(), Catalog: cat}, query.FromStore(st))
	f := &fixture{rec: &memRecorder{}, cat: cat, issuer: testkit.NewIssuer(t)}
	f.resolver, err = identity.New(context.Background(), testCredentials, &identity.OIDCConfig{Issuer: f.issuer.URL, Audience: f.issuer.Audience, JWKSURL: f.issuer.JWKSURL})
	if err != nil {
		t.Fatal(err)
	}
	if f.d, err = plane.New(reader, f.resolver, f.rec); err != nil {
		t.Fatal(err)
	}
	f.trees = plane.NewTrees(f.d, reader)
	if f.s, err = mcp.New(f.d, mcp.Options{TextMaxLimit: c.Limits().TextMaxLimit, Texts: mcp.FixedTexts{Items: cat.Items()}, Trees: f.trees}); err != nil {
		t.Fatal(err)
	}
	f.h = f.s.HTTPHandler(mcp.HTTPOptions{Resolver: f.resolver, BodyLimit: 64 << 10, AllowedOrigins: []string{"https://agents.example"}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", f.h)
	mux.Handle("/", api.New(f.d, api.Options{BodyLimit: "64KB"}))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = f.h.Close(context.Background())
		srv.Close()
	})
	f.base = srv.URL
	return f
}

// connect initializes a client at the protocol version (latest where
// empty) and closes it at the test's end.
func connect(t *testing.T, c *client.Client, version string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The listening stream lives as long as the context Start gets.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if version == "" {
		version = mcpgo.LATEST_PROTOCOL_VERSION
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// httpClient is an mcp-go client of the fixture's /mcp as the caller of
// token ("" for none).
func (f *fixture) httpClient(t *testing.T, token string) *client.Client {
	t.Helper()
	// The listening GET stream carries the list-changed notifications
	// up to protocol version 2025-11-25, which the TypeScript client
	// speaks and opens it for.
	//lint:ignore SA1019 the stream is what clients of 2025-11-25 listen on
	opts := []transport.StreamableHTTPCOption{transport.WithContinuousListening()}
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(f.base+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, c, "")
}

// stdioClient is an mcp-go client of ServeStdio over pipes, as the
// caller of token ("" for none).
func (f *fixture) stdioClient(t *testing.T, token string) *client.Client {
	t.Helper()
	id, err := f.resolver.Resolve(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- f.s.ServeStdio(ctx, inR, outW, token, id)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio = %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return within 10 s of its input closing")
		}
	})
	return connect(t, client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader("")))), "")
}

// transports are the clients every transport test runs over.
func (f *fixture) transports(t *testing.T, token string) map[string]*client.Client {
	return map[string]*client.Client{"http": f.httpClient(t, token), "stdio": f.stdioClient(t, token)}
}

// postAPI POSTs an action call to the HTTP API and returns its body.
func (f *fixture) postAPI(t *testing.T, action string, args map[string]any, token string) []byte {
	t.Helper()
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, f.base+"/api/v1/actions/"+action, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// callTool calls a tool and fails the test on a protocol error.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// wire is JSON as it crosses the wire: compact, with the HTML escapes
// encoding/json writes by default, so two encodings of one value compare
// byte for byte whichever encoder wrote them.
func wire(t *testing.T, raw []byte) string {
	t.Helper()
	var c, e bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		t.Fatalf("not JSON: %v: %.200q", err, raw)
	}
	json.HTMLEscape(&e, c.Bytes())
	return e.String()
}

// textOf is a result's first text content.
func textOf(t *testing.T, res *mcpgo.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("result holds no content")
	}
	tc, ok := res.Content[0].(mcpgo.TextContent)
	if !ok {
		t.Fatalf("first content is %T, not text", res.Content[0])
	}
	return tc.Text
}

// anonymous is the identity of a caller without a credential.
var anonymous = tzctx.Identity{}

// runTSScript runs one of testdata/ts's scripts with node in dir, for at
// most two minutes, and returns what it printed on stdout; it fails the
// test with the script's stderr where the script fails.
func runTSScript(t *testing.T, node, dir, script string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	var stdout, stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s", script, err, stderr.String())
	}
	return stdout.String()
}
