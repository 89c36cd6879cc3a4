package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/query"
)

func searchID(words string) string {
	sum := sha256.Sum256([]byte(words))
	return hex.EncodeToString(sum[:8])
}

func TestSearchOverHTTP(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	r := s.post(t, "read_documentation", `{"tree":"cloud","query":"Stamp  OFFSET"}`)
	if r.status != 200 || r.str("id") != "docs:cloud:search:"+searchID("stamp offset") || r.str("mime_type") != "text/markdown" {
		t.Fatalf("search = %s", r.raw)
	}
	lines := strings.Split(strings.TrimSuffix(r.str("text"), "\n"), "\n")
	if len(lines) == 0 || len(lines) > 20 || !strings.HasSuffix(r.str("text"), "\n") {
		t.Fatalf("answer lines = %q", r.str("text"))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "- [") || !strings.Contains(l, "](/cloud/") {
			t.Errorf("line %q is not - [title](route): …", l)
		}
	}
	// GET answers the same.
	if g := s.get(t, "read_documentation", "tree=cloud&query=Stamp%20%20OFFSET"); g.raw != r.raw {
		t.Errorf("GET differs: %s", g.raw)
	}
	// Repeated words count again and keep their place in the identifier.
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":"error error"}`); r.str("id") != "docs:cloud:search:"+searchID("error error") {
		t.Errorf("repeated words id = %s", r.str("id"))
	}
	// Go's simple lower-casing: no final sigma.
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":"ΟΔΟΣ"}`); !strings.HasSuffix(r.str("id"), ":15846f275ca06b00") {
		t.Errorf("ΟΔΟΣ id = %s", r.str("id"))
	}
}

func TestRuleCodeQueries(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	a := s.post(t, "read_documentation", `{"query":"CTX-07"}`)
	b := s.post(t, "read_documentation", `{"query":" (CTX-07) "}`)
	c := s.post(t, "read_documentation", `{"query":"ctx-07"}`)
	if a.status != 200 || a.str("id") != "docs::search:b7088c110b1e603b" || b.str("id") != a.str("id") || c.str("id") != a.str("id") {
		t.Fatalf("ids = %s %s %s", a.str("id"), b.str("id"), c.str("id"))
	}
	if !strings.HasPrefix(a.str("text"), "CTX-07 is a rule code: ") || a.str("text") != b.str("text") {
		t.Errorf("rule code answer = %q", a.str("text"))
	}
	if strings.Contains(c.str("text"), "rule code:") || c.str("stamp") == a.str("stamp") {
		t.Errorf("lower-case code got the preface: %q", c.str("text"))
	}
	if strings.TrimPrefix(a.str("text"), strings.SplitAfterN(a.str("text"), "\n", 2)[0]) != c.str("text") {
		t.Error("the pages after the preface differ from the plain search's")
	}
	// A code no page holds: empty text, total 0, no preface.
	n := s.post(t, "read_documentation", `{"query":"ZZZ-99"}`)
	if n.status != 200 || n.str("text") != "" || n.num("total") != 0 || n.body["next_offset"] != nil || n.str("stamp") != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("no match = %s", n.raw)
	}
	if _, ok := n.body["continuation"]; ok {
		t.Error("empty answer carries a continuation")
	}
}

func TestTreeLessSearch(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	anon := s.post(t, "read_documentation", `{"query":"blueprint"}`)
	holder := s.post(t, "read_documentation", `{"query":"blueprint"}`, "holder")
	if anon.status != 200 || strings.Contains(anon.str("text"), "](/blueprint/") {
		t.Errorf("anonymous tree-less search saw a gated tree: %s", anon.raw)
	}
	if !strings.Contains(holder.str("text"), "](/blueprint/") || holder.str("stamp") == anon.str("stamp") {
		t.Errorf("holder's tree-less search lacks blueprint: %s", holder.raw)
	}
	if anon.str("id") != holder.str("id") || !strings.HasPrefix(anon.str("id"), "docs::search:") {
		t.Errorf("ids %s %s", anon.str("id"), holder.str("id"))
	}
	// Order: score, then tree order, then manifest order; at most 20.
	lines := strings.Split(strings.TrimSuffix(holder.str("text"), "\n"), "\n")
	if len(lines) != 20 {
		t.Errorf("%d lines, want the bound of 20", len(lines))
	}
	// Paging a search answer: continuation never repeats the words.
	p := s.post(t, "read_documentation", `{"query":"blueprint","limit":300}`)
	if p.body["next_offset"] == nil || !strings.Contains(p.str("continuation"), "the same tree and query") || strings.Contains(p.str("continuation"), "blueprint") {
		t.Errorf("paged search = %s", p.raw)
	}
	if _, ok := p.body["headings"]; ok {
		t.Error("a search answer carries headings")
	}
	// A wordless query reads as no query.
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":" \t "}`); r.str("id") != "docs:cloud" {
		t.Errorf("wordless query = %s", r.str("id"))
	}
	if r := s.post(t, "read_documentation", `{"query":"   "}`); r.status != 400 {
		t.Errorf("tree-less wordless query = %s", r.raw)
	}
	if r := s.post(t, "read_documentation", `{"query":"x","part":"full"}`); r.status != 400 || !strings.Contains(r.detail(), "drop part") {
		t.Errorf("tree-less query with part = %s", r.raw)
	}
}

