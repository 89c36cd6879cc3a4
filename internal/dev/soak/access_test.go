package soak_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// accessFixture is two servers with one configuration (blueprint gated
// behind the blueprint profile): gated serves the sample site, and
// oracle the same version name with the blueprint tree left out. A
// non-holder's answers may depend only on what it may read, so each must
// be byte for byte what the oracle answers: the oracle cannot leak what it
// does not hold.
type accessFixture struct {
	site           string
	gated, oracle  *server
	gData, oData   string   // their data directories
	cfg            string   // their configuration file
	blueprintWords []string // words blueprint's pages hold and no other tree's
	// holderContinuations are the holder's catalog and search stamps
	// sent with an offset, as a non-holder might replay them.
	holderContinuations []probe
}

// nonHolders are the callers without the blueprint profile: anonymous,
// signed in, and an admin credential (admin grants no profile).
var nonHolders = []struct{ name, token string }{
	{"anonymous", ""}, {"signed in", tokenPlain}, {"admin", tokenAdmin},
}

func newAccessFixture(t *testing.T) *accessFixture {
	t.Helper()
	tzctxBin(t)
	f := &accessFixture{site: testkit.SampleSite(t)}
	cfg := writeConfig(t, "200ms")
	gData, oData := filepath.Join(t.TempDir(), "gated"), filepath.Join(t.TempDir(), "oracle")
	cli(t, gData, "ingest", f.site, "--version", "acc-1", "--activate")
	// The server without the tree holds the same library: MCP lists the
	// library's tools and prompts only where a library is held (issue 31),
	// so the two differ by the gated tree alone.
	cli(t, oData, "ingest", "--tree", "cloud="+filepath.Join(f.site, "cloud"), "--tree", "tzdocs="+filepath.Join(f.site, "tzdocs"), "--library", filepath.Join(f.site, "library"), "--version", "acc-1", "--activate")
	f.gData, f.oData, f.cfg = gData, oData, cfg
	f.gated = startServe(t, gData, cfg, "127.0.0.1:0")
	f.oracle = startServe(t, oData, cfg, "127.0.0.1:0")
	f.blueprintWords = treeOnlyWords(t, f.site, "blueprint")
	if len(f.blueprintWords) < 3 {
		t.Fatalf("the sample's blueprint tree holds %d words no other tree holds; the tests need 3", len(f.blueprintWords))
	}
	cat, _ := mustCall(t, f.gated.base, tokenHolder, "list_context", map[string]any{})
	f.holderContinuations = append(f.holderContinuations, probe{"list_context", map[string]any{"offset": 1, "stamp": cat.Stamp}})
	for _, q := range []string{"publishing", f.blueprintWords[0]} {
		a, _ := mustCall(t, f.gated.base, tokenHolder, "read_documentation", map[string]any{"query": q, "limit": 20})
		if a.NextOffset == nil {
			t.Fatalf("the holder's search for %q fits 20 code points; the test needs a continuation", q)
		}
		f.holderContinuations = append(f.holderContinuations, probe{"read_documentation", map[string]any{"query": q, "limit": 20, "offset": *a.NextOffset, "stamp": a.Stamp}})
	}
	return f
}

// treeOnlyWords returns up to 8 words of six letters or more that tree's
// files hold and no other tree's file does.
func treeOnlyWords(t *testing.T, site, tree string) []string {
	t.Helper()
	words := func(dir string) map[string]bool {
		out := map[string]bool{}
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return r < 'a' || r > 'z' }) {
				out[w] = true
			}
			return nil
		})
		return out
	}
	mine := words(filepath.Join(site, tree))
	others := map[string]bool{}
	ents, err := os.ReadDir(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != tree {
			for w := range words(filepath.Join(site, e.Name())) {
				others[w] = true
			}
		}
	}
	var out []string
	for _, w := range sortedKeys(mine) {
		if len(w) >= 6 && !others[w] && len(out) < 8 {
			out = append(out, w)
		}
	}
	return out
}

// probe is one HTTP request a non-holder sends.
type probe struct {
	action string
	body   map[string]any
}

