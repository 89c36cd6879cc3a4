package api_test

import (
	"strings"
	"testing"
)

// TestStampOfAnotherText: a stamp one text's answer gave, sent to continue
// another, is refused context_changed (409) as the contract gives it, and
// the detail says the stamp does not match this text and what to do,
// never that the text changed; the same for a text's stamp sent to
// list_context.
func TestStampOfAnotherText(t *testing.T) {
	t.Parallel()
	s := sampleServer(t)
	a := s.post(t, "read_documentation", `{"tree":"cloud","limit":100}`)
	if a.status != 200 || a.str("stamp") == "" {
		t.Fatalf("the cloud index's first chunk: %s", a.raw)
	}
	stamp := a.str("stamp")
	for _, c := range []struct{ action, body, id string }{
		{"read_documentation", `{"tree":"tzdocs","offset":100,"limit":100,"stamp":"` + stamp + `"}`, "docs:tzdocs"},
		{"read_context", `{"id":"docs:tzdocs:full","offset":100,"limit":100,"stamp":"` + stamp + `"}`, "docs:tzdocs:full"},
	} {
		r := s.post(t, c.action, c.body)
		if r.status != 409 || r.code() != "context_changed" {
			t.Fatalf("%s %s = %s, want 409 context_changed", c.action, c.body, r.raw)
		}
		d := r.detail()
		want := "the stamp does not match the text of " + c.id + ": it came from another text, or this text has changed since; read again from offset 0 without a stamp, or send the stamp the last read of " + c.id + " returned"
		if d != want {
			t.Errorf("%s: detail %q, want %q", c.action, d, want)
		}
		if strings.Contains(d, "has changed since that stamp") {
			t.Errorf("%s: the detail says the text changed: %q", c.action, d)
		}
	}
	r := s.post(t, "list_context", `{"offset":1,"stamp":"`+stamp+`"}`)
	if r.status != 409 || r.code() != "context_changed" || !strings.HasPrefix(r.detail(), "the stamp does not match the catalog") {
		t.Errorf("list_context with a text's stamp = %s", r.raw)
	}
}