func TestTreeLessSearchSkipsMissingTrees(t *testing.T) {
	t.Parallel()
	site := testkitSite(t)
	st := ingestSite(t, ingestTree("tzdocs", site))
	s := newServer(t, st)
	r := s.post(t, "read_documentation", `{"query":"route"}`)
	if r.status != 200 || !strings.Contains(r.str("text"), "](/tzdocs/") || strings.Contains(r.str("text"), "](/cloud/") {
		t.Errorf("search over a version lacking cloud = %s", r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":"route"}`); r.status != 503 {
		t.Errorf("search of a missing tree = %s", r.raw)
	}
	st2 := ingestSite(t, ingestTree("blueprint", site))
	s2 := newServer(t, st2)
	if r := s2.post(t, "read_documentation", `{"query":"route"}`); r.status != 503 || r.code() != "context_unavailable" {
		t.Errorf("search where every readable tree is missing = %s", r.raw)
	}
}

// TestQueryWordsAreRecordedNowhere sends distinctive words through every
// path (POST, GET, refusals) and checks that no log line, record or error
// detail holds them.
func TestQueryWordsAreRecordedNowhere(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	limits, _ := plane.Limits()
	reader := query.NewReader(query.Config{Limits: limits, Origin: "https://turnzero.ai"}, query.FromStore(sample))
	rec := &recorder{}
	both := recorders{rec, tzctx.LogRecorder{Logger: logger}}
	d, err := plane.New(reader, identity.NewStatic(nil), both)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(api.New(d, api.Options{Logger: logger}))
	defer hs.Close()
	s := &server{Server: hs, rec: rec}
	secret := "Zebraquokka"
	long := strings.Repeat(secret+" ", 20)
	replies := []reply{
		s.post(t, "read_documentation", `{"tree":"cloud","query":"`+secret+` stamp"}`),
		s.post(t, "read_documentation", `{"query":"`+secret+`"}`),
		s.get(t, "read_documentation", "tree=cloud&query="+secret),
		s.post(t, "read_documentation", `{"tree":"cloud","query":"`+long+`"}`),
		s.post(t, "read_documentation", `{"tree":"cloud","query":"`+secret+`","page":"/cloud/"}`),
		s.post(t, "read_documentation", `{"tree":"blueprint","query":"`+secret+`"}`),
		s.post(t, "read_documentation", `{"query":"`+secret+`","part":"outline"}`),
		s.post(t, "read_documentation", `{"tree":"cloud","query":"`+secret+`","limit":0}`),
		s.post(t, "read_documentation", `{"tree":"cloud","query":"`+secret+`","offset":3}`),
	}
	for _, r := range replies {
		if strings.Contains(strings.ToLower(r.raw), "zebra") && r.status != 200 {
			t.Errorf("a refusal echoes the words: %s", r.raw)
		}
	}
	if replies[3].status != 400 || !strings.Contains(replies[3].detail(), "160") {
		t.Errorf("long query = %s", replies[3].raw)
	}
	if strings.Contains(strings.ToLower(logs.String()), "zebra") {
		t.Errorf("logs hold the words:\n%s", logs.String())
	}
	subjects := map[string]bool{}
	for _, r := range rec.recs {
		if strings.Contains(strings.ToLower(r.Subject), "zebra") {
			t.Errorf("record %+v holds the words", r)
		}
		subjects[r.Subject] = true
	}
	for _, want := range []string{"docs:cloud:search", "docs::search", "docs:cloud:page", "docs:blueprint:search"} {
		if !subjects[want] {
			t.Errorf("no record with subject %s; subjects %v", want, subjects)
		}
	}
	// A search's identifier is a hash of the words; it is not recorded.
	for _, r := range rec.recs {
		if strings.Contains(r.Subject, ":search:") {
			t.Errorf("record subject %s holds the search identifier", r.Subject)
		}
	}
}

// TestSearchDocumentationRecordsWhatItServed checks that a
// search_documentation call's record names the version its answer was
// read from and the code points of its packed text, as a page read's
// record does, under the bare search marker.
func TestSearchDocumentationRecordsWhatItServed(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	r := s.post(t, "search_documentation", `{"query":"read on from a chunk with the stamp","budget":2000}`)
	if r.status != 200 {
		t.Fatalf("search_documentation = %d %s", r.status, r.raw)
	}
	version, _ := r.body["version"].(string)
	used, _ := r.body["used"].(float64)
	if version == "" || used <= 0 {
		t.Fatalf("answer names version %q and used %v", version, used)
	}
	if len(s.rec.recs) == 0 {
		t.Fatal("no record")
	}
	got := s.rec.recs[len(s.rec.recs)-1]
	if got.Action != "search_documentation" || got.Subject != "docs::search" || got.Version != version || got.CodePoints != int(used) {
		t.Errorf("record %+v, want action search_documentation, subject docs::search, version %s, code points %d", got, version, int(used))
	}
}