func (p probe) String() string { b, _ := json.Marshal(p.body); return p.action + " " + string(b) }

// probes are the requests whose answers to a non-holder must not depend
// on the gated tree: the catalog, tree-less searches (words every tree
// holds, words blueprint alone holds, words no tree holds), and every way
// of naming the gated tree, its pages (held and not) and its entries.
func (f *accessFixture) probes(holderStamp string, holderNext int) []probe {
	ps := []probe{
		{"list_context", map[string]any{}},
		{"read_context", map[string]any{"id": "docs:blueprint"}},
		{"read_context", map[string]any{"id": "docs:blueprint:full", "limit": 200}},
		{"read_context", map[string]any{"id": "docs:nosuch"}},
		{"read_context", map[string]any{"id": "bundle", "limit": 16000}},
		{"read_context", map[string]any{"id": "service_contracts", "limit": 16000}},
		{"read_documentation", map[string]any{"tree": "blueprint"}},
		{"read_documentation", map[string]any{"tree": "blueprint", "part": "full"}},
		{"read_documentation", map[string]any{"tree": "blueprint", "part": "outline"}},
		{"read_documentation", map[string]any{"tree": "blueprint", "query": "limits"}},
		{"read_documentation", map[string]any{"tree": "blueprint", "page": "limits"}},
		{"read_documentation", map[string]any{"page": "/blueprint/limits/"}},
		{"read_documentation", map[string]any{"page": "/blueprint/no-such-page/"}},
		{"read_documentation", map[string]any{"page": "/blueprint/"}},
		// Stamps and continuations grant nothing: the holder's paging
		// continued by a non-holder, and the gated page's stamp given with
		// a visible page's continuation.
		{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200}},
		{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200, "offset": holderNext, "stamp": holderStamp}},
		{"read_documentation", map[string]any{"tree": "blueprint", "page": "limits", "limit": 200, "offset": holderNext, "stamp": holderStamp}},
		{"read_documentation", map[string]any{"page": "/cloud/reference/http/", "limit": 200, "offset": holderNext, "stamp": holderStamp}},
		{"read_context", map[string]any{"id": "docs:blueprint", "limit": 200, "offset": holderNext, "stamp": holderStamp}},
	}
	for _, hc := range f.holderContinuations {
		ps = append(ps, probe{hc.action, hc.body})
	}
	for _, q := range append([]string{"publishing", "limits", "blueprint", "version", "stamp offset", "zzqx nowhere"}, f.blueprintWords...) {
		ps = append(ps,
			probe{"read_documentation", map[string]any{"query": q}},
			probe{"read_documentation", map[string]any{"query": q, "limit": 16000}},
			probe{"read_documentation", map[string]any{"query": q, "limit": 50}})
	}
	return ps
}

