package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/query"
)

// lockedRecorder keeps records under a lock, for the handlers that
// record beside the request's goroutine.
type lockedRecorder struct {
	mu   sync.Mutex
	recs []tzctx.Record
}

func (r *lockedRecorder) Record(_ contextT, rec tzctx.Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

func (r *lockedRecorder) since(n int) []tzctx.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tzctx.Record(nil), r.recs[n:]...)
}

func (r *lockedRecorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs)
}

// hardServer is a server over the sample version with opts, whose log
// lines (access log and the records' log) go to logs.
type hardServer struct {
	*httptest.Server
	rec  *lockedRecorder
	logs *testkit.SyncBuffer
}

func newHardServer(t *testing.T, opts api.Options) *hardServer {
	t.Helper()
	logs := &testkit.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	limits, err := plane.Limits()
	if err != nil {
		t.Fatal(err)
	}
	reader := query.NewReader(query.Config{Limits: limits, Origin: "https://turnzero.ai"}, query.FromStore(sample))
	rec := &lockedRecorder{}
	d, err := plane.New(reader, identity.NewStatic(nil), recorders{rec, tzctx.LogRecorder{Logger: logger}})
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = logger
	hs := httptest.NewServer(api.New(d, opts))
	t.Cleanup(hs.Close)
	return &hardServer{Server: hs, rec: rec, logs: logs}
}

// TestDuplicateMembers: a member given twice is refused at every depth,
// naming the member, and recorded, as GET refuses a repeated parameter.
func TestDuplicateMembers(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	cases := []struct{ body, want string }{
		{`{"tree":"nope","tree":"tzdocs"}`, "member tree is given more than once"},
		{`{"tree":"tzdocs","tree":"tzdocs"}`, "member tree is given more than once"},
		{`{"tree":"tzdocs","\u0074ree":"cloud"}`, "member tree is given more than once"},
		{`{"tree":"cloud","x":{"a":1,"a":2}}`, "member x/a is given more than once"},
		{`{"tree":"cloud","x":[{"a":1},{"b":1,"b":2}]}`, "member x/1/b is given more than once"},
	}
	for _, c := range cases {
		before := len(s.rec.recs)
		r := s.post(t, "read_documentation", c.body)
		if r.status != 400 || r.code() != "invalid_request" || !strings.Contains(r.detail(), c.want) {
			t.Errorf("POST %s = %d %s, want 400 invalid_request saying %q", c.body, r.status, r.raw, c.want)
		}
		if recs := s.rec.recs[before:]; len(recs) != 1 || recs[0].Action != "read_documentation" || recs[0].Code != "invalid_request" {
			t.Errorf("POST %s recorded %+v, want one invalid_request record", c.body, recs)
		}
	}
	if g := s.get(t, "read_documentation", "tree=nope&tree=tzdocs"); g.status != 400 || !strings.Contains(g.detail(), "parameter tree is given more than once") {
		t.Errorf("GET with tree twice = %s", g.raw)
	}
	// The same names in two objects, or in two cases, are not repeats:
	// the second is an unknown member.
	if r := s.post(t, "read_documentation", `{"tree":"cloud","TREE":"cloud"}`); r.status != 400 || !strings.Contains(r.detail(), "unknown member TREE") {
		t.Errorf("tree and TREE = %s", r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud","limit":5}`); r.status != 200 {
		t.Errorf("a body of distinct members = %s", r.raw)
	}
}

// TestInvalidUTF8 refuses strings that are not valid UTF-8 and lone
// surrogate escapes, in values and names, over POST and GET, where they
// used to turn into U+FFFD; a valid surrogate pair reads as the
// character it encodes.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	posts := []struct{ body, want string }{
		{`{"tree":"cloud","query":"\ud800"}`, "member query is not valid UTF-8"},
		{`{"tree":"cloud","query":"a\udc00b"}`, "member query is not valid UTF-8"},
		{`{"tree":"cloud","query":"\ud800\u0041"}`, "member query is not valid UTF-8"},
		{"{\"tree\":\"cloud\",\"query\":\"a\xff\xfeb\"}", "member query is not valid UTF-8"},
		{"{\"tree\":\"cloud\",\"page\":\"\xc0\xaf\"}", "member page is not valid UTF-8"},
		{"{\"tree\":\"cloud\",\"\xff\xfe\":1}", "a member name in the request body is not valid UTF-8"},
		{`{"tree":"cloud","\udfff":1}`, "a member name in the request body is not valid UTF-8"},
		{"{\"tree\":\"cloud\",\"x\":{\"\xff\":1}}", "a member name in member x is not valid UTF-8"},
	}
	for _, c := range posts {
		r := s.post(t, "read_documentation", c.body)
		if r.status != 400 || r.code() != "invalid_request" || !strings.Contains(r.detail(), c.want) {
			t.Errorf("POST %q = %d %s, want 400 invalid_request saying %q", c.body, r.status, r.raw, c.want)
		}
	}
	gets := []struct{ query, want string }{
		{"tree=cloud&page=%C0%AF", "parameter page is not valid UTF-8"},
		{"tree=cloud&page=%FF", "parameter page is not valid UTF-8"},
		{"tree=cloud&query=%ED%A0%80", "parameter query is not valid UTF-8"}, // an encoded surrogate
		{"tree=cloud&%FF=1", "the name of parameter 2 of the query string is not valid UTF-8"},
	}
	for _, c := range gets {
		r := s.get(t, "read_documentation", c.query)
		if r.status != 400 || r.code() != "invalid_request" || !strings.Contains(r.detail(), c.want) {
			t.Errorf("GET %s = %d %s, want 400 invalid_request saying %q", c.query, r.status, r.raw, c.want)
		}
	}
	// A surrogate pair is the character: escaped, raw and percent-encoded
	// the answers are one.
	escaped := s.post(t, "read_documentation", `{"tree":"cloud","query":"route \ud83d\ude00"}`)
	raw := s.post(t, "read_documentation", `{"tree":"cloud","query":"route 😀"}`)
	got := s.get(t, "read_documentation", "tree=cloud&query=route+%F0%9F%98%80")
	if escaped.status != 200 || escaped.raw != raw.raw || got.raw != raw.raw {
		t.Errorf("a surrogate pair reads otherwise than its character:\n%s\n%s\n%s", escaped.raw, raw.raw, got.raw)
	}
}

