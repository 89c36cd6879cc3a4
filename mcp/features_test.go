package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/store"
)

// notes collects a client's notifications.
type notes struct {
	mu  sync.Mutex
	got []mcpgo.JSONRPCNotification
}

func (n *notes) add(m mcpgo.JSONRPCNotification) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, m)
}

func (n *notes) all() []mcpgo.JSONRPCNotification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]mcpgo.JSONRPCNotification(nil), n.got...)
}

// count is the number of notifications of method.
func (n *notes) count(method string) int {
	c := 0
	for _, m := range n.all() {
		if m.Method == method {
			c++
		}
	}
	return c
}

// waitCount waits until n holds at least want notifications of method.
func (n *notes) waitCount(t *testing.T, method string, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for n.count(method) < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d %s notifications arrived, want %d: %v", n.count(method), method, want, n.all())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stdioClientAt is a stdio client of f at protocol version 2025-11-25,
// the last with resources/subscribe, its notifications collected.
func (f *fixture) stdioClientAt(t *testing.T, token string) (*client.Client, *notes) {
	t.Helper()
	return f.stdioOf(t, f.s, token)
}

// stdioOf is stdioClientAt of the server s over f's dispatcher.
func (f *fixture) stdioOf(t *testing.T, s *mcp.Server, token string) (*client.Client, *notes) {
	t.Helper()
	id, err := f.resolver.Resolve(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		_ = s.ServeStdio(ctx, inR, outW, token, id)
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	n := &notes{}
	c.OnNotification(n.add)
	return connect(t, c, "2025-11-25"), n
}

func subscribe(c *client.Client, uri string) error {
	req := mcpgo.SubscribeRequest{}
	req.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is what clients up to 2025-11-25 send
	return c.Subscribe(context.Background(), req)
}

func completeRef(t *testing.T, c *client.Client, ref any, name, value string, args map[string]string) *mcpgo.CompleteResult {
	t.Helper()
	req := mcpgo.CompleteRequest{}
	req.Params.Ref = ref
	req.Params.Argument = mcpgo.CompleteArgument{Name: name, Value: value}
	req.Params.Context = mcpgo.CompleteContext{Arguments: args}
	res, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("completion/complete %s=%q: %v", name, value, err)
	}
	return res
}

// TestCompletionsFollowVisibility: a tree completes to the trees the
// caller may read, a route by prefix and else by its title's words, at
// most 100 values; the value completed reaches no record.
func TestCompletionsFollowVisibility(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	anon, _ := f.stdioClientAt(t, "")
	page := mcpgo.ResourceReference{Type: "ref/resource", URI: "tzctx://docs/{tree}/page/{+route}"}
	if got := completeRef(t, anon, page, "tree", "", nil).Completion.Values; strings.Join(got, ",") != "cloud,tzdocs" {
		t.Errorf("anonymous trees %v, want cloud,tzdocs (no blueprint)", got)
	}
	bp, _ := f.stdioClientAt(t, tokenBlueprint)
	if got := completeRef(t, bp, page, "tree", "bl", nil).Completion.Values; strings.Join(got, ",") != "blueprint" {
		t.Errorf("blueprint holder's trees for bl %v, want blueprint", got)
	}
	if got := completeRef(t, anon, page, "route", "", map[string]string{"tree": "blueprint"}).Completion.Values; len(got) != 0 {
		t.Errorf("anonymous routes of blueprint %v, want none", got)
	}
	got := completeRef(t, anon, page, "route", "guides/re", map[string]string{"tree": "cloud"}).Completion
	if strings.Join(got.Values, ",") != "guides/reading" {
		t.Errorf("routes for guides/re %v, want guides/reading", got.Values)
	}
	secret := "zqxsecretword"
	byTitle := completeRef(t, anon, page, "route", "troubleshoot", map[string]string{"tree": "cloud"}).Completion
	if strings.Join(byTitle.Values, ",") != "help/troubleshooting" {
		t.Errorf("routes by title words %v, want help/troubleshooting", byTitle.Values)
	}
	all := completeRef(t, anon, page, "route", "", map[string]string{"tree": "cloud"}).Completion
	if len(all.Values) < 10 || all.Total != len(all.Values) || all.HasMore {
		t.Errorf("all cloud routes: %d values, total %d, hasMore %v", len(all.Values), all.Total, all.HasMore)
	}
	section := mcpgo.PromptReference{Type: "ref/prompt", Name: "x"}
	if got := completeRef(t, anon, section, "page", "/tzdocs/markdown/h", nil).Completion.Values; strings.Join(got, ",") != "/tzdocs/markdown/headings/" {
		t.Errorf("prompt page for /tzdocs/markdown/h %v", got)
	}
	completeRef(t, anon, page, "route", secret, map[string]string{"tree": "cloud"})
	for _, r := range f.rec.all() {
		if strings.Contains(r.Subject, secret) {
			t.Errorf("a record holds the completed value: %+v", r)
		}
	}
}

// TestSubscriptionsNotifyChangedResourcesOnly: a subscriber of a page is
// told of its update when a version in which it changed is activated, a
// subscriber of an unchanged page is not; a hidden resource and one past
// the session's bound are refused; logging/setLevel brings the notice of
// the switch.
func TestSubscriptionsNotifyChangedResourcesOnly(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	st := testkit.Ingest(t, testkit.SiteTrees(t, site)...)
	f := newFixtureOn(t, st)
	c, n := f.stdioClientAt(t, "")
	changed, same := mcp.PageURI("cloud", "guides/reading"), mcp.PageURI("cloud", "guides/searching")
	for _, u := range []string{changed, same} {
		if err := subscribe(c, u); err != nil {
			t.Fatalf("subscribe %s: %v", u, err)
		}
	}
	hidden := mcp.PageURI("blueprint", "")
	rr := mcpgo.ReadResourceRequest{}
	rr.Params.URI = hidden
	_, readErr := c.ReadResource(context.Background(), rr)
	if err := subscribe(c, hidden); err == nil || readErr == nil || !strings.Contains(err.Error(), strings.SplitN(readErr.Error(), ": ", 2)[1]) {
		t.Errorf("subscribing to a blueprint page anonymously: %v, want the read's refusal %v", err, readErr)
	}
	//lint:ignore SA1019 logging/setLevel is what clients up to 2025-11-25 send
	if err := c.SetLevel(context.Background(), mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: mcpgo.LoggingLevelInfo}}); err != nil {
		t.Fatal(err)
	}
	if f.s.Subscriptions() != 2 {
		t.Errorf("%d subscriptions held, want 2", f.s.Subscriptions())
	}

	changeReadingPage(t, site)
	activate(t, st, site)
	f.s.ListsChanged()
	// A second switch changes nothing. Its notice is the last thing it
	// sends, so once that arrives every notification of the first switch
	// has too (one ordered channel per session); waiting for its
	// list_changed alone would leave the notice in flight.
	f.s.ListsChanged()
	n.waitCount(t, "notifications/message", 2)
	n.waitCount(t, string(mcpgo.MethodNotificationToolsListChanged), 2)
	var updated []string
	for _, m := range n.all() {
		if m.Method == string(mcpgo.MethodNotificationResourceUpdated) {
			u, _ := m.Params.AdditionalFields["uri"].(string)
			updated = append(updated, u)
		}
	}
	if strings.Join(updated, ",") != changed {
		t.Errorf("updated %v, want %s alone", updated, changed)
	}
	if got := n.count("notifications/message"); got != 2 {
		t.Errorf("%d notices, want one per switch: %v", got, n.all())
	}
}

