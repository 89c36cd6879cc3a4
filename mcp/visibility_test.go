package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/schemas"
)

// caller is one identity the visibility tests read as.
type caller struct {
	name   string
	token  string
	holder bool // holds the blueprint product profile
}

// callers are the identities of the visibility tests: anonymous, signed
// in without the blueprint profile, and its holder, each by a configured
// token, and OIDC callers with and without the profile, whose JWTs the
// fixture's issuer signs.
func (f *fixture) callers(t *testing.T) []caller {
	return []caller{
		{"anonymous", "", false},
		{"signed in", tokenPlain, false},
		{"holder", tokenBlueprint, true},
		{"oidc signed in", f.issuer.Token(t, map[string]any{"tzctx_profiles": nil}), false},
		{"oidc holder", f.issuer.Token(t, nil), true},
	}
}

// notReadable is read_documentation's refusal of blueprint to a caller
// who may not read it: it names the trees the caller may read.
const notReadable = "tree blueprint is not readable by this connection: the access map (the trees member of the server configuration) grants it only to credentials holding the product profile blueprint, so send a bearer credential listing that profile; it may read cloud and tzdocs"

// apiAnswer is an HTTP answer: its status and the members the tests read.
type apiAnswer struct {
	status     int
	Stamp      string `json:"stamp"`
	NextOffset *int   `json:"next_offset"`
	Total      int    `json:"total"`
	Text       string `json:"text"`
	Error      *struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

func (f *fixture) api(t *testing.T, action string, args map[string]any, token string) apiAnswer {
	t.Helper()
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, f.base+"/api/v1/actions/"+action, strings.NewReader(string(b)))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a apiAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	a.status = resp.StatusCode
	return a
}

// refusal is "status code: detail", or "200" for an answer.
func (a apiAnswer) refusal() string {
	if a.Error == nil {
		return "200"
	}
	return strings.Join([]string{http.StatusText(a.status), a.Error.Code, a.Error.Detail}, ": ")
}

