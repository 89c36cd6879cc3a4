package mcp_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/mcp"
)

// TestResourceReadIsOneRecord: reading a resource whose text takes many
// chunks (a tree's outline, a tree's whole text) is one record, of the
// action and subject its chunks are read under, ok, the text's code
// points; a refused read is one record of its refusal.
func TestResourceReadIsOneRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, c := range f.transports(t, "") {
		for _, tc := range []struct {
			uri, action, subject string
			args                 map[string]any
		}{
			{mcp.OutlineURI("cloud"), "read_documentation", "docs:cloud:outline", map[string]any{"tree": "cloud", "part": "outline"}},
			{mcp.ContextURI("docs:cloud:full"), "read_context", "docs:cloud:full", map[string]any{"id": "docs:cloud:full"}},
		} {
			whole := f.wholeText(t, tc.action, tc.args, "")
			if n := utf8.RuneCountInString(whole); n <= 16000 {
				t.Fatalf("%s holds %d code points; the test needs a text of several 16000-code-point chunks", tc.uri, n)
			}
			before := len(f.rec.all())
			got, err := readResource(c, tc.uri)
			if err != nil || got.Text != whole {
				t.Fatalf("%s: read %s: %v (%d bytes, want %d)", name, tc.uri, err, len(got.Text), len(whole))
			}
			recs := f.rec.all()[before:]
			if len(recs) != 1 {
				t.Fatalf("%s: reading %s wrote %d records, want 1", name, tc.uri, len(recs))
			}
			r := recs[0]
			if r.Action != tc.action || r.Subject != tc.subject || r.Code != tzctx.OK || r.Status != 200 ||
				r.CodePoints != utf8.RuneCountInString(whole) || r.Transport != "mcp-"+name {
				t.Errorf("%s: reading %s recorded %+v", name, tc.uri, r)
			}
		}
		before := len(f.rec.all())
		if _, err := readResource(c, mcp.PageURI("cloud", "no/such/page")); err == nil || !strings.Contains(err.Error(), "context_not_found") {
			t.Fatalf("%s: a missing page reads %v", name, err)
		}
		if recs := f.rec.all()[before:]; len(recs) != 1 || recs[0].Code != "context_not_found" || recs[0].CodePoints != 0 {
			t.Errorf("%s: a refused resource read recorded %+v, want one context_not_found record", name, recs)
		}
	}
}

// TestResourcesListTheirSize: each resource resources/list lists states
// its size, the bytes of the UTF-8 text a read of it returns, and its
// description says the paged tool reads it in chunks.
func TestResourcesListTheirSize(t *testing.T) {
	t.Parallel()
	f := newFixture(t, testSkill)
	for _, token := range []string{"", tokenBlueprint} {
		for name, c := range f.transports(t, token) {
			for _, r := range listResources(t, c) {
				tc, err := readResource(c, r.URI)
				if err != nil {
					t.Fatal(err)
				}
				if r.Size == nil || *r.Size != int64(len(tc.Text)) {
					t.Errorf("%s token %q: %s lists size %v, reads %d bytes", name, token, r.URI, r.Size, len(tc.Text))
				}
				if !strings.Contains(r.Description, "in chunks") {
					t.Errorf("%s: %s's description %q does not point to the paged tool", name, r.URI, r.Description)
				}
			}
		}
	}
}