// TestEchoedNamesBounded: a refusal's detail echoes a caller's name only
// where it is short and plain, however many and however long the names.
func TestEchoedNamesBounded(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	huge := strings.Repeat("k", 100000)
	many := `{"tree":"cloud"`
	for i := range 50 {
		many += `,"extra` + strings.Repeat("x", i) + `":1`
	}
	many += "}"
	cases := []struct{ action, body, want string }{
		{"read_documentation", `{"tree":"cloud","` + huge + `":1}`, "unknown member (a name of 100000 bytes)"},
		{"read_documentation", `{"tree":"cloud","` + huge + `":1.5}`, "(a name of 100000 bytes) must be an integer literal"},
		{"read_documentation", `{"tree":"cloud","` + huge + `":1,"` + huge + `":2}`, "member (a name of 100000 bytes) is given more than once"},
		{"read_documentation", `{"tree":"cloud","has space":1}`, "unknown member (a name of 9 bytes)"},
		{"read_documentation", `{"tree":"cloud","x":{"` + huge + `":1,"` + huge + `":2}}`, "member x/(a name of 100000 bytes) is given more than once"},
		{"read_documentation", many, "and 45 more"},
		{"read_" + huge, `{}`, "no action (a name of 100005 bytes)"},
		{"a%22b", `{}`, "no action (a name of 3 bytes)"},
	}
	for _, c := range cases {
		r := s.post(t, c.action, c.body)
		if r.status/100 != 4 || !strings.Contains(r.detail(), c.want) {
			t.Errorf("POST %.60s = %d %.300s, want a refusal saying %q", c.body, r.status, r.raw, c.want)
		}
		if len(r.detail()) > 400 {
			t.Errorf("POST %.60s: a detail of %d bytes: %.300s", c.body, len(r.detail()), r.detail())
		}
	}
	if r := s.get(t, "read_documentation", "tree=cloud&"+huge+"=1"); r.status != 400 || len(r.detail()) > 400 || strings.Contains(r.detail(), "kkkk") {
		t.Errorf("GET with a long name = %d %.300s", r.status, r.raw)
	}
}

