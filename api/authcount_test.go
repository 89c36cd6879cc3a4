package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/apitest"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
)

// countingResolver counts the credentials it resolves.
type countingResolver struct {
	r tzctx.Resolver
	n atomic.Int64
}

func (c *countingResolver) Resolve(ctx context.Context, bearer string) (tzctx.Identity, error) {
	c.n.Add(1)
	return c.r.Resolve(ctx, bearer)
}

// countingDispatcher counts the authentications asked of the dispatcher
// (the guard's and the front end's alike).
type countingDispatcher struct {
	*dispatch.Dispatcher
	n atomic.Int64
}

func (c *countingDispatcher) Authenticate(ctx context.Context) (context.Context, error) {
	c.n.Add(1)
	return c.Dispatcher.Authenticate(ctx)
}

// TestOneAuthenticationPerRequest: behind one chain, with the guard in
// front that keys rate limits by caller (and so resolves the credential
// first), as tzctx serve wires them, an action call over HTTP, a page
// read by GET and each MCP request over HTTP resolve the caller's
// credential once: the guard's answer rides on the request to the front
// end and the dispatcher. The HTTP API's requests are also authenticated
// once: the front end reads the guard's answer rather than asking the
// dispatcher again.
func TestOneAuthenticationPerRequest(t *testing.T) {
	t.Parallel()
	const token = "tok-once"
	res := &countingResolver{r: identity.NewStatic([]identity.Credential{{TokenSHA256: identity.SHA256(token), Account: "acme", Application: "once"}})}
	limits, err := plane.Limits()
	if err != nil {
		t.Fatal(err)
	}
	reader := query.NewReader(query.Config{Limits: limits, Origin: "https://turnzero.ai"}, query.FromStore(sample))
	d, err := plane.New(reader, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mcp.New(d, mcp.Options{TextMaxLimit: limits.TextMaxLimit, Trees: plane.NewTrees(d, reader)})
	if err != nil {
		t.Fatal(err)
	}
	mh := m.HTTPHandler(mcp.HTTPOptions{Resolver: res})
	t.Cleanup(func() { _ = mh.Close(context.Background()) })
	log := slog.New(slog.DiscardHandler)
	cd := &countingDispatcher{Dispatcher: d}
	g := &shed.Guard{Limiter: shed.NewLimiter(8, 0, 0), Buckets: shed.NewBuckets(1000, 1000, 0), Authenticator: cd, Refuser: d}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/actions/", g.Wrap(shed.Surface{Transport: tzctx.TransportHTTP}, api.New(cd, api.Options{Logger: log, Chained: true})))
	mux.Handle("/mcp", g.Wrap(shed.Surface{Transport: tzctx.TransportMCPHTTP}, mh))
	srv := httptest.NewServer(api.Chain(mux, log, 1<<20))
	t.Cleanup(srv.Close)

	once := func(what string, do func()) {
		t.Helper()
		before, asked := res.n.Load(), cd.n.Load()
		do()
		if n := res.n.Load() - before; n != 1 {
			t.Errorf("%s: the credential was resolved %d times, want once", what, n)
		}
		if n := cd.n.Load() - asked; n > 1 {
			t.Errorf("%s: the dispatcher was asked to authenticate the request %d times, want once", what, n)
		}
	}
	once("an action call", func() {
		if code, raw, err := apitest.PostRaw(srv.URL, "list_context", map[string]any{}, "Authorization", "Bearer "+token); err != nil || code != 200 {
			t.Fatalf("list_context = %d %v %.200s", code, err, raw)
		}
	})
	once("a page read by GET", func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/actions/read_documentation?tree=cloud&part=full&limit=10", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("read_documentation by GET = %d", resp.StatusCode)
		}
	})
	c := apitest.MCPSession(t, srv.URL, token)
	once("an MCP tools/call", func() { apitest.MCPCall(t, c, "list_context", map[string]any{}) })
}