// TestGatedTreeOnEverySurface: the blueprint tree's catalog entries,
// index, full text, outline, pages and search hits reach its holder alone,
// over the HTTP API and both MCP transports (tools, resources, resource
// templates and prompts); each refusal's status, code and detail is the
// contract's; a stamp grants nothing; and nothing a
// non-holder gets depends on the hidden tree: refusals of existing and
// missing blueprint pages are the same, the catalog stamp is the one every
// non-holder gets, and a tree-less search is the holder's with the
// blueprint lines removed.
func TestGatedTreeOnEverySurface(t *testing.T) {
	t.Parallel()
	f := newFixture(t, testSkill)
	holderIndex := f.api(t, "read_documentation", map[string]any{"tree": "blueprint", "limit": 200}, tokenBlueprint)
	if holderIndex.Error != nil || holderIndex.NextOffset == nil {
		t.Fatalf("the holder's first chunk of the blueprint index: %+v", holderIndex)
	}
	holderSearch := f.api(t, "read_documentation", map[string]any{"query": "publishing", "limit": 16000}, tokenBlueprint)
	// Fewer hits than an answer lists, so no hidden hit can push another
	// off a non-holder's answer.
	if !strings.Contains(holderSearch.Text, "(/blueprint/") || holderSearch.NextOffset != nil || strings.Count("\n"+holderSearch.Text, "\n- [") >= searchMatchLimit(t) {
		t.Fatalf("the holder's tree-less search finds no blueprint page, or too many pages, in one chunk: %q", holderSearch.Text)
	}
	stamps := map[bool]map[string]bool{true: {}, false: {}}
	var prompts []string
	for _, c := range f.callers(t) {
		t.Run(c.name, func(t *testing.T) {
			want := func(what string, a apiAnswer, refused string) {
				t.Helper()
				got := a.refusal()
				if c.holder {
					if got != "200" {
						t.Errorf("%s: the holder was refused: %s", what, got)
					}
					return
				}
				if got != refused {
					t.Errorf("%s: %s, want %s", what, got, refused)
				}
			}
			badRequest := "Bad Request: invalid_request: " + notReadable
			// The catalog.
			entries := f.listedIDs(t, c.token)
			var ids []string
			for _, e := range entries {
				ids = append(ids, e.ID)
			}
			if got := slices.Contains(ids, "docs:blueprint") && slices.Contains(ids, "docs:blueprint:full"); got != c.holder {
				t.Errorf("blueprint's catalog entries listed: %v", got)
			}
			first := f.api(t, "list_context", map[string]any{}, c.token)
			stamps[c.holder][first.Stamp] = true

			// Reads of the tree, each part, pages and search in it.
			want("index", f.api(t, "read_documentation", map[string]any{"tree": "blueprint"}, c.token), badRequest)
			want("full", f.api(t, "read_documentation", map[string]any{"tree": "blueprint", "part": "full"}, c.token), badRequest)
			want("outline", f.api(t, "read_documentation", map[string]any{"tree": "blueprint", "part": "outline"}, c.token), badRequest)
			want("page by route", f.api(t, "read_documentation", map[string]any{"page": "/blueprint/limits/"}, c.token), badRequest)
			want("page in tree", f.api(t, "read_documentation", map[string]any{"tree": "blueprint", "page": "limits"}, c.token), badRequest)
			want("search in tree", f.api(t, "read_documentation", map[string]any{"tree": "blueprint", "query": "limits"}, c.token), badRequest)
			// A page the tree lacks is refused to a non-holder exactly as
			// one it holds, so refusals do not tell which pages exist.
			missing := f.api(t, "read_documentation", map[string]any{"page": "/blueprint/no-such-page/"}, c.token)
			if c.holder {
				if missing.status != http.StatusNotFound || missing.Error.Code != "context_not_found" {
					t.Errorf("the holder's read of a missing page: %s", missing.refusal())
				}
			} else if missing.refusal() != badRequest {
				t.Errorf("missing blueprint page: %s, want %s", missing.refusal(), badRequest)
			}
			// read_context never tells hidden from unknown.
			for _, id := range []string{"docs:blueprint", "docs:blueprint:full"} {
				unknown := strings.ReplaceAll(f.api(t, "read_context", map[string]any{"id": "docs:nosuch"}, c.token).refusal(), "docs:nosuch", id)
				want("read_context "+id, f.api(t, "read_context", map[string]any{"id": id}, c.token), unknown)
			}
			// A stamp grants nothing: the holder's continuation is refused
			// to anyone else as the first read is.
			next := map[string]any{"tree": "blueprint", "limit": 200, "offset": *holderIndex.NextOffset, "stamp": holderIndex.Stamp}
			want("continuation", f.api(t, "read_documentation", next, c.token), badRequest)
			unknownCtx := strings.ReplaceAll(f.api(t, "read_context", map[string]any{"id": "docs:nosuch"}, c.token).refusal(), "docs:nosuch", "docs:blueprint")
			want("read_context continuation", f.api(t, "read_context", map[string]any{"id": "docs:blueprint", "limit": 200, "offset": *holderIndex.NextOffset, "stamp": holderIndex.Stamp}, c.token), unknownCtx)

			// A tree-less search covers the trees the caller may read.
			search := f.api(t, "read_documentation", map[string]any{"query": "publishing", "limit": 16000}, c.token)
			wantText := holderSearch.Text
			if !c.holder {
				var kept []string
				for _, line := range strings.SplitAfter(holderSearch.Text, "\n") {
					if !strings.Contains(line, "](/blueprint/") {
						kept = append(kept, line)
					}
				}
				wantText = strings.Join(kept, "")
			}
			if search.Error != nil || search.Text != wantText {
				t.Errorf("tree-less search: %s\n%q\nwant\n%q", search.refusal(), search.Text, wantText)
			}

			// MCP, both transports.
			for name, mc := range f.transports(t, c.token) {
				var uris []string
				for _, r := range listResources(t, mc) {
					uris = append(uris, r.URI)
				}
				var wantURIs []string
				for _, id := range ids {
					wantURIs = append(wantURIs, mcp.ContextURI(id))
				}
				if !slices.Equal(uris, wantURIs) {
					t.Errorf("%s: resources %v, want the catalog's %v", name, uris, wantURIs)
				}
				for uri, refused := range map[string]string{
					mcp.ContextURI("docs:blueprint"):      "context_not_found",
					mcp.ContextURI("docs:blueprint:full"): "context_not_found",
					mcp.PageURI("blueprint", "limits"):    "invalid_request: " + notReadable,
					mcp.OutlineURI("blueprint"):           "invalid_request: " + notReadable,
				} {
					res, err := readResource(mc, uri)
					switch {
					case c.holder && (err != nil || res.Text == ""):
						t.Errorf("%s: the holder's read of %s: %v", name, uri, err)
					case !c.holder && (err == nil || !strings.Contains(err.Error(), refused)):
						t.Errorf("%s: read of %s: %v, want %q", name, uri, err, refused)
					}
				}
				for _, args := range []map[string]any{
					{"tree": "blueprint"}, {"page": "/blueprint/limits/"}, {"tree": "blueprint", "query": "limits"},
				} {
					res := callTool(t, mc, "read_documentation", args)
					if res.IsError == c.holder {
						t.Errorf("%s: tools/call read_documentation %v: isError %v", name, args, res.IsError)
					}
					if !c.holder && (!strings.Contains(string(res.RawStructuredContent)+textOf(t, res), notReadable)) {
						t.Errorf("%s: tools/call %v refused with %s %q", name, args, res.RawStructuredContent, textOf(t, res))
					}
				}
				res := callTool(t, mc, "read_context", map[string]any{"id": "docs:blueprint"})
				if res.IsError == c.holder || (!c.holder && !strings.Contains(string(res.RawStructuredContent), `"context_not_found"`)) {
					t.Errorf("%s: tools/call read_context docs:blueprint: isError %v %q", name, res.IsError, textOf(t, res))
				}
				pl, err := mc.ListPrompts(context.Background(), mcpgo.ListPromptsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, p := range pl.Prompts {
					names = append(names, p.Name)
				}
				if prompts == nil {
					prompts = names
				} else if !slices.Equal(names, prompts) {
					t.Errorf("%s: prompts %v, want %v: every skill drives actions anyone may call", name, names, prompts)
				}
			}
		})
	}
	// Every non-holder gets one catalog stamp, which is not the holder's:
	// the stamp covers what the caller sees, nothing hidden.
	if len(stamps[false]) != 1 || len(stamps[true]) != 1 {
		t.Errorf("catalog stamps by holding: %v", stamps)
	}
	for s := range stamps[false] {
		if stamps[true][s] {
			t.Error("the holder's catalog stamp is a non-holder's")
		}
	}
}

// searchMatchLimit is the contract's bound on the pages a search lists.
func searchMatchLimit(t *testing.T) int {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c.Limits().SearchMatchLimit
}

// TestBadJWTsAreRefusedOnEveryTransport: an expired JWT, one for another
// audience and one signed by a key the issuer's JWKS does not list are
// each refused 401 unauthenticated with a Bearer challenge by the HTTP API
// and by /mcp, and recorded so.
func TestBadJWTsAreRefusedOnEveryTransport(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, tok := range map[string]string{
		"expired":        f.issuer.Token(t, map[string]any{"exp": time.Now().Add(-time.Minute).Unix()}),
		"wrong audience": f.issuer.Token(t, map[string]any{"aud": "another-service"}),
		"unknown kid":    f.issuer.StrangerToken(t, "k9", nil),
	} {
		for _, url := range []string{f.base + "/api/v1/actions/read_documentation", f.base + "/mcp"} {
			body := `{"tree":"cloud"}`
			if strings.HasSuffix(url, "/mcp") {
				body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud"}}}`
			}
			before := len(f.rec.all())
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s at %s: %d %q, want 401 with a Bearer challenge", name, url, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			recs := f.rec.all()[before:]
			if len(recs) != 1 || recs[0].Code != "unauthenticated" || recs[0].Action != "read_documentation" {
				t.Errorf("%s at %s: records %+v, want one unauthenticated read_documentation", name, url, recs)
			}
		}
	}
}

// TestFrontEndRefusalsAreRecorded: /mcp's refusals before any method runs
// (an Origin it does not allow, a body over the bound) leave one record
// each, under the action the body names or "(unknown action)" where it
// was not read, with the status the client got.
func TestFrontEndRefusalsAreRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud"}}}`
	for _, c := range []struct {
		name, origin, body string
		status             int
	}{
		{"origin", "https://evil.example", call, http.StatusForbidden},
		{"oversized", "", strings.Replace(call, `"cloud"`, `"`+strings.Repeat("x", 70<<10)+`"`, 1), http.StatusRequestEntityTooLarge},
	} {
		before := len(f.rec.all())
		req, _ := http.NewRequest(http.MethodPost, f.base+"/mcp", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tokenPlain)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		recs := f.rec.all()[before:]
		if resp.StatusCode != c.status || len(recs) != 1 || recs[0].Status != c.status || recs[0].Transport != "mcp-http" || recs[0].Account != "pat" {
			t.Errorf("%s: %d, records %+v; want %d and one record of it naming the caller", c.name, resp.StatusCode, recs, c.status)
		}
	}
}