// holderPaging is the holder's first chunk of a gated page: its stamp and
// next offset, which the tests hand to non-holders.
func (f *accessFixture) holderPaging(t *testing.T) (string, int) {
	t.Helper()
	a, _ := mustCall(t, f.gated.base, tokenHolder, "read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200})
	if a.NextOffset == nil {
		t.Fatal("the holder's first 200 code points of /blueprint/limits/ are the whole page; the test needs a paging")
	}
	return a.Stamp, *a.NextOffset
}

// TestAccessHTTPMatchesAServerWithoutTheTree: over HTTP, every answer and
// refusal a caller without the profile gets (the catalog paged to its end
// and each entry it lists, searches, refusals naming the gated tree, its
// pages and entries, and the holder's stamps and offsets) is byte for
// byte the answer of a server where the gated tree does not exist, as POST
// and as GET. The
// holder's answers differ, so the comparison can fail.
func TestAccessHTTPMatchesAServerWithoutTheTree(t *testing.T) {
	f := newAccessFixture(t)
	stamp, next := f.holderPaging(t)
	for _, c := range nonHolders {
		t.Run(c.name, func(t *testing.T) {
			ps := f.probes(stamp, next)
			// The catalog to its end, and each entry it lists.
			listed := 0
			for off, st := 0, ""; ; {
				body := map[string]any{}
				if off > 0 {
					body["offset"], body["stamp"] = off, st
				}
				a, _ := mustCall(t, f.oracle.base, c.token, "list_context", body)
				ps = append(ps, probe{"list_context", body})
				for _, e := range a.Entries {
					ps = append(ps, probe{"read_context", map[string]any{"id": e.ID, "limit": 2000}})
					listed++
				}
				if a.NextOffset == nil {
					break
				}
				off, st = *a.NextOffset, a.Stamp
			}
			for _, p := range ps {
				gs, graw, gerr := call(f.gated.base, c.token, p.action, p.body)
				ost, oraw, oerr := call(f.oracle.base, c.token, p.action, p.body)
				if gerr != nil || oerr != nil {
					t.Fatalf("%v: %v, %v", p, gerr, oerr)
				}
				if gs != ost || string(graw) != string(oraw) {
					t.Errorf("%v: the gated server answers %d %.300s\nthe server without the tree %d %.300s", p, gs, graw, ost, oraw)
				}
			}
			// The same reads as GET requests, members as query parameters.
			answered := 0
			for _, p := range ps {
				if p.action == "list_context" {
					continue
				}
				gs, graw, gerr := callGET(f.gated.base, c.token, p.action, p.body)
				ost, oraw, oerr := callGET(f.oracle.base, c.token, p.action, p.body)
				if gerr != nil || oerr != nil {
					t.Fatalf("GET %v: %v, %v", p, gerr, oerr)
				}
				if gs != ost || string(graw) != string(oraw) {
					t.Errorf("GET %v: the gated server answers %d %.300s\nthe server without the tree %d %.300s", p, gs, graw, ost, oraw)
				}
				if gs == http.StatusOK {
					answered++
				}
			}
			if answered < len(ps)/2 {
				t.Errorf("%d of %d GET requests answered 200; the comparison needs answers, not only refusals", answered, len(ps))
			}
			// A page the gated tree holds and one it lacks are refused
			// alike; so are the holder's continuation and a first read.
			same := func(a, b probe) {
				t.Helper()
				_, ra, _ := call(f.gated.base, c.token, a.action, a.body)
				_, rb, _ := call(f.gated.base, c.token, b.action, b.body)
				if string(ra) != string(rb) {
					t.Errorf("%v answers %s\n%v answers %s", a, ra, b, rb)
				}
			}
			same(probe{"read_documentation", map[string]any{"page": "/blueprint/limits/"}}, probe{"read_documentation", map[string]any{"page": "/blueprint/no-such-page/"}})
			same(probe{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200}}, probe{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200, "offset": next, "stamp": stamp}})
			t.Logf("%d requests compared, %d catalog entries read", len(ps), listed)
		})
	}

	// The holder sees the tree: its catalog and searches differ from
	// the oracle's.
	_, hcat := mustCall(t, f.gated.base, tokenHolder, "list_context", map[string]any{})
	_, ocat := mustCall(t, f.oracle.base, tokenHolder, "list_context", map[string]any{})
	if string(hcat) == string(ocat) || !strings.Contains(string(hcat), `"docs:blueprint"`) {
		t.Errorf("the holder's catalog does not list docs:blueprint, or equals the oracle's")
	}
	for _, w := range f.blueprintWords[:3] {
		a, _ := mustCall(t, f.gated.base, tokenHolder, "read_documentation", map[string]any{"query": w, "limit": 16000})
		if !strings.Contains(a.Text, "](/blueprint/") {
			t.Errorf("the holder's search for %q finds no blueprint page: %.300q", w, a.Text)
		}
	}
}

