package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// recorder keeps the dispatcher's records for assertions.
type recorder struct{ recs []tzctx.Record }

func (r *recorder) Record(_ contextT, rec tzctx.Record) { r.recs = append(r.recs, rec) }

type server struct {
	*httptest.Server
	rec *recorder
}

func newServer(t *testing.T, st *store.Store) *server {
	t.Helper()
	limits, err := plane.Limits()
	if err != nil {
		t.Fatal(err)
	}
	return newServerWith(t, st, limits)
}

// newServerWith is newServer with other limits, such as a small catalog
// page.
func newServerWith(t *testing.T, st *store.Store, limits schemas.Limits) *server {
	t.Helper()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	reader := query.NewReader(query.Config{Limits: limits, Origin: "https://turnzero.ai", Catalog: cat}, query.FromStore(st))
	rec := &recorder{}
	creds := identity.NewStatic([]identity.Credential{
		{TokenSHA256: identity.SHA256("holder"), Account: "holder", Application: "test", Profiles: []string{"blueprint"}},
		{TokenSHA256: identity.SHA256("member"), Account: "member", Application: "test"},
	})
	d, err := plane.New(reader, creds, rec)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(api.New(d, api.Options{Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(s.Close)
	return &server{Server: s, rec: rec}
}

type reply struct {
	status int
	body   map[string]any
	raw    string
}

func (r reply) code() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r reply) detail() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["detail"].(string)
	return c
}

func (r reply) str(k string) string { s, _ := r.body[k].(string); return s }
func (r reply) num(k string) int    { f, _ := r.body[k].(float64); return int(f) }

func do(t *testing.T, req *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("answer is not JSON: %q", raw)
	}
	if action, ok := strings.CutPrefix(req.URL.Path, "/api/v1/actions/"); ok && resp.StatusCode == http.StatusOK {
		if err := checkAnswer(action, raw); err != nil {
			t.Errorf("%s %s: %v\n%s", req.Method, req.URL.Path, err, raw)
		}
	}
	return reply{status: resp.StatusCode, body: body, raw: string(raw)}
}

func (s *server) post(t *testing.T, action, body string, bearer ...string) reply {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/actions/"+action, strings.NewReader(body))
	if len(bearer) > 0 {
		req.Header.Set("Authorization", "Bearer "+bearer[0])
	}
	return do(t, req)
}

func (s *server) get(t *testing.T, action, rawQuery string) reply {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/actions/"+action+"?"+rawQuery, nil)
	return do(t, req)
}