// changeReadingPage adds a sentence to the cloud page guides/reading of
// site, so that its text, and only its, changes in the next version.
func changeReadingPage(t *testing.T, site string) {
	t.Helper()
	file := filepath.Join(site, "cloud", "guides", "reading.mdx")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, []byte("\n\nA sentence added in the second version.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// activate ingests site into st as a new version and serves it.
func activate(t *testing.T, st *store.Store, site string) {
	t.Helper()
	trees := testkit.SiteTrees(t, site)
	sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSubscriptionBounds: a session holds at most its bound of
// subscriptions, the server at most its total, refused rate_limited and
// context_unavailable; unsubscribing and ending the session give them
// back.
func TestSubscriptionBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, err := mcp.New(f.d, mcp.Options{SubscriptionsPerSession: 2, SubscriptionsTotal: 3, Trees: f.trees})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.stdioOf(t, s, "")
	uris := []string{mcp.PageURI("cloud", "guides/reading"), mcp.PageURI("cloud", "guides/searching"), mcp.PageURI("cloud", "guides/mcp")}
	for _, u := range uris[:2] {
		if err := subscribe(a, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := subscribe(a, uris[0]); err != nil {
		t.Errorf("subscribing again to a held resource: %v", err)
	}
	if err := subscribe(a, uris[2]); err == nil || !strings.Contains(err.Error(), "rate_limited") || !strings.Contains(err.Error(), "mcp_subscriptions_per_session") {
		t.Errorf("a third subscription of a session bound to 2: %v", err)
	}
	b, _ := f.stdioOf(t, s, "")
	if err := subscribe(b, uris[2]); err != nil {
		t.Fatal(err)
	}
	if err := subscribe(b, uris[0]); err == nil || !strings.Contains(err.Error(), "context_unavailable") || !strings.Contains(err.Error(), "mcp_subscriptions") {
		t.Errorf("a fourth subscription of a server bound to 3: %v", err)
	}
	req := mcpgo.UnsubscribeRequest{}
	req.Params.URI = uris[0]
	//lint:ignore SA1019 resources/unsubscribe is what clients up to 2025-11-25 send
	if err := a.Unsubscribe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if s.Subscriptions() != 2 {
		t.Errorf("%d subscriptions after one was given back, want 2", s.Subscriptions())
	}
	_ = a.Close()
	deadline := time.Now().Add(20 * time.Second)
	for s.Subscriptions() != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.Subscriptions() != 1 {
		t.Errorf("%d subscriptions after a session ended, want 1", s.Subscriptions())
	}
}

// TestTypeScriptClientFeatures runs the official TypeScript SDK client
// (testdata/ts/features.mjs) against /mcp: it completes a tree name and a
// page route, subscribes to two pages, sets a log level; a version in
// which one page changed is activated, and the client receives
// notifications/resources/updated for that page alone and a notice of
// the switch. It skips where node or the SDK is absent, except under CI.
func TestTypeScriptClientFeatures(t *testing.T) {
	node, dir := testkit.TSSDK(t)
	site := testkit.SampleSite(t)
	st := testkit.Ingest(t, testkit.SiteTrees(t, site)...)
	f := newFixtureOn(t, st)
	changed, same := mcp.PageURI("cloud", "guides/reading"), mcp.PageURI("cloud", "guides/searching")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := startScript(ctx, t, node, dir, "features.mjs", f.base+"/mcp", changed, same)
	cmd, stdin, lines, stderr := sc.Cmd, sc.Stdin, sc.Lines, sc.Stderr
	next := func(want string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("features.mjs ended before %q:\n%s", want, stderr.String())
			}
			return l
		case <-ctx.Done():
			t.Fatalf("features.mjs said no %q:\n%s", want, stderr.String())
		}
		return ""
	}
	if l := next("ready"); l != "ready" {
		t.Fatalf("features.mjs said %q, want ready:\n%s", l, stderr.String())
	}
	// The client's listening stream opens after initialize: switches
	// that change nothing are sent until it carries them.
	listening := false
	for !listening {
		f.s.ListsChanged()
		select {
		case l := <-lines:
			if l != "listening" {
				t.Fatalf("features.mjs said %q, want listening:\n%s", l, stderr.String())
			}
			listening = true
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("the client's stream carried no list_changed:\n%s", stderr.String())
		}
	}
	changeReadingPage(t, site)
	activate(t, st, site)
	f.s.ListsChanged()
	if _, err := io.WriteString(stdin, "end\n"); err != nil {
		t.Fatal(err)
	}
	f.s.ListsChanged()
	var out struct {
		Capabilities map[string]any `json:"capabilities"`
		Trees        struct {
			Values []string `json:"values"`
		} `json:"trees"`
		Routes struct {
			Values []string `json:"values"`
		} `json:"routes"`
		Updated []string `json:"updated"`
		Notices []struct {
			Level string         `json:"level"`
			Data  map[string]any `json:"data"`
		} `json:"notices"`
	}
	raw := next("the JSON")
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("features.mjs printed %q: %v\n%s", raw, err, stderr.String())
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("features.mjs: %v\n%s", err, stderr.String())
	}
	res, _ := out.Capabilities["resources"].(map[string]any)
	if out.Capabilities["completions"] == nil || out.Capabilities["logging"] == nil || res["subscribe"] != true {
		t.Errorf("capabilities %v, want completions, logging and resources.subscribe", out.Capabilities)
	}
	if strings.Join(out.Trees.Values, ",") != "cloud" || strings.Join(out.Routes.Values, ",") != "guides/reading" {
		t.Errorf("completions: trees %v, routes %v; want cloud and guides/reading", out.Trees.Values, out.Routes.Values)
	}
	if strings.Join(out.Updated, ",") != changed {
		t.Errorf("updated %v, want %s alone", out.Updated, changed)
	}
	switched := false
	for _, n := range out.Notices {
		if n.Level == "notice" && n.Data["event"] == "version_switch" {
			switched = true
		}
	}
	if !switched {
		t.Errorf("no notice of the version switch among %v", out.Notices)
	}
	t.Logf("the TypeScript client completed %v and %v, was told of %v and got %d notices", out.Trees.Values, out.Routes.Values, out.Updated, len(out.Notices))
}

// listenTo opens a protocol 2026-07-28 subscriptions/listen stream at
// url as token's caller, asking for resources/list_changed and updates
// of uris, and returns the response and its messages as they arrive
// (from an event stream, or the one JSON body of a refusal); the channel
// closes when the response ends.
func listenTo(t *testing.T, url, token string, uris ...string) (*http.Response, <-chan map[string]json.RawMessage) {
	t.Helper()
	subs, _ := json.Marshal(uris)
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourcesListChanged":true,"resourceSubscriptions":` + string(subs) + `}}}`
	resp := rawMCP(t, http.MethodPost, url, token, "", body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
	t.Cleanup(func() { resp.Body.Close() })
	return resp, messagesOf(resp.Body)
}

// messagesOf is the JSON-RPC messages of r, one a line or an event's
// data line, as they arrive; the channel closes when r ends.
func messagesOf(r io.Reader) <-chan map[string]json.RawMessage {
	msgs := make(chan map[string]json.RawMessage, 64)
	go func() {
		defer close(msgs)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(strings.TrimPrefix(sc.Text(), "data: ")), &m) == nil {
				msgs <- m
			}
		}
	}()
	return msgs
}