// mcpView is what one MCP session is shown: its lists, each prompt got,
// each probe as a tool call, and each gated resource read.
func mcpView(t *testing.T, c *client.Client, ps []probe, uris []string) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	js := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	out["tools/list"] = js(tools, err)
	var resources []mcpgo.Resource
	req := mcpgo.ListResourcesRequest{}
	for i := 0; i < 100; i++ {
		res, err := c.ListResources(ctx, req)
		if err != nil {
			out["resources/list"] = "error: " + err.Error()
			break
		}
		resources = append(resources, res.Resources...)
		if res.NextCursor == "" {
			break
		}
		req.Params.Cursor = res.NextCursor
	}
	if out["resources/list"] == "" {
		out["resources/list"] = js(resources, nil)
	}
	templates, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	out["resources/templates/list"] = js(templates, err)
	prompts, err := c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	out["prompts/list"] = js(prompts, err)
	if err == nil {
		for _, p := range prompts.Prompts {
			req := mcpgo.GetPromptRequest{}
			req.Params.Name = p.Name
			got, err := c.GetPrompt(ctx, req)
			out["prompts/get "+p.Name] = js(got, err)
		}
	}
	for _, name := range []string{"blueprint-publishing", "nosuch"} {
		req := mcpgo.GetPromptRequest{}
		req.Params.Name = name
		got, err := c.GetPrompt(ctx, req)
		out["prompts/get "+name] = js(got, err)
	}
	for _, p := range ps {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = p.action, p.body
		res, err := c.CallTool(ctx, req)
		out["tools/call "+p.String()] = js(res, err)
	}
	for _, u := range uris {
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = u
		res, err := c.ReadResource(ctx, req)
		out["resources/read "+u] = js(res, err)
	}
	return out
}

// gatedURIs are resources naming the gated tree, a page it holds and one
// it lacks, beside one naming nothing.
var gatedURIs = []string{
	"tzctx://context/docs:blueprint", "tzctx://context/docs:blueprint:full", "tzctx://context/docs:nosuch",
	"tzctx://docs/blueprint/page/limits", "tzctx://docs/blueprint/page/no-such-page", "tzctx://docs/blueprint/page/",
	"tzctx://docs/blueprint/outline", "tzctx://docs/nosuch/outline",
}

// TestAccessMCPMatchesAServerWithoutTheTree: over MCP streamable HTTP
// (a server's /mcp) and stdio (a `tzctx mcp` process), a
// caller without the profile is shown exactly what a server without the
// gated tree shows it: tools/list, resources/list, resources/templates/list,
// prompts/list and each prompt, every probe as a tools/call, and the
// reads of gated resource URIs (a gated page's read fails as a missing
// page's does). The holder is shown the tree.
func TestAccessMCPMatchesAServerWithoutTheTree(t *testing.T) {
	f := newAccessFixture(t)
	stamp, next := f.holderPaging(t)
	ps := f.probes(stamp, next)
	for _, c := range nonHolders {
		t.Run(c.name, func(t *testing.T) {
			g := mcpView(t, mcpSession(t, f.gated.base, c.token), ps, gatedURIs)
			o := mcpView(t, mcpSession(t, f.oracle.base, c.token), ps, gatedURIs)
			gs := mcpView(t, stdioSession(t, f.gData, f.cfg, c.token), ps, gatedURIs)
			compare := func(what string, g, o map[string]string) {
				t.Helper()
				for _, k := range sortedKeys(g) {
					if g[k] != o[k] {
						t.Errorf("%s: %s: the gated data shows %.400s\nthe data without the tree %.400s", what, k, g[k], o[k])
					}
				}
				if len(g) != len(o) {
					t.Errorf("%s: the gated data shows %d things, the data without the tree %d", what, len(g), len(o))
				}
			}
			compare("/mcp", g, o)
			compare("tzctx mcp", gs, mcpView(t, stdioSession(t, f.oData, f.cfg, c.token), ps, gatedURIs))
			for _, v := range []map[string]string{g, gs} {
				if !strings.Contains(v["resources/list"], `"tzctx://context/overview"`) || !strings.Contains(v["tools/call list_context {}"], `"entries"`) {
					t.Fatalf("the session lists no overview resource, or its list_context call answered no entries: %.300s", v["tools/call list_context {}"])
				}
			}
			first := g["tools/call "+probe{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200}}.String()]
			cont := g["tools/call "+probe{"read_documentation", map[string]any{"page": "/blueprint/limits/", "limit": 200, "offset": next, "stamp": stamp}}.String()]
			if first == "" || first != cont {
				t.Errorf("the holder's continuation is answered %s, a first read %s", cont, first)
			}
			held := strings.ReplaceAll(g["resources/read tzctx://docs/blueprint/page/limits"], "limits", "X")
			missing := strings.ReplaceAll(g["resources/read tzctx://docs/blueprint/page/no-such-page"], "no-such-page", "X")
			if held != missing {
				t.Errorf("a gated page's resource read %s differs from a missing page's %s", held, missing)
			}
			t.Logf("%d MCP answers compared on each transport", len(g))
		})
	}
	h := mcpView(t, mcpSession(t, f.gated.base, tokenHolder), nil, gatedURIs[:1])
	if !strings.Contains(h["resources/list"], "tzctx://context/docs:blueprint") || strings.HasPrefix(h["resources/read tzctx://context/docs:blueprint"], "error") {
		t.Errorf("the holder's resources do not list or read docs:blueprint: %.300s", h["resources/read tzctx://context/docs:blueprint"])
	}
}