// sample is the sample site's version, shared by the package's tests.
var sample *store.Store

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tzctx-api-")
	if err != nil {
		panic(err)
	}
	if sample, err = testkit.SampleStoreIn(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	sample.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

func sampleServer(t *testing.T) *server { return newServer(t, sample) }

func TestIndexAndGetEqualsPost(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	p := s.post(t, "read_documentation", `{"tree":"cloud"}`)
	if p.status != 200 || p.str("id") != "docs:cloud" || !strings.HasPrefix(p.str("text"), "# ") || p.body["next_offset"] != nil {
		t.Fatalf("index read = %d %s", p.status, p.raw)
	}
	g := s.get(t, "read_documentation", "tree=cloud")
	if !reflect.DeepEqual(p.body, g.body) {
		t.Errorf("GET and POST differ:\n%s\n%s", p.raw, g.raw)
	}
	// Member order is the contract's.
	keys := []string{`"contract_version"`, `"stamp"`, `"offset"`, `"total"`, `"next_offset"`, `"id"`, `"mime_type"`, `"text"`}
	last := -1
	for _, k := range keys {
		i := strings.Index(p.raw, k)
		if i <= last {
			t.Fatalf("member %s out of order in %s", k, p.raw)
		}
		last = i
	}
	for _, q := range []struct{ post, get string }{
		{`{"tree":"tzdocs","part":"outline","limit":500}`, "tree=tzdocs&part=outline&limit=500"},
		{`{"page":"/cloud/reference/http/","limit":1000}`, "page=%2Fcloud%2Freference%2Fhttp%2F&limit=1000"},
		{`{"tree":"cloud","page":"nope"}`, "tree=cloud&page=nope"},
	} {
		a, b := s.post(t, "read_documentation", q.post), s.get(t, "read_documentation", q.get)
		if a.status != b.status || !reflect.DeepEqual(a.body, b.body) {
			t.Errorf("GET %s and POST %s differ:\n%s\n%s", q.get, q.post, a.raw, b.raw)
		}
	}
}

func TestErrorPaths(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	idx := s.post(t, "read_documentation", `{"tree":"cloud","limit":100}`)
	stamp := idx.str("stamp")
	long := strings.Repeat("x", 161)
	cases := []struct {
		name, action, body string
		status             int
		code               string
		detail             []string
	}{
		{"unknown member", "read_documentation", `{"tree":"cloud","bogus":1}`, 400, "invalid_request", []string{"unknown member bogus"}},
		{"bad tree", "read_documentation", `{"tree":"docs"}`, 400, "invalid_request", []string{"member tree", "cloud"}},
		{"bad part", "read_documentation", `{"tree":"cloud","part":"all"}`, 400, "invalid_request", []string{"member part"}},
		{"limit 0", "read_documentation", `{"tree":"cloud","limit":0}`, 400, "invalid_request", []string{"member limit", "at least 1"}},
		{"limit over max", "read_documentation", `{"tree":"cloud","limit":16001}`, 400, "invalid_request", []string{"member limit", "at most 16000"}},
		{"negative offset", "read_documentation", `{"tree":"cloud","offset":-1}`, 400, "invalid_request", []string{"member offset"}},
		{"limit as string", "read_documentation", `{"tree":"cloud","limit":"8000"}`, 400, "invalid_request", []string{"member limit", "integer"}},
		{"limit as 1.0", "read_documentation", `{"tree":"cloud","limit":1.0}`, 400, "invalid_request", []string{"limit", "integer"}},
		{"upper-case stamp", "read_documentation", `{"tree":"cloud","stamp":"` + strings.ToUpper(stamp) + `"}`, 400, "invalid_request", []string{"member stamp"}},
		{"offset without stamp", "read_documentation", `{"tree":"cloud","offset":5}`, 400, "invalid_request", []string{"stamp"}},
		{"page and query", "read_documentation", `{"tree":"cloud","page":"quickstart","query":"x"}`, 400, "invalid_request", []string{"drop query"}},
		{"page and part", "read_documentation", `{"tree":"cloud","page":"quickstart","part":"full"}`, 400, "invalid_request", []string{"drop part"}},
		{"query and part", "read_documentation", `{"tree":"cloud","query":"x","part":"outline"}`, 400, "invalid_request", []string{"drop part"}},
		{"all three", "read_documentation", `{"page":"/cloud/","query":"x","part":"full"}`, 400, "invalid_request", []string{"drop query and part"}},
		{"no tree", "read_documentation", `{}`, 400, "invalid_request", []string{"cloud and tzdocs"}},
		{"no tree, page without tree", "read_documentation", `{"page":"/guides/"}`, 400, "invalid_request", []string{"cloud and tzdocs"}},
		{"gated tree, anonymous", "read_documentation", `{"tree":"blueprint"}`, 400, "invalid_request", []string{"blueprint", "may read cloud and tzdocs"}},
		{"gated tree from route", "read_documentation", `{"page":"/blueprint/"}`, 400, "invalid_request", []string{"may read cloud and tzdocs"}},
		{"page not listed", "read_documentation", `{"tree":"cloud","page":"guides/erors"}`, 404, "context_not_found", []string{"/cloud/guides/erors/", "/cloud/<path>/"}},
		{"page of another tree", "read_documentation", `{"tree":"cloud","page":"/tzdocs/routes/"}`, 404, "context_not_found", []string{"/cloud/tzdocs/routes/"}},
		{"page with fragment", "read_documentation", `{"tree":"cloud","page":"/cloud/quickstart/#x"}`, 404, "context_not_found", nil},
		{"page too long", "read_documentation", `{"tree":"cloud","page":"` + long + `"}`, 400, "invalid_request", []string{"member page", "160"}},
		{"stamp changed", "read_documentation", `{"tree":"cloud","offset":0,"stamp":"` + strings.Repeat("a", 64) + `"}`, 409, "context_changed", []string{"offset 0 without a stamp"}},
		{"offset past end", "read_documentation", `{"tree":"cloud","offset":999999,"stamp":"` + stamp + `"}`, 400, "invalid_request", []string{"past the end"}},
		{"read_context outline", "read_context", `{"id":"docs:cloud:outline"}`, 404, "context_not_found", nil},
		{"read_context page", "read_context", `{"id":"docs:cloud:page:quickstart"}`, 404, "context_not_found", nil},
		{"read_context search", "read_context", `{"id":"docs::search:0123456789abcdef"}`, 404, "context_not_found", nil},
		{"read_context path", "read_context", `{"id":"source:../etc/passwd"}`, 404, "context_not_found", nil},
		{"read_context url", "read_context", `{"id":"https://turnzero.ai/cloud/"}`, 404, "context_not_found", nil},
		{"read_context case", "read_context", `{"id":"DOCS:cloud"}`, 404, "context_not_found", nil},
		{"read_context gated", "read_context", `{"id":"docs:blueprint"}`, 404, "context_not_found", nil},
		{"read_context no id", "read_context", `{}`, 400, "invalid_request", []string{"missing member id"}},
		{"read_context empty id", "read_context", `{"id":""}`, 400, "invalid_request", []string{"member id"}},
		{"read_context long id", "read_context", `{"id":"` + long + `"}`, 400, "invalid_request", []string{"member id"}},
		{"body not object", "read_context", `[1]`, 400, "invalid_request", []string{"JSON object"}},
		{"body not json", "read_context", `{"id":`, 400, "invalid_request", []string{"not valid JSON"}},
		{"unknown action", "read_everything", `{}`, 404, "context_not_found", []string{"read_context", "read_documentation"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.post(t, c.action, c.body)
			if r.status != c.status || r.code() != c.code {
				t.Fatalf("= %d %s, want %d %s: %s", r.status, r.code(), c.status, c.code, r.raw)
			}
			if len(r.body) != 1 || len(r.body["error"].(map[string]any)) != 2 {
				t.Errorf("envelope is not {error:{code,detail}}: %s", r.raw)
			}
			for _, d := range c.detail {
				if !strings.Contains(r.detail(), d) {
					t.Errorf("detail %q lacks %q", r.detail(), d)
				}
			}
		})
	}
}

func TestGetNormalization(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	for _, q := range []string{"limit=%2B1", "limit=01", "limit=1.0", "limit=1e3", "limit=", "limit=%201", "limit=0x10",
		"limit=%EF%BC%91", "offset=-0", "limit=9007199254740992", "limit=5&limit=5", "bogus=1"} {
		r := s.get(t, "read_documentation", "tree=cloud&"+q)
		if r.status != 400 || r.code() != "invalid_request" {
			t.Errorf("GET %s = %d %s, want 400 invalid_request", q, r.status, r.raw)
		}
	}
	if r := s.get(t, "read_documentation", "tree=cloud&limit=10&offset=0"); r.status != 200 || r.num("next_offset") == 0 {
		t.Errorf("canonical GET refused: %s", r.raw)
	}
}

func TestGatedTreeForHolder(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	if r := s.post(t, "read_documentation", `{"tree":"blueprint"}`, "holder"); r.status != 200 {
		t.Errorf("holder read blueprint: %s", r.raw)
	}
	r := s.post(t, "read_documentation", `{"tree":"blueprint"}`, "member")
	if r.status != 400 || !strings.Contains(r.detail(), "may read cloud and tzdocs") {
		t.Errorf("signed-in non-holder: %s", r.raw)
	}
	if r := s.post(t, "read_context", `{"id":"docs:blueprint:full","limit":100}`, "holder"); r.status != 200 {
		t.Errorf("holder read_context blueprint: %s", r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud"}`, "stranger"); r.status != 401 || r.code() != "unauthenticated" || !strings.Contains(r.detail(), "not known") {
		t.Errorf("unknown credential: %s", r.raw)
	}
	// A stamp grants no access: a holder's stamp does not open the tree
	// to an anonymous caller.
	h := s.post(t, "read_documentation", `{"tree":"blueprint","part":"full","limit":50}`, "holder")
	r = s.post(t, "read_documentation", `{"tree":"blueprint","part":"full","limit":50,"offset":`+jsonNum(h.num("next_offset"))+`,"stamp":"`+h.str("stamp")+`"}`)
	if r.status != 400 {
		t.Errorf("continuation without access: %s", r.raw)
	}
}

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestUnavailableTree(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	st := testkit.Ingest(t, ingestTree("cloud", site))
	s := newServer(t, st)
	r := s.post(t, "read_documentation", `{"tree":"tzdocs"}`)
	if r.status != 503 || r.code() != "context_unavailable" {
		t.Errorf("tree the version lacks = %s", r.raw)
	}
	if r := s.post(t, "read_context", `{"id":"docs:tzdocs:full"}`); r.status != 503 {
		t.Errorf("read_context tree the version lacks = %s", r.raw)
	}
	if r := s.post(t, "read_documentation", `{"page":"/tzdocs/routes/"}`); r.status != 503 {
		t.Errorf("page of a tree the version lacks = %s", r.raw)
	}
	// Gated and missing: a non-holder learns nothing about availability.
	if r := s.post(t, "read_documentation", `{"tree":"blueprint"}`); r.status != 400 {
		t.Errorf("gated missing tree = %s", r.raw)
	}
}

func TestPageRouteForms(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	forms := []string{
		`{"page":"/cloud/guides/reading/"}`, `{"page":"/cloud/guides/reading"}`, `{"page":"cloud/guides/reading"}`,
		`{"tree":"cloud","page":"guides/reading"}`, `{"tree":"cloud","page":"/guides/reading"}`, `{"tree":"cloud","page":"guides/reading/"}`,
		`{"tree":"cloud","page":"/guides/reading/"}`, `{"page":"https://turnzero.ai/cloud/guides/reading/"}`,
		`{"tree":"cloud","page":"/cloud/guides/reading/","part":"index"}`, `{"page":"/cloud/guides/reading/","query":"   "}`,
	}
	var first reply
	for i, f := range forms {
		r := s.post(t, "read_documentation", f)
		if r.status != 200 || r.str("id") != "docs:cloud:page:guides/reading" {
			t.Fatalf("%s = %s", f, r.raw)
		}
		if i == 0 {
			first = r
		} else if r.str("stamp") != first.str("stamp") {
			t.Errorf("%s: stamp differs", f)
		}
	}
	for _, f := range []string{`{"page":"/cloud/"}`, `{"page":"/cloud"}`, `{"page":"cloud"}`, `{"tree":"cloud","page":"/"}`, `{"tree":"cloud","page":""}`, `{"page":"https://turnzero.ai/cloud/"}`} {
		if r := s.post(t, "read_documentation", f); r.status != 200 || r.str("id") != "docs:cloud:page:" {
			t.Errorf("home %s = %s", f, r.raw)
		}
	}
	for _, f := range []string{`{"page":"http://turnzero.ai/cloud/"}`, `{"page":"https://turnzero.ai:443/cloud/"}`, `{"tree":"cloud","page":"/Cloud/quickstart/"}`, `{"tree":"cloud","page":"//quickstart"}`} {
		if r := s.post(t, "read_documentation", f); r.status == 200 {
			t.Errorf("%s was accepted: %s", f, r.raw)
		}
	}
	// The length bound reads the value as given, origin included.
	page := "https://turnzero.ai/cloud/" + strings.Repeat("a", 160-len("https://turnzero.ai/cloud/")+1)
	if r := s.post(t, "read_documentation", `{"page":"`+page+`"}`); r.status != 400 {
		t.Errorf("161 code points with origin = %s", r.raw)
	}
}

func TestReadContextMatchesReadDocumentation(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	for _, tree := range []string{"cloud", "tzdocs"} {
		for _, part := range []string{"index", "full"} {
			id := "docs:" + tree
			if part == "full" {
				id += ":full"
			}
			a := s.post(t, "read_context", `{"id":"`+id+`","limit":300}`)
			b := s.post(t, "read_documentation", `{"tree":"`+tree+`","part":"`+part+`","limit":300}`)
			if a.status != 200 || a.str("id") != id || a.str("stamp") != b.str("stamp") || a.str("text") != b.str("text") || a.num("total") != b.num("total") {
				t.Errorf("%s: read_context %s vs read_documentation %s", id, a.raw, b.raw)
			}
			if _, ok := a.body["headings"]; ok {
				t.Errorf("%s: read_context answered headings", id)
			}
			if c := a.str("continuation"); !strings.Contains(c, `id "`+id+`"`) {
				t.Errorf("%s: continuation %q does not name the id", id, c)
			}
		}
	}
}

// TestPagingReassembles pages every text of the sample site at several
// limits and checks chunks join into the whole text, with the contract's
// continuation and headings rules.
func TestPagingReassembles(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	whole := func(body string) reply { return s.post(t, "read_documentation", body) }
	targets := []struct{ req, tree, key string }{
		{`"tree":"cloud","part":"full"`, "cloud", "full"},
		{`"tree":"tzdocs","part":"outline"`, "tzdocs", "outline"},
		{`"page":"/cloud/reference/http/"`, "cloud", "/cloud/reference/http/"},
		{`"page":"/cloud/help/faq/"`, "cloud", "/cloud/help/faq/"},
		{`"page":"/tzdocs/markdown/code-fences/"`, "tzdocs", "/tzdocs/markdown/code-fences/"},
	}
	for _, target := range targets {
		tg := target.req
		text := storedText(t, target.tree, target.key)
		for _, limit := range []int{37, 500, 3000} {
			var got strings.Builder
			off, stamp := 0, ""
			for n := 0; ; n++ {
				body := `{` + tg + `,"limit":` + jsonNum(limit)
				if off > 0 {
					body += `,"offset":` + jsonNum(off) + `,"stamp":"` + stamp + `"`
				}
				r := whole(body + `}`)
				if r.status != 200 || r.num("offset") != off {
					t.Fatalf("%s limit %d offset %d: %s", tg, limit, off, r.raw)
				}
				chunk := r.str("text")
				if len([]rune(chunk)) > limit {
					t.Fatalf("%s: chunk of %d code points at limit %d", tg, len([]rune(chunk)), limit)
				}
				got.WriteString(chunk)
				_, hasHeadings := r.body["headings"]
				cont := r.str("continuation")
				if hasHeadings && (off != 0 || !strings.Contains(tg, "page")) {
					t.Fatalf("%s: headings on a chunk at %d", tg, off)
				}
				if strings.Contains(tg, "page") && !strings.Contains(cont, "query") {
					t.Errorf("page continuation %q does not name query", cont)
				}
				if hasHeadings != strings.Contains(cont, "headings") {
					t.Errorf("continuation %q vs headings present %v", cont, hasHeadings)
				}
				if r.body["next_offset"] == nil {
					if !strings.Contains(cont, "last") {
						t.Errorf("last continuation %q", cont)
					}
					break
				}
				stamp, off = r.str("stamp"), r.num("next_offset")
				if !strings.Contains(cont, stamp) || !strings.Contains(cont, jsonNum(off)) {
					t.Errorf("continuation %q lacks stamp or next offset", cont)
				}
				if i := strings.Index(r.raw, `"continuation"`); i < 0 || i > strings.Index(r.raw, `"text"`) {
					t.Errorf("continuation is not ahead of text")
				}
			}
			if got.String() != text {
				t.Fatalf("%s limit %d: chunks do not join into the whole text", tg, limit)
			}
		}
	}
}

func TestHeadings(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	// The HTTP reference holds more than 40 headings: they fall to depth 2.
	r := s.post(t, "read_documentation", `{"page":"/cloud/reference/http/","limit":1000}`)
	hs, _ := r.body["headings"].([]any)
	if len(hs) == 0 || len(hs) > 40 {
		t.Fatalf("headings = %v", r.body["headings"])
	}
	text := []rune(storedText(t, "cloud", "/cloud/reference/http/"))
	for _, h := range hs {
		e := h.(map[string]any)
		off := int(e["offset"].(float64))
		line := string(text[off:])
		if !strings.HasPrefix(line, "## "+e["text"].(string)) {
			t.Errorf("heading %v does not start a depth-2 line: %q", e, line[:min(40, len(line))])
		}
		// Each offset is a place: reading there starts at the heading.
		at := s.post(t, "read_documentation", `{"page":"/cloud/reference/http/","limit":1000,"offset":`+jsonNum(off)+`,"stamp":"`+r.str("stamp")+`"}`)
		if at.num("offset") != off {
			t.Errorf("read at heading %d began at %d", off, at.num("offset"))
		}
	}
	if r := s.post(t, "read_documentation", `{"page":"/cloud/quickstart/"}`); r.body["next_offset"] != nil || r.body["headings"] != nil {
		t.Errorf("a page one answer holds whole carried headings: %s", r.raw)
	}
	// The FAQ holds a heading over heading_max_length: the list is cut.
	faq := s.post(t, "read_documentation", `{"page":"/cloud/help/faq/","limit":500}`)
	if c := faq.str("continuation"); !strings.Contains(c, "cut") || !strings.Contains(c, "query") {
		t.Errorf("cut continuation = %q", c)
	}
	for _, h := range faq.body["headings"].([]any) {
		if n := len([]rune(h.(map[string]any)["text"].(string))); n > 120 {
			t.Errorf("heading text of %d code points", n)
		}
	}
	for _, body := range []string{`{"tree":"cloud","part":"full","limit":500}`, `{"tree":"cloud","part":"outline","limit":500}`} {
		if r := s.post(t, "read_documentation", body); r.body["headings"] != nil {
			t.Errorf("%s answered headings", body)
		}
	}
}

// TestAnswerCheckBites: the response-schema check every successful answer
// passes through (do) refuses answers that leave the action's schema.
func TestAnswerCheckBites(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	doc := s.post(t, "read_documentation", `{"page":"/cloud/reference/http/","limit":1000}`)
	ctx := s.post(t, "read_context", `{"id":"docs:cloud","limit":300}`)
	if doc.body["headings"] == nil || ctx.body["continuation"] == nil {
		t.Fatalf("the answers to tamper with lack headings or continuation: %s %s", doc.raw, ctx.raw)
	}
	tamper := func(r reply, edit func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal([]byte(r.raw), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		raw, _ := json.Marshal(m)
		return raw
	}
	for _, c := range []struct {
		name, action string
		raw          []byte
	}{
		{"extra member", "read_documentation", tamper(doc, func(m map[string]any) { m["bogus"] = 1 })},
		{"no stamp", "read_documentation", tamper(doc, func(m map[string]any) { delete(m, "stamp") })},
		{"upper-case stamp", "read_documentation", tamper(doc, func(m map[string]any) { m["stamp"] = strings.ToUpper(doc.str("stamp")) })},
		{"next_offset as string", "read_documentation", tamper(doc, func(m map[string]any) { m["next_offset"] = "1000" })},
		{"contract version 2", "read_documentation", tamper(doc, func(m map[string]any) { m["contract_version"] = 2 })},
		{"41 headings", "read_documentation", tamper(doc, func(m map[string]any) {
			hs := m["headings"].([]any)
			for len(hs) < 41 {
				hs = append(hs, hs[0])
			}
			m["headings"] = hs
		})},
		{"headings on read_context", "read_context", tamper(ctx, func(m map[string]any) { m["headings"] = doc.body["headings"] })},
		{"an unknown action", "read_everything", []byte(ctx.raw)},
	} {
		if err := checkAnswer(c.action, c.raw); err == nil {
			t.Errorf("%s: the check passed %s", c.name, c.raw)
		}
	}
	if err := checkAnswer("read_documentation", []byte(doc.raw)); err != nil {
		t.Error(err)
	}
}

// TestBearerCredentials: no Authorization header is the anonymous caller;
// "Bearer <credential>" with the scheme in any case is the credential's;
// an unknown credential, another scheme, an empty credential and two
// headers are refused 401 unauthenticated with a Bearer challenge, over
// POST and GET alike, and each refusal is recorded with the credential's
// hash prefix, never the credential.
func TestBearerCredentials(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	send := func(method string, headers ...string) *http.Response {
		t.Helper()
		var req *http.Request
		if method == http.MethodGet {
			req, _ = http.NewRequest(method, s.URL+"/api/v1/actions/read_documentation?tree=blueprint", nil)
		} else {
			req, _ = http.NewRequest(method, s.URL+"/api/v1/actions/read_documentation", strings.NewReader(`{"tree":"blueprint"}`))
		}
		for _, h := range headers {
			req.Header.Add("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		for _, h := range []string{"Bearer holder", "bearer holder", "BEARER  holder "} {
			if resp := send(method, h); resp.StatusCode != http.StatusOK {
				t.Errorf("%s %q: %d, want the holder's 200", method, h, resp.StatusCode)
			}
		}
		if resp := send(method); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s without a header: %d, want the anonymous caller's 400 for blueprint", method, resp.StatusCode)
		}
		for _, hs := range [][]string{{"Bearer stranger"}, {"Basic aG9sZGVy"}, {"Bearer "}, {"holder"}, {"Bearer holder", "Bearer holder"}} {
			before := len(s.rec.recs)
			resp := send(method, hs...)
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %q: %d %q, want 401 with a Bearer challenge", method, hs, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			recs := s.rec.recs[before:]
			if len(recs) != 1 || recs[0].Code != "unauthenticated" || recs[0].Status != 401 || recs[0].Action != "read_documentation" {
				t.Errorf("%s %q: records %+v, want one unauthenticated", method, hs, recs)
			} else if hs[0] == "Bearer stranger" && recs[0].Credential != tzctx.CredentialPrefix("stranger") {
				t.Errorf("the refusal names credential %q, want the hash prefix of the one sent", recs[0].Credential)
			}
		}
	}
}

// TestCredentialBeforeBody: an unknown credential is refused 401 whatever
// the body holds, as /mcp refuses it, and the call is checked once.
func TestCredentialBeforeBody(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	for _, body := range []string{`{"tree":`, `[1]`, `{"tree":"cloud","colour":"red"}`} {
		r := s.post(t, "read_documentation", body, "stranger")
		if r.status != 401 || r.code() != "unauthenticated" {
			t.Errorf("unknown credential with body %s: %s, want 401 unauthenticated", body, r.raw)
		}
	}
	if r := s.get(t, "read_documentation", "tree=cloud&limit=01"); r.status != 400 {
		t.Errorf("anonymous GET with a bad parameter: %d", r.status)
	}
}