// nextMessage waits for the next message of a stream whose method is
// method ("" for an answer, "*" for any), skipping others, and returns it
// with its method; it fails the test where the stream ends first.
func nextMessage(t *testing.T, msgs <-chan map[string]json.RawMessage, method string) (map[string]json.RawMessage, string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the stream ended before a message %q", method)
			}
			var got string
			_ = json.Unmarshal(m["method"], &got)
			if got == method || method == "*" {
				return m, got
			}
		case <-timeout:
			t.Fatalf("no message %q within 20 s", method)
		}
	}
}

// TestListenRefusesAsSubscribeDoes: a subscriptions/listen stream
// (protocol 2026-07-28) listing a resource the caller may not read, or
// one that does not exist, is refused with the JSON-RPC error
// resources/subscribe gives the same URI, and holds no subscription; one
// that lists more resources than a session may subscribe to is refused
// naming the bound.
func TestListenRefusesAsSubscribeDoes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	readable := mcp.PageURI("cloud", "guides/reading")
	for _, uri := range []string{
		mcp.PageURI("blueprint", ""), mcp.PageURI("blueprint", "limits"), mcp.OutlineURI("blueprint"),
		mcp.OutlineURI("nosuch"), mcp.PageURI("cloud", "no/such/page"), mcp.ContextURI("docs:nosuch"), "tzctx://elsewhere/x",
	} {
		s := f.initHTTP(t, "2025-11-25", "")
		_, m, _ := s.post(`{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`)
		want := string(m["error"])
		if want == "" {
			t.Fatalf("resources/subscribe %s: answered %s, want a refusal", uri, m["result"])
		}
		resp, msgs := listenTo(t, f.base+"/mcp", "", readable, uri)
		got, _ := nextMessage(t, msgs, "")
		if string(got["error"]) != want {
			t.Errorf("subscriptions/listen %s: answered %s %s, want resources/subscribe's %s", uri, got["error"], got["result"], want)
		}
		resp.Body.Close()
		if n := f.s.Subscriptions(); n != 0 {
			t.Errorf("after the refusal of %s, %d subscriptions are held, want none", uri, n)
		}
	}
	s, err := mcp.New(f.d, mcp.Options{SubscriptionsPerSession: 2, Trees: f.trees})
	if err != nil {
		t.Fatal(err)
	}
	h := s.HTTPHandler(mcp.HTTPOptions{Resolver: f.resolver})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close(context.Background())
	_, msgs := listenTo(t, srv.URL+"/mcp", "", readable, mcp.PageURI("cloud", "guides/searching"), mcp.PageURI("cloud", "guides/mcp"), readable)
	if e, _ := nextMessage(t, msgs, ""); !strings.Contains(string(e["error"]), "mcp_subscriptions_per_session") {
		t.Errorf("a listen of three resources under a bound of 2: %s %s", e["error"], e["result"])
	}
	if n := s.Subscriptions(); n != 0 {
		t.Errorf("after the refusal, %d subscriptions are held, want none", n)
	}
}