// notice is one notification as a session received it.
type notice struct{ method, params string }

// TestAccessListChangedSaysNothingOfTheGatedTree: every session is told
// resources/list_changed, prompts/list_changed and tools/list_changed on
// every activation, whatever it changes, so the notifications an
// anonymous session gets when only the gated tree changed are the ones
// it gets when a tree it reads changed, and its lists are as they were. The holder reads the
// gated tree's new text, so the activation did take effect.
func TestAccessListChangedSaysNothingOfTheGatedTree(t *testing.T) {
	tzctxBin(t)
	site := filepath.Join(t.TempDir(), "site")
	testkit.CopyTree(t, testkit.SampleSite(t), site)
	dataDir := t.TempDir()
	cli(t, dataDir, "ingest", site, "--version", "n-1", "--activate")
	srv := startServe(t, dataDir, writeConfig(t, "100ms"), "127.0.0.1:0")

	notices := map[string]chan notice{}
	sessions := map[string]*client.Client{}
	for name, token := range map[string]string{"anonymous": "", "holder": tokenHolder} {
		c := mcpSession(t, srv.base, token, listening())
		ch := make(chan notice, 64)
		c.OnNotification(func(n mcpgo.JSONRPCNotification) {
			b, _ := json.Marshal(n.Params)
			ch <- notice{n.Method, string(b)}
		})
		notices[name], sessions[name] = ch, c
	}
	time.Sleep(500 * time.Millisecond) // the listening streams open after initialize
	anonLists := func() string {
		v := mcpView(t, sessions["anonymous"], []probe{{"list_context", map[string]any{}}}, nil)
		return v["tools/list"] + v["resources/list"] + v["prompts/list"] + v["tools/call "+probe{"list_context", map[string]any{}}.String()]
	}
	activate := func(version, file, from, to string) map[string][]notice {
		t.Helper()
		p := filepath.Join(site, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), from, to, 1)
		if s == string(b) {
			t.Fatalf("%s holds no %q to change", file, from)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		cli(t, dataDir, "ingest", site, "--version", version, "--activate")
		got := map[string][]notice{}
		deadline := time.After(20 * time.Second)
		for name, ch := range notices {
			for len(got[name]) < 3 {
				select {
				case n := <-ch:
					got[name] = append(got[name], n)
				case <-deadline:
					t.Fatalf("%s: %d notifications within 20 s of activating %s: %v", name, len(got[name]), version, got[name])
				}
			}
		}
		time.Sleep(500 * time.Millisecond) // any further notification arrives
		for name, ch := range notices {
			for len(ch) > 0 {
				got[name] = append(got[name], <-ch)
			}
			slices.SortFunc(got[name], func(a, b notice) int { return strings.Compare(a.method, b.method) })
		}
		return got
	}

	before := anonLists()
	gated := activate("n-2", "blueprint/publishing.mdx", "# Publishing", "# Publishing, revised")
	if a, _, err := toolCall(context.Background(), sessions["holder"], "read_documentation", map[string]any{"page": "/blueprint/publishing/"}); err != nil || !strings.Contains(a.Text, "Publishing, revised") {
		t.Fatalf("the holder does not read the gated tree's new text after the activation: %v %.200q", err, a.Text)
	}
	if after := anonLists(); after != before {
		t.Errorf("the anonymous session's lists changed when only the gated tree did:\n%s\n%s", before, after)
	}
	visible := activate("n-3", "cloud/quickstart.mdx", "\n\n", "\n\nA revised sentence.\n\n")
	t.Logf("anonymous session's notifications: gated tree changed %v; cloud changed %v", gated["anonymous"], visible["anonymous"])
	if !slices.Equal(gated["anonymous"], visible["anonymous"]) {
		t.Errorf("the anonymous session is told %v when only the gated tree changes, %v when a tree it reads changes", gated["anonymous"], visible["anonymous"])
	}
	if !slices.Equal(gated["anonymous"], gated["holder"]) {
		t.Errorf("the anonymous session is told %v, the holder %v", gated["anonymous"], gated["holder"])
	}
	methods := []string{}
	for _, n := range gated["anonymous"] {
		methods = append(methods, n.method)
	}
	if !slices.Equal(methods, []string{"notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/tools/list_changed"}) {
		t.Errorf("an activation sends %v, want prompts, resources and tools list_changed", methods)
	}
}