// TestRefusalsNameOnlyReadableTrees: every answer given per caller
// that lists trees lists those the caller may read, never the gated tree
// to a non-holder: the refusal of a tree member naming no tree, over the
// HTTP API, an MCP tool call (a tool result, and -32602 up to 2025-06-18)
// and a resource read, and the page and outline templates'
// descriptions. The holder is named every tree.
func TestRefusalsNameOnlyReadableTrees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range f.callers(t)[:3] {
		t.Run(c.name, func(t *testing.T) {
			trees, list := "cloud, tzdocs", "(cloud or tzdocs)"
			if c.holder {
				trees, list = "cloud, blueprint, tzdocs", "(cloud, blueprint or tzdocs)"
			}
			detail := "member tree must be one of " + trees + "; see the action's request schema"
			// hides is whether text names only what the caller may read.
			hides := func(what, text string) {
				t.Helper()
				if !c.holder && strings.Contains(text, "blueprint") {
					t.Errorf("%s names blueprint to a caller who may not read it: %s", what, text)
				}
			}
			a := f.api(t, "read_documentation", map[string]any{"tree": "nosuch"}, c.token)
			if a.refusal() != "Bad Request: invalid_request: "+detail {
				t.Errorf("HTTP: %s, want %s", a.refusal(), detail)
			}
			s := f.initHTTP(t, "2025-06-18", c.token)
			_, m, _ := s.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"nosuch"}}}`)
			var e rpcError
			if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != -32602 || e.Message != detail {
				t.Errorf("MCP 2025-06-18: %s, want -32602 %q", m["error"], detail)
			}
			for name, mc := range f.transports(t, c.token) {
				res := callTool(t, mc, "read_documentation", map[string]any{"tree": "nosuch"})
				if !res.IsError || textOf(t, res) != detail {
					t.Errorf("%s: tools/call: %q, want %q", name, textOf(t, res), detail)
				}
				_, err := readResource(mc, mcp.OutlineURI("nosuch"))
				if err == nil || !strings.Contains(err.Error(), detail) {
					t.Errorf("%s: resources/read of an unknown tree's outline: %v, want %q", name, err, detail)
				} else {
					hides(name+" resources/read", err.Error())
				}
				tpl, err := mc.ListResourceTemplates(context.Background(), mcpgo.ListResourceTemplatesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				for _, tp := range tpl.ResourceTemplates {
					if tp.Name == "page" || tp.Name == "outline" {
						if !strings.Contains(tp.Description, list) {
							t.Errorf("%s: template %s: %q, want it to name %s", name, tp.Name, tp.Description, list)
						}
					}
					hides(name+" template "+tp.Name, tp.Description)
				}
			}
		})
	}
}