// TestListenSendsUpdates: a subscriptions/listen stream listing readable
// pages is sent notifications/resources/updated, tagged with its
// subscription, for each page a version switch changed or removed, and
// for no other; its subscriptions end with the stream.
func TestListenSendsUpdates(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	st := testkit.Ingest(t, testkit.SiteTrees(t, site)...)
	f := newFixtureOn(t, st)
	changed, same, removed := mcp.PageURI("cloud", "guides/reading"), mcp.PageURI("cloud", "guides/searching"), mcp.PageURI("cloud", "guides/operations")
	resp, msgs := listenTo(t, f.base+"/mcp", "", changed, same, removed)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: %d", resp.StatusCode)
	}
	nextMessage(t, msgs, string(mcpgo.MethodNotificationSubscriptionsAcknowledged))
	if n := f.s.Subscriptions(); n != 3 {
		t.Fatalf("%d subscriptions held by the stream, want 3", n)
	}

	changeReadingPage(t, site)
	nav := filepath.Join(site, "cloud", "docs.json")
	b, err := os.ReadFile(nav)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"guides/mcp",`) {
		t.Fatalf("the sample's cloud navigation no longer lists guides/mcp then guides/operations:\n%s", b)
	}
	if err := os.WriteFile(nav, []byte(strings.Replace(string(b), `"guides/operations"`, `"guides/mcp"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(site, "cloud", "guides", "operations.mdx")); err != nil {
		t.Fatal(err)
	}
	activate(t, st, site)
	f.s.ListsChanged()
	// A second switch changes nothing; its list_changed comes after
	// every update of the first down the one stream.
	f.s.ListsChanged()
	var updated []string
	for lists := 0; lists < 2; {
		m, method := nextMessage(t, msgs, "*")
		var p struct {
			URI  string         `json:"uri"`
			Meta map[string]any `json:"_meta"`
		}
		_ = json.Unmarshal(m["params"], &p)
		switch method {
		case string(mcpgo.MethodNotificationResourcesListChanged):
			lists++
		case string(mcpgo.MethodNotificationResourceUpdated):
			updated = append(updated, p.URI)
			if p.Meta[mcpgo.MetaKeySubscriptionID] != float64(7) {
				t.Errorf("the update of %s is tagged %v, want the stream's subscription 7", p.URI, p.Meta)
			}
		}
	}
	slices.Sort(updated)
	if want := []string{removed, changed}; !slices.Equal(updated, want) {
		t.Errorf("updated %v, want %v", updated, want)
	}
	resp.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for f.s.Subscriptions() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := f.s.Subscriptions(); n != 0 {
		t.Errorf("%d subscriptions held once the stream closed, want none", n)
	}
}

