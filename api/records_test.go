package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/query"
)

// TestRecordSubjects pins the record subject of each kind of call,
// refusals included, and that refusals made before the dispatcher could
// read the arguments are recorded too (CTX-07 ¶17, R-230 to R-239).
func TestRecordSubjects(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	long := strings.Repeat("x", 161)
	cases := []struct {
		body, subject, code string
	}{
		{`{"tree":"cloud"}`, "docs:cloud", ""},
		{`{"tree":"cloud","part":"outline"}`, "docs:cloud:outline", ""},
		{`{"page":"/cloud/guides/reading/"}`, "docs:cloud:page:guides/reading", ""},
		{`{"tree":"cloud","page":"nope"}`, "docs:cloud:page", "context_not_found"},
		{`{"page":"/nope/"}`, "docs::page", "invalid_request"},
		{`{"tree":"cloud","page":"` + long + `"}`, "docs:cloud:page", "invalid_request"},
		{`{"page":"` + long + `"}`, "docs::page", "invalid_request"},
		{`{"tree":"cloud","query":"` + long + `"}`, "docs:cloud:search", "invalid_request"},
		{`{"tree":"cloud","query":"x","offset":5}`, "docs:cloud:search", "invalid_request"},
		{`{"tree":"cloud","page":"quickstart","offset":5}`, "docs:cloud:page", "invalid_request"},
		{`{"tree":"cloud","part":"full","offset":5}`, "docs:cloud:full", "invalid_request"},
		{`{"tree":"cloud","limit":0}`, "docs:cloud", "invalid_request"},
		{`{"tree":"cloud","query":"stamp"}`, "docs:cloud:search", ""},
		{`{"query":"stamp"}`, "docs::search", ""},
		{`{}`, "docs:", "invalid_request"},
	}
	for _, c := range cases {
		before := len(s.rec.recs)
		s.post(t, "read_documentation", c.body)
		if len(s.rec.recs) != before+1 {
			t.Fatalf("%s: %d records", c.body, len(s.rec.recs)-before)
		}
		r := s.rec.recs[before]
		if c.code == "" {
			c.code = "ok"
		}
		if r.Action != "read_documentation" || r.Subject != c.subject || r.Code != c.code {
			t.Errorf("%s: record %s %q %q, want %q %q", c.body, r.Action, r.Subject, r.Code, c.subject, c.code)
		}
	}
	ctxCases := []struct{ body, subject string }{
		{`{"id":"docs:cloud"}`, "docs:cloud"},
		// An ID that names no catalog entry is the caller's text: it is
		// recorded as a fixed marker, whatever its form.
		{`{"id":"docs:nope"}`, query.SubjectUnknownID},
		{`{"id":"docs:cloud:search:zqxcanary secret project"}`, query.SubjectUnknownID},
		{`{"id":"zqxcanary secret project","limit":0}`, query.SubjectUnknownID},
		{`{"id":"` + long + `"}`, ""},
		{`{"id":"docs:cloud","offset":"1"}`, "docs:cloud"},
		{`{"id":"overview"}`, "overview"},
		// read_documentation's own IDs, which read_context refuses, are
		// recorded by their bare markers: a slug or search digits may
		// carry the caller's words.
		{`{"id":"docs:cloud:search:0123456789abcdef"}`, "docs:cloud:search"},
		{`{"id":"docs::search:0123456789abcdef"}`, "docs::search"},
		{`{"id":"docs:cloud:page:secret words here"}`, "docs:cloud:page"},
		{`{"id":"docs:cloud:search:0123456789abcdef","limit":0}`, "docs:cloud:search"},
	}
	for _, c := range ctxCases {
		before := len(s.rec.recs)
		s.post(t, "read_context", c.body)
		if r := s.rec.recs[before]; r.Action != "read_context" || r.Subject != c.subject {
			t.Errorf("%s: record %s %q, want %q", c.body, r.Action, r.Subject, c.subject)
		}
	}
	// Refused by the front end before any arguments existed.
	before := len(s.rec.recs)
	s.get(t, "read_documentation", "tree=cloud&limit=01")
	s.post(t, "read_context", `{"id":`)
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/actions/read_context", strings.NewReader(`{"id":"docs:cloud"}`))
	req.Header.Set("Authorization", "Basic x")
	do(t, req)
	s.post(t, "no_such_action_"+strings.Repeat("y", 80), `{}`)
	got := s.rec.recs[before:]
	if len(got) != 4 {
		t.Fatalf("%d records for 4 front-end refusals", len(got))
	}
	codes := []string{"invalid_request", "invalid_request", "unauthenticated"}
	for i, want := range []string{"read_documentation", "read_context", "read_context", "(unknown action)"} {
		if got[i].Action != want || i < 3 && got[i].Code != codes[i] {
			t.Errorf("refusal %d recorded as %+v", i, got[i])
		}
	}
}

func TestNotFoundDetailUsesManifestForm(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	for _, body := range []string{`{"page":"/cloud/guides/erors/"}`, `{"page":"https://turnzero.ai/cloud/guides/erors"}`,
		`{"tree":"cloud","page":"cloud/guides/erors"}`, `{"tree":"cloud","page":"guides/erors"}`} {
		r := s.post(t, "read_documentation", body)
		if r.status != 404 || !strings.Contains(r.detail(), "no page /cloud/guides/erors/ in the cloud manifest") {
			t.Errorf("%s: %s", body, r.detail())
		}
	}
}

// TestStampBeforeRange: a text that changed reports context_changed even
// where the offset is also past its end.
func TestStampBeforeRange(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	r := s.post(t, "read_documentation", `{"tree":"cloud","offset":99999999,"stamp":"`+strings.Repeat("0", 64)+`"}`)
	if r.status != 409 || r.code() != "context_changed" {
		t.Errorf("= %s", r.raw)
	}
}
