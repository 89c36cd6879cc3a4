package query

import (
	"context"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/schemas"
)

// TestSkillPartsFollowTheirSkill: a paged skill's parts are listed right
// after it, read through read_context, and are listed and read only where
// the caller may list every action the skill drives, together with the
// skill.
func TestSkillPartsFollowTheirSkill(t *testing.T) {
	t.Parallel()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Build(catalog.Embedded(), c, []catalog.Skill{{
		Name: "paged", Title: "A paged skill", Markdown: "# A paged skill\n", Actions: []string{"read_context", "read_documentation"},
		Parts: []catalog.SkillPart{{Name: "examples", Markdown: "# Examples\n"}, {Name: "errors", Markdown: "# Errors\n"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(Config{Limits: testLimits(), Catalog: cat}, FromStore(sampleStore))
	all := func(string) bool { return true }
	noDocs := func(a string) bool { return a != "read_documentation" }

	catalogOf := func(listable Listable) []catalog.Entry {
		t.Helper()
		es, err := r.Catalog(context.Background(), listable)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	ids := func(listable Listable) []string {
		var out []string
		for _, e := range catalogOf(listable) {
			if strings.HasPrefix(e.ID, "skill:") {
				out = append(out, e.ID)
			}
		}
		return out
	}
	if got := strings.Join(ids(all), " "); got != "skill:paged skill:paged:examples skill:paged:errors" {
		t.Errorf("skill entries = %q, want the skill then its parts in order", got)
	}
	if got := ids(noDocs); len(got) != 0 {
		t.Errorf("with read_documentation not listable, skill entries = %q, want none", got)
	}
	for _, id := range []string{"skill:paged", "skill:paged:errors"} {
		a, _, err := r.ReadContext(context.Background(), ContextRequest{ID: id}, all)
		if err != nil || a.MimeType != "text/markdown" || !strings.HasPrefix(a.Text, "# ") {
			t.Errorf("read_context %s = %+v, %v", id, a, err)
		}
		if _, _, err := r.ReadContext(context.Background(), ContextRequest{ID: id}, noDocs); err == nil || !strings.Contains(err.Error(), "no entry") {
			t.Errorf("read_context %s hidden from the caller = %v, want context_not_found", id, err)
		}
	}
	// Payloads follow the same rule, one action each.
	for _, e := range catalogOf(noDocs) {
		if e.ID == "payload:read_documentation" {
			t.Error("payload:read_documentation is listed to a caller who may not list the action")
		}
	}
}