// TestGetUnknownParameterNamedByPosition: an unknown GET parameter is
// named by its position, never its name, which may be the words after
// an unencoded "&" in a query; the detail lists the members and says how
// to send "&".
func TestGetUnknownParameterNamedByPosition(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	r := s.get(t, "read_documentation", "tree=tzdocs&query=Research&Development")
	if r.status != 400 || r.code() != "invalid_request" {
		t.Fatalf("GET with an unencoded & = %s", r.raw)
	}
	for _, want := range []string{"parameter 3 of the query string", "limit, offset, page, part, query, stamp, tree", "%26"} {
		if !strings.Contains(r.detail(), want) {
			t.Errorf("detail %q lacks %q", r.detail(), want)
		}
	}
	if strings.Contains(r.raw, "Development") || strings.Contains(r.raw, "Research") {
		t.Errorf("the refusal echoes the query's words: %s", r.raw)
	}
	// Encoded, the same words are one query.
	if r := s.get(t, "read_documentation", "tree=tzdocs&query=Research%26Development"); r.status != 200 {
		t.Errorf("GET with %%26 = %s", r.raw)
	}
}

// TestRefusalsHoldNoValues sends a distinctive word as a string member's
// value (and, over GET, as a parameter name) through every refusal path
// of the HTTP surface, and checks that no answer, log line or record
// holds it. A page value is left out: a page that is not listed is
// refused naming its route, as the manifest would list it.
func TestRefusalsHoldNoValues(t *testing.T) {
	t.Parallel()
	s := newHardServer(t, api.Options{BodyLimit: "512B"})
	const secret = "Zebraquokka"
	post := func(action, body string) (int, string) {
		st, _, raw := testkit.Send(t, http.MethodPost, s.URL+"/api/v1/actions/"+action, strings.NewReader(body))
		return st, raw
	}
	chunked := func(body string) (int, string) {
		st, _, raw := testkit.Send(t, http.MethodPost, s.URL+"/api/v1/actions/read_documentation", io.MultiReader(strings.NewReader(body)))
		return st, raw
	}
	get := func(q string) (int, string) {
		st, _, raw := testkit.Send(t, http.MethodGet, s.URL+"/api/v1/actions/read_documentation?"+q, nil)
		return st, raw
	}
	big := `{"tree":"cloud","query":"` + strings.Repeat(secret+" ", 60) + `"}`
	type result struct {
		name   string
		status int
		raw    string
	}
	var got []result
	add := func(name string, status int, raw string) { got = append(got, result{name, status, raw}) }
	for name, body := range map[string]string{
		"duplicate":         `{"tree":"cloud","query":"` + secret + `","query":"` + secret + `"}`,
		"lone surrogate":    `{"tree":"cloud","query":"` + secret + `\ud800"}`,
		"invalid byte":      "{\"tree\":\"cloud\",\"query\":\"" + secret + "\xff\"}",
		"not JSON":          `{"tree":"cloud","query":"` + secret,
		"two values":        `{"tree":"cloud"} "` + secret + `"`,
		"not an object":     `["` + secret + `"]`,
		"query too long":    `{"tree":"cloud","query":"` + strings.Repeat(secret, 15) + `"}`,
		"tree as the word":  `{"tree":"` + secret + `"}`,
		"query as a number": `{"tree":"cloud","query":{"` + "x" + `":"` + secret + `"}}`,
		"stamp as the word": `{"tree":"cloud","stamp":"` + secret + `","offset":1}`,
		"query and page":    `{"tree":"cloud","query":"` + secret + `","page":"/cloud/"}`,
		"gated tree":        `{"tree":"blueprint","query":"` + secret + `"}`,
		"unknown member":    `{"tree":"cloud","query":"` + secret + `","colour":"` + secret + `"}`,
		"nested duplicate":  `{"tree":"cloud","x":{"a":"` + secret + `","a":"` + secret + `"}}`,
		"bad integer":       `{"tree":"cloud","query":"` + secret + `","limit":1.5}`,
	} {
		st, raw := post("read_documentation", body)
		add("POST "+name, st, raw)
	}
	// A page's route and an action's name are named in a refusal on
	// purpose (bounded); the words of a query never are.
	st, raw := post("read_everything", `{"query":"`+secret+`"}`)
	add("POST unknown action", st, raw)
	// A path is logged step by step as EchoedName bounds a name, so
	// words sent as an action's name reach no log line.
	st, raw = post("what%20"+secret+"%20said", `{}`)
	add("POST an action named by words", st, raw)
	st, raw = post("read_documentation", big)
	add("POST over the bound", st, raw)
	st, raw = chunked(big)
	add("POST chunked over the bound", st, raw)
	for _, q := range []string{
		"tree=cloud&query=" + secret + "&" + secret,
		"tree=cloud&" + secret + "=1",
		"tree=cloud&query=" + secret + "&query=" + secret,
		"tree=cloud&query=" + secret + "%FF",
		"tree=cloud&query=" + secret + "%ZZ",
		"tree=cloud&query=" + secret + "&limit=" + secret,
		"tree=" + secret,
		"tree=cloud&page=" + secret + "&query=" + secret,
	} {
		st, raw := get(q)
		add("GET "+q, st, raw)
	}
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
		st, _, raw := testkit.Send(t, m, s.URL+"/api/v1/actions/read_documentation?query="+secret, strings.NewReader(`{"query":"`+secret+`"}`))
		add(m, st, raw)
	}
	refusals := 0
	for _, r := range got {
		if r.status == 200 {
			t.Errorf("%s answered 200, not a refusal: %.200s", r.name, r.raw)
			continue
		}
		refusals++
		if strings.Contains(strings.ToLower(r.raw), "zebra") {
			t.Errorf("%s: the refusal echoes the word: %s", r.name, r.raw)
		}
	}
	if strings.Contains(strings.ToLower(s.logs.String()), "zebra") {
		t.Errorf("logs hold the word:\n%s", s.logs.String())
	}
	recs := s.rec.since(0)
	for _, r := range recs {
		if strings.Contains(strings.ToLower(r.Subject+r.Action+r.Code), "zebra") {
			t.Errorf("record %+v holds the word", r)
		}
	}
	if len(recs) != refusals {
		t.Errorf("%d records of %d refusals: every refusal is recorded", len(recs), refusals)
	}
	t.Logf("%d refusal paths, %d records", refusals, len(recs))
}