// TestAccessRefusalTiming measures how long a caller without the profile
// waits for the refusal of a page the gated tree holds and one it lacks,
// and for a tree-less search of words only the gated tree holds and words
// no tree holds, alternating the two of each pair. It logs medians, p90,
// p99 and the two-sample Kolmogorov–Smirnov statistic D, and asserts only
// a loose bound on D, since a shared 2-core machine is noisy: a refusal
// that looked the page up, or a search that scored hidden pages, before
// answering would shift one distribution clear of the other.
func TestAccessRefusalTiming(t *testing.T) {
	f := newAccessFixture(t)
	n := 2000
	if testing.Short() {
		n = 300
	}
	// Each pair alternates two requests. The first pair asks the gated
	// server for a page its hidden tree holds and one it lacks; the
	// second asks the gated server and the server without the tree the
	// same tree-less search for words only the hidden tree holds, so the
	// words' n-grams are the same on both sides and only the hidden
	// content differs.
	type req struct {
		base string
		body map[string]any
	}
	search := map[string]any{"query": strings.Join(f.blueprintWords[:2], " ")}
	pairs := []struct {
		name string
		a, b req
	}{
		{"gated page held / lacking", req{f.gated.base, map[string]any{"page": "/blueprint/limits/"}}, req{f.gated.base, map[string]any{"page": "/blueprint/no-such-page/"}}},
		{"hidden-tree words searched with / without the tree", req{f.gated.base, search}, req{f.oracle.base, search}},
	}
	for _, p := range pairs {
		var da, db []time.Duration
		var ra, rb string
		for i := 0; i < 2*n; i++ {
			r := p.a
			if i%2 == 1 {
				r = p.b
			}
			start := time.Now()
			_, raw, err := call(r.base, "", "read_documentation", r.body)
			d := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				da, ra = append(da, d), string(raw)
			} else {
				db, rb = append(db, d), string(raw)
			}
		}
		if p.name[0] == 'h' && ra != rb {
			t.Errorf("%s: the answers differ:\n%s\n%s", p.name, ra, rb)
		}
		sa, sb := sortedCopy(da), sortedCopy(db)
		d := ksStatistic(da, db)
		iqr := (quantile(sa, 0.75) - quantile(sa, 0.25) + quantile(sb, 0.75) - quantile(sb, 0.25)) / 2
		t.Logf("%s, %d each: median %v / %v, p90 %v / %v, p99 %v / %v; median difference %.2f of the IQR; KS D %.3f (5%% critical value %.3f)",
			p.name, n, quantile(sa, 0.5), quantile(sb, 0.5), quantile(sa, 0.9), quantile(sb, 0.9), quantile(sa, 0.99), quantile(sb, 0.99),
			float64(quantile(sa, 0.5)-quantile(sb, 0.5))/float64(max(iqr, 1)), d, 1.36*math.Sqrt(2/float64(n)))
		if d > 0.3 {
			t.Errorf("%s: KS D %.3f: the two refusals' latencies differ clearly", p.name, d)
		}
	}
}