// TestStdioListen: over stdio, a subscriptions/listen stream is sent
// notifications/resources/updated, tagged with its subscription, for the
// page a version switch changed; when the input ends, the stream is
// answered, its subscriptions end, and ServeStdio returns rather than
// waiting on the stream for ever.
func TestStdioListen(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	st := testkit.Ingest(t, testkit.SiteTrees(t, site)...)
	f := newFixtureOn(t, st)
	changed := mcp.PageURI("cloud", "guides/reading")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- f.s.ServeStdio(context.Background(), inR, outW, "", anonymous)
		outW.Close()
	}()
	msgs := messagesOf(outR)
	t.Cleanup(func() { inW.Close() })
	listen := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourceSubscriptions":["` + changed + `"]}}}`
	if _, err := io.WriteString(inW, listen+"\n"); err != nil {
		t.Fatal(err)
	}
	nextMessage(t, msgs, string(mcpgo.MethodNotificationSubscriptionsAcknowledged))
	if n := f.s.Subscriptions(); n != 1 {
		t.Fatalf("%d subscriptions held by the stream, want 1", n)
	}
	changeReadingPage(t, site)
	activate(t, st, site)
	f.s.ListsChanged()
	m, _ := nextMessage(t, msgs, string(mcpgo.MethodNotificationResourceUpdated))
	var p struct {
		URI  string         `json:"uri"`
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(m["params"], &p); err != nil || p.URI != changed || p.Meta[mcpgo.MetaKeySubscriptionID] != float64(7) {
		t.Errorf("the update: %s, want %s tagged with the subscription 7", m["params"], changed)
	}
	inW.Close()
	if answer, _ := nextMessage(t, msgs, ""); string(answer["id"]) != "7" || len(answer["result"]) == 0 {
		t.Errorf("the stream's answer once the input ended: %v", answer)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return within 20 s of its input ending with a listen stream open")
	}
	if n := f.s.Subscriptions(); n != 0 {
		t.Errorf("%d subscriptions held once the stream ended, want none", n)
	}
}