// TestOversizedBody: a body over the bound is refused 413 with one
// answer whether it gives its length or is sent chunked, and both are
// recorded.
func TestOversizedBody(t *testing.T) {
	t.Parallel()
	s := newHardServer(t, api.Options{BodyLimit: "256B"})
	body := `{"tree":"cloud","query":"` + strings.Repeat("x", 300) + `"}`
	url := s.URL + "/api/v1/actions/read_documentation"
	before := s.rec.len()
	st1, _, withLength := testkit.Send(t, http.MethodPost, url, strings.NewReader(body))
	req, _ := http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(body)))
	if req.ContentLength != 0 || req.TransferEncoding != nil {
		t.Fatalf("the second request gives a length (%d)", req.ContentLength)
	}
	st2, _, chunked := testkit.Send(t, http.MethodPost, url, io.MultiReader(strings.NewReader(body)))
	if st1 != 413 || st2 != 413 || withLength != chunked {
		t.Fatalf("with a length %d %s, chunked %d %s: want one 413 answer", st1, withLength, st2, chunked)
	}
	for _, want := range []string{`"invalid_request"`, "256 bytes", "send a smaller body"} {
		if !strings.Contains(chunked, want) {
			t.Errorf("answer %s lacks %q", chunked, want)
		}
	}
	recs := s.rec.since(before)
	if len(recs) != 2 {
		t.Fatalf("records %+v, want two", recs)
	}
	for _, r := range recs {
		if r.Status != 413 || r.Code != "invalid_request" || r.Action != "read_documentation" {
			t.Errorf("record %+v, want a 413 invalid_request of read_documentation", r)
		}
	}
	// At the bound a body is read.
	ok := `{"tree":"cloud","limit":5}`
	ok = ok[:len(ok)-1] + strings.Repeat(" ", 256-len(ok)) + "}"
	if st, _, raw := testkit.Send(t, http.MethodPost, url, io.MultiReader(strings.NewReader(ok))); st != 200 {
		t.Errorf("a chunked body of 256 bytes = %d %s", st, raw)
	}
}