// adminCase is one admin-only operation: how to call it, what an admin
// gets, what everyone else gets, and how a refusal is recorded. Add a row
// to adminCases for each admin-only path or action.
type adminCase struct {
	name    string
	do      func(base, token string) (int, []byte, error)
	okBody  string // what an admin's answer holds
	refused int    // the status of everyone else's refusal
	// logged is the substring of the server's log line a refusal leaves.
	// /metrics is not an action, so the dispatcher records no call for
	// it: the access log's line is its record. An admin action would
	// also check `tzctx records`.
	logged string
	// state fingerprints what the operation could change; a refusal
	// must leave it as it was.
	state func(t *testing.T, base string) string
}

var adminCases = []adminCase{{
	name: "GET /metrics from a non-loopback client",
	do: func(base, token string) (int, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		return resp.StatusCode, b, err
	},
	okBody:  "go_goroutines ",
	refused: http.StatusForbidden,
	logged:  `http method=GET path=/metrics status=403`,
	state: func(t *testing.T, base string) string {
		_, raw := mustCall(t, base, "", "list_context", map[string]any{})
		return string(raw)
	},
}}

// TestAdminRefusedWithoutAnAdminCredential: on an address a non-loopback
// client reaches, each admin-only operation answers an admin credential
// and refuses anyone else (anonymous, signed in, the profile's holder,
// an unknown token) with its refusal, changes nothing, and leaves the
// refusal in the server's log.
func TestAdminRefusedWithoutAnAdminCredential(t *testing.T) {
	ip := nonLoopbackIP()
	if ip == "" {
		t.Skip("this machine has no non-loopback IPv4 address to serve on; the test needs a client /metrics does not take for a loopback one")
	}
	tzctxBin(t)
	dataDir := t.TempDir()
	cli(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "adm-1", "--activate")
	srv := startServe(t, dataDir, writeConfig(t, "1h"), ip+":0")
	for _, ac := range adminCases {
		t.Run(ac.name, func(t *testing.T) {
			before := ac.state(t, srv.base)
			for _, c := range []struct{ name, token string }{{"anonymous", ""}, {"signed in", tokenPlain}, {"holder", tokenHolder}, {"unknown token", "tzctx_not_configured"}} {
				logsBefore := strings.Count(srv.stderr.String(), ac.logged)
				st, body, err := ac.do(srv.base, c.token)
				if err != nil {
					t.Fatal(err)
				}
				if st == http.StatusOK || strings.Contains(string(body), ac.okBody) {
					t.Errorf("%s: %d %.200s: want a refusal", c.name, st, body)
				}
				if c.token != "tzctx_not_configured" && st != ac.refused {
					t.Errorf("%s: status %d, want %d", c.name, st, ac.refused)
				}
				if !waitForTrue(5*time.Second, func() bool { return strings.Count(srv.stderr.String(), ac.logged) > logsBefore }) {
					t.Errorf("%s: the refusal left no log line holding %q", c.name, ac.logged)
				}
			}
			if after := ac.state(t, srv.base); after != before {
				t.Errorf("refused calls changed the state:\n%s\n%s", before, after)
			}
			st, body, err := ac.do(srv.base, tokenAdmin)
			if err != nil || st != http.StatusOK || !strings.Contains(string(body), ac.okBody) {
				t.Errorf("admin: %d %v %.200s: want the answer", st, err, body)
			}
		})
	}
}

// nonLoopbackIP is an IPv4 address of this machine that is not a loopback
// one, or "".
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

