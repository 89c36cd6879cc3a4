package skills_test

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/action/skills"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

func contract(t *testing.T) *schemas.Contract {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func generate(t *testing.T) []skills.Skill {
	t.Helper()
	ss, err := skills.Generate(contract(t))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// source returns the embedded skill sources with edit applied.
func source(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	raw, err := fs.ReadFile(schemas.FS, skills.SourceFile)
	if err != nil {
		t.Fatal(err)
	}
	s := edit(string(raw))
	if s == string(raw) {
		t.Fatal("the edit left the source as it was")
	}
	return []byte(s)
}

// frontMatter parses a SKILL.md's front matter as an agent client does.
func frontMatter(t *testing.T, md string) (fm map[string]any, body string) {
	t.Helper()
	rest, ok := strings.CutPrefix(md, "---\n")
	block, body, ok2 := strings.Cut(rest, "\n---\n")
	if !ok || !ok2 {
		t.Fatalf("no front matter:\n%s", md)
	}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		t.Fatalf("front matter is not YAML: %v\n%s", err, block)
	}
	return fm, body
}

// TestSkillsHaveTheAgentSkillsForm: each SKILL.md opens with front
// matter holding exactly name and description within the form's bounds,
// then the title and the description.
func TestSkillsHaveTheAgentSkillsForm(t *testing.T) {
	ss := generate(t)
	if len(ss) == 0 {
		t.Fatal("no skills")
	}
	for _, s := range ss {
		fm, body := frontMatter(t, s.Markdown)
		if len(fm) != 2 || fm["name"] != s.Name || fm["description"] != s.Description {
			t.Errorf("%s: front matter %v, want exactly name and description", s.Name, fm)
		}
		if len(s.Name) > 64 || strings.Trim(s.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.Contains(s.Name, "--") {
			t.Errorf("name %q is not lower-case and hyphens of at most 64 characters", s.Name)
		}
		if n := utf8.RuneCountInString(s.Description); n == 0 || n > 1024 {
			t.Errorf("%s: description of %d characters", s.Name, n)
		}
		if !strings.HasPrefix(body, "\n# "+s.Title+"\n\n"+s.Description+"\n") {
			t.Errorf("%s: the body does not open with the title and the description:\n%s", s.Name, body)
		}
		for _, h := range []string{"\n## Actions\n", "\n## Steps\n", "\n## Calls\n"} {
			if !strings.Contains(body, h) {
				t.Errorf("%s: no section %q", s.Name, strings.TrimSpace(h))
			}
		}
	}
}

// TestSkillsQuoteTheContract: each action a skill drives is listed with
// its enumeration summary word for word, and its call lists every request
// member with the request schema's description.
func TestSkillsQuoteTheContract(t *testing.T) {
	c := contract(t)
	for _, s := range generate(t) {
		for _, name := range s.Actions {
			a, err := c.Action(name)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(s.Markdown, "- `"+name+"`: "+a.Summary+"\n") {
				t.Errorf("%s: no line quoting %s's summary %q", s.Name, name, a.Summary)
			}
			_, call, ok := strings.Cut(s.Markdown, "### Call `"+name+"`\n")
			if !ok {
				t.Errorf("%s: no call section for %s", s.Name, name)
				continue
			}
			call, _, _ = strings.Cut(call, "\n### ")
			if !strings.Contains(call, "`POST /api/v1/actions/"+name+"`") || !strings.Contains(call, "MCP tool `"+name+"`") {
				t.Errorf("%s: the call of %s names no HTTP route or MCP tool:\n%s", s.Name, name, call)
			}
			props := a.Request["properties"].(map[string]any)
			defs, _ := a.Request["$defs"].(map[string]any)
			required, _ := a.Request["required"].([]any)
			for member, p := range props {
				prop := p.(map[string]any)
				if ref, ok := prop["$ref"].(string); ok {
					prop = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
				}
				req := "no"
				if slices.Contains(required, any(member)) {
					req = "yes"
				}
				row := "| `" + member + "` | " + req + " | " + prop["description"].(string) + " |"
				if !strings.Contains(call, row) {
					t.Errorf("%s: the call of %s lacks the row %q", s.Name, name, row)
				}
			}
		}
	}
}

// TestSkillsPassSurface: every SKILL.md names Turn Zero Cloud and holds no
// code name or repository path (CTX-08).
func TestSkillsPassSurface(t *testing.T) {
	for _, s := range generate(t) {
		for _, f := range surface.Check(s.Markdown, surface.Options{MustName: true}) {
			t.Errorf("%s:%d:%d: %s: %s", s.Name, f.Line, f.Column, f.Rule, f.Detail)
		}
		for _, p := range s.Parts {
			for _, f := range surface.Check(p.Markdown, surface.Options{MustName: true}) {
				t.Errorf("%s:%s:%d: %s: %s", s.Name, p.Name, f.Line, f.Rule, f.Detail)
			}
		}
	}
}

// TestNoSkillNeedsParts: each SKILL.md reads in one chunk at the default
// limit, so no skill is paged into parts
// (contracts/choices/served.md#ch-skills). A skill that outgrows it fails
// here: split it into parts.
func TestNoSkillNeedsParts(t *testing.T) {
	lim := contract(t).Limits().TextDefaultLimit
	for _, s := range generate(t) {
		if n := utf8.RuneCountInString(s.Markdown); n > lim {
			t.Errorf("%s: %d code points, more than one chunk at the default limit %d: page it into parts", s.Name, n, lim)
		}
		if len(s.Parts) != 0 {
			t.Errorf("%s has %d parts", s.Name, len(s.Parts))
		}
	}
}

// TestSeedSkills is the seed check: the skills the
// tracker requires, held here in the test and nowhere in the server, are
// each covered by a generated skill that drives the actions the task
// needs and teaches the members it turns on.
func TestSeedSkills(t *testing.T) {
	seed := []struct {
		task    string
		actions []string // the skill drives at least these
		teaches []string // members its steps must name
	}{
		{"discovering the catalog", []string{"list_context", "read_context"}, []string{"`entries`", "`next_offset`", "`stamp`", "`overview`"}},
		{"reading a long text by pages", []string{"read_context", "read_documentation"}, []string{"`offset`", "`next_offset`", "`stamp`", "`limit`"}},
		{"searching documentation", []string{"read_documentation"}, []string{"`query`", "`page`"}},
		{"reading one section of a page from its headings offset", []string{"read_documentation"}, []string{"`headings`", "`offset`", "`stamp`", "`page`"}},
	}
	ss := generate(t)
	used := map[string]string{}
	for _, want := range seed {
		var found *skills.Skill
		for i, s := range ss {
			_, steps, _ := strings.Cut(s.Markdown, "\n## Steps\n")
			steps, _, _ = strings.Cut(steps, "\n## ")
			covers := used[s.Name] == ""
			for _, a := range want.actions {
				covers = covers && slices.Contains(s.Actions, a)
			}
			for _, m := range want.teaches {
				covers = covers && strings.Contains(steps, m)
			}
			if covers {
				found = &ss[i]
				break
			}
		}
		if found == nil {
			t.Errorf("no generated skill covers %q: one that drives %v and whose steps name %v", want.task, want.actions, want.teaches)
			continue
		}
		used[found.Name] = want.task
		t.Logf("%q is covered by %s", want.task, found.Name)
	}
}

// TestLiveFollowsRegistration: a skill is live exactly where the default
// dispatcher registers every action it drives.
func TestLiveFollowsRegistration(t *testing.T) {
	names, err := plane.Registered()
	if err != nil {
		t.Fatal(err)
	}
	registered := func(a string) bool { return slices.Contains(names, a) }
	for _, s := range generate(t) {
		want := true
		for _, a := range s.Actions {
			want = want && registered(a)
		}
		if got := skills.Live(s, registered); got != want {
			t.Errorf("Live(%s) = %v with %v registered", s.Name, got, names)
		}
		if !skills.Live(s, func(string) bool { return true }) || skills.Live(s, func(string) bool { return false }) {
			t.Errorf("Live(%s) ignores the registrations", s.Name)
		}
		last := s.Actions[len(s.Actions)-1]
		if skills.Live(s, func(a string) bool { return a != last }) {
			t.Errorf("Live(%s) with %s unregistered", s.Name, last)
		}
	}
}

// TestUnknownActionFailsGeneration: a skill naming an action the
// enumeration lacks fails generation, the error naming the skill and the
// action (CTX-04, R-312).
func TestUnknownActionFailsGeneration(t *testing.T) {
	src := source(t, func(s string) string {
		return strings.Replace(s, `"actions": ["read_documentation"],
      "steps": [
        "Call `+"`read_documentation`"+` with `+"`query`", `"actions": ["read_documentation", "summarize_documentation"],
      "steps": [
        "Call `+"`read_documentation`"+` with `+"`query`", 1)
	})
	_, err := skills.FromSource(contract(t), src)
	if !errors.Is(err, schemas.ErrUnknownAction) {
		t.Fatalf("FromSource: %v, want an error wrapping schemas.ErrUnknownAction", err)
	}
	for _, want := range []string{"search-documentation", `"summarize_documentation"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// TestInvalidSourcesFail: each fault of a source fails generation with
// ErrInvalidSource, naming the skill.
func TestInvalidSourcesFail(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, says string
	}{
		{"upper-case name", `"name": "read-long-text"`, `"name": "Read-Long-Text"`, "Read-Long-Text"},
		{"name too long", `"name": "read-long-text"`, `"name": "read-long-text` + strings.Repeat("-x", 30) + `"`, "at most 64"},
		{"repeated name", `"name": "read-long-text"`, `"name": "discover-context"`, "repeated"},
		{"description too long", `"description": "Page through`, `"description": "` + strings.Repeat("x", 1024) + ` Page through`, "1024"},
		{"no actions", `"actions": ["read_context", "read_documentation"],`, `"actions": [],`, "no action"},
		{"repeated action", `"actions": ["read_context", "read_documentation"],`, `"actions": ["read_context", "read_context"],`, "twice"},
		{"a step names an action not driven", "Read the best page with `read_documentation`", "Read the best page with `read_context`", "step 4 names action read_context"},
		{"a step holds a repository path", "Read the best page with", "Read internal/query/search.go, then the best page with", "public-surface"},
		{"an unknown member", `"title": "Read a long`, `"parts": [], "title": "Read a long`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := source(t, func(s string) string { return strings.Replace(s, tc.old, tc.new, 1) })
			_, err := skills.FromSource(contract(t), src)
			if !errors.Is(err, skills.ErrInvalidSource) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("FromSource: %v, want ErrInvalidSource saying %q", err, tc.says)
			}
		})
	}
}

// TestEditedSourceChangesTheSkill: a skill renders its source; a reworded
// step shows in the SKILL.md, and nothing else holds the old words.
func TestEditedSourceChangesTheSkill(t *testing.T) {
	src := source(t, func(s string) string {
		return strings.Replace(s, "Join the chunks' `text` in order", "Concatenate the chunks' `text` in order", 1)
	})
	ss, err := skills.FromSource(contract(t), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == "read-long-text" && (!strings.Contains(s.Markdown, "3. Concatenate the chunks'") || strings.Contains(s.Markdown, "Join the chunks'")) {
			t.Errorf("the edited step does not show:\n%s", s.Markdown)
		}
	}
}