// TestMethods: an action answers GET and POST alone; any other method is
// refused 405 with Allow and the contract's envelope, and recorded. HEAD
// answers the probe as GET does, without a body; an unknown path stays
// 404.
func TestMethods(t *testing.T) {
	t.Parallel()
	s := newHardServer(t, api.Options{})
	url := s.URL + "/api/v1/actions/read_documentation"
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodTrace, http.MethodOptions, http.MethodConnect, http.MethodHead, "FROB"} {
		before := s.rec.len()
		st, h, raw := testkit.Send(t, m, url+"?tree=cloud", strings.NewReader(`{"tree":"cloud"}`))
		if st != 405 || h.Get("Allow") != "GET, POST" {
			t.Errorf("%s = %d Allow %q, want 405 with Allow: GET, POST", m, st, h.Get("Allow"))
		}
		if m != http.MethodHead {
			if !strings.Contains(raw, `{"error":{"code":"invalid_request","detail":"an action answers POST with a JSON object body or GET with query parameters`) {
				t.Errorf("%s answered %s", m, raw)
			}
		} else if raw != "" {
			t.Errorf("HEAD answered a body %q", raw)
		}
		recs := s.rec.since(before)
		if len(recs) != 1 || recs[0].Action != "read_documentation" || recs[0].Status != 405 || recs[0].Code != "invalid_request" {
			t.Errorf("%s recorded %+v, want one 405 record", m, recs)
		}
	}
	// An unknown action refused by method is recorded under no name.
	if st, _, _ := testkit.Send(t, http.MethodPut, s.URL+"/api/v1/actions/nope", nil); st != 405 {
		t.Errorf("PUT on an unknown action = %d", st)
	}
	if recs := s.rec.since(s.rec.len() - 1); recs[0].Action != "(unknown action)" {
		t.Errorf("PUT on an unknown action recorded as %q", recs[0].Action)
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodHead} {
		st, _, raw := testkit.Send(t, m, s.URL+"/api/v2/nothing", nil)
		if st != 404 || (m != http.MethodHead && !strings.Contains(raw, `"context_not_found"`)) {
			t.Errorf("%s on an unknown path = %d %s", m, st, raw)
		}
	}
	st, h, raw := testkit.Send(t, http.MethodHead, s.URL+"/healthz", nil)
	if st != 200 || raw != "" || h.Get("Content-Type") != "application/json" {
		t.Errorf("HEAD /healthz = %d %q %v", st, raw, h)
	}
	if st, h, _ := testkit.Send(t, http.MethodPost, s.URL+"/healthz", nil); st != 405 || h.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /healthz = %d Allow %q", st, h.Get("Allow"))
	}
}

// TestHeadHealthzUnavailable: HEAD /healthz answers GET's status, 503
// where nothing is served.
func TestHeadHealthzUnavailable(t *testing.T) {
	t.Parallel()
	s := newHardServer(t, api.Options{Health: func() (string, error) { return "", nil }})
	gst, _, _ := testkit.Send(t, http.MethodGet, s.URL+"/healthz", nil)
	hst, _, raw := testkit.Send(t, http.MethodHead, s.URL+"/healthz", nil)
	if gst != 503 || hst != 503 || raw != "" {
		t.Errorf("GET /healthz %d, HEAD %d %q; want 503 both, HEAD without a body", gst, hst, raw)
	}
}

// TestRefusalLogNamesNoEmptyVersion: a call's log line names the version
// whose text it served, and a refused read, which served none, names no
// version rather than version="".
func TestRefusalLogNamesNoEmptyVersion(t *testing.T) {
	t.Parallel()
	s := newHardServer(t, api.Options{})
	served := sample.Health().Serving
	if served == "" {
		t.Fatal("the sample store serves no version")
	}
	for _, c := range []struct {
		body    string
		status  int
		version bool
	}{
		{`{"page":"/cloud/reference/http/","limit":200}`, http.StatusOK, true},
		{`{"page":"/cloud/no/such/page/"}`, http.StatusNotFound, false},
		{`{"tree":"cloud","part":"outline","offset":99999999}`, http.StatusBadRequest, false},
	} {
		before := len(s.logs.String())
		st, _, raw := testkit.Send(t, http.MethodPost, s.URL+"/api/v1/actions/read_documentation", strings.NewReader(c.body))
		if st != c.status {
			t.Fatalf("%s: %d %s, want %d", c.body, st, raw, c.status)
		}
		var line string
		for _, l := range strings.Split(s.logs.String()[before:], "\n") {
			if strings.Contains(l, "msg=call ") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("%s: no call line in the log:\n%s", c.body, s.logs.String()[before:])
		}
		if strings.Contains(line, `version=""`) {
			t.Errorf("%s: the log line holds version=\"\": %s", c.body, line)
		}
		if has := strings.Contains(line, " version="+served+" "); has != c.version {
			t.Errorf("%s: the log line names version %s: %v, want %v: %s", c.body, served, has, c.version, line)
		}
	}
}