func waitForTrue(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestAccessSearchTimingLargeHiddenTree measures whether a tree-less search's
// latency tells a caller without the profile how much hidden content holds its
// words: the gated tree is a synthetic one of 2000 pages, the server without
// it serves the same visible trees, and the same searches for words only the
// hidden tree holds (in many of its pages and in about a hundred) alternate
// between the two. The answers must be identical; the latencies are logged
// with their KS D, and asserted only loosely
// (contracts/choices/testing.md#ch-soak-access-tests).
func TestAccessSearchTimingLargeHiddenTree(t *testing.T) {
	tier.Long(t, "ingesting a 2000-page hidden tree takes a while")
	tzctxBin(t)
	site := testkit.SampleSite(t)
	hidden := filepath.Join(t.TempDir(), "hidden")
	if err := testkit.WriteSynthSite(hidden, 2000, 7); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "1h")
	gData, oData := filepath.Join(t.TempDir(), "gated"), filepath.Join(t.TempDir(), "oracle")
	visible := []string{"--tree", "cloud=" + filepath.Join(site, "cloud"), "--tree", "tzdocs=" + filepath.Join(site, "tzdocs")}
	cli(t, gData, append(append([]string{"ingest"}, visible...), "--tree", "blueprint="+hidden, "--version", "big-1", "--activate")...)
	cli(t, oData, append(append([]string{"ingest"}, visible...), "--version", "big-1", "--activate")...)
	gated := startServe(t, gData, cfg, "127.0.0.1:0")
	oracle := startServe(t, oData, cfg, "127.0.0.1:0")

	// Words of the hidden tree that no visible tree holds, most pages
	// first.
	pagesWith := map[string]int{}
	_ = filepath.WalkDir(hidden, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
			return err
		}
		b, _ := os.ReadFile(p)
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if len(w) >= 5 && !seen[w] {
				seen[w] = true
				pagesWith[w]++
			}
		}
		return nil
	})
	visibleText := strings.ToLower(treeText(t, filepath.Join(site, "cloud")) + treeText(t, filepath.Join(site, "tzdocs")))
	var words []string
	for _, w := range sortedKeys(pagesWith) {
		if !strings.Contains(visibleText, w) {
			words = append(words, w)
		}
	}
	slices.SortStableFunc(words, func(a, b string) int { return pagesWith[b] - pagesWith[a] })
	if len(words) < 4 {
		t.Fatalf("the hidden tree holds %d words the visible trees lack; the test needs 4", len(words))
	}
	// Two words of the most pages, whose n-grams' postings the version
	// keeps as bit sets, and two of about a hundred pages, whose n-grams'
	// posting lists are read from the index.
	mid := slices.IndexFunc(words, func(w string) bool { return pagesWith[w] <= 100 })
	if mid < 2 || mid+2 > len(words) {
		t.Fatalf("the hidden tree's words do not span the page counts the test needs")
	}
	words = []string{words[0], words[1], words[mid], words[mid+1]}
	for _, w := range words {
		a, _ := mustCall(t, gated.base, tokenHolder, "read_documentation", map[string]any{"query": w})
		t.Logf("hidden word %q: in %d hidden pages; the holder's search totals %d code points", w, pagesWith[w], a.Total)
	}
	n := 1500
	var dg, do []time.Duration
	for i := 0; i < 2*n; i++ {
		body := map[string]any{"query": words[(i/2)%len(words)]}
		base := gated.base
		if i%2 == 1 {
			base = oracle.base
		}
		start := time.Now()
		_, raw, err := call(base, "", "read_documentation", body)
		d := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := decode(raw); err != nil || a.Error != nil || a.Total != 0 {
			t.Fatalf("search %v: %s", body, raw)
		}
		if i%2 == 0 {
			dg = append(dg, d)
		} else {
			do = append(do, d)
		}
	}
	sg, so := sortedCopy(dg), sortedCopy(do)
	d := ksStatistic(dg, do)
	t.Logf("hidden-only words searched with / without a 2000-page hidden tree, %d each: median %v / %v, p90 %v / %v, p99 %v / %v; KS D %.3f (5%% critical value %.3f)",
		n, quantile(sg, 0.5), quantile(so, 0.5), quantile(sg, 0.9), quantile(so, 0.9), quantile(sg, 0.99), quantile(so, 0.99), d, 1.36*math.Sqrt(2/float64(n)))
	if d > 0.3 {
		t.Errorf("KS D %.3f: a search's latency tells whether hidden pages hold its words", d)
	}
}

// treeText is the text of every file below dir.
func treeText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		c, _ := os.ReadFile(p)
		b.Write(c)
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}
