package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/skills"
	"github.com/turnzerocloud/tzctx/schemas"
)

// generatedSkills are the skills this build serves, as catalog.Load
// builds them.
func generatedSkills(t *testing.T) []catalog.Skill {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	ss, err := skills.Generate(c)
	if err != nil {
		t.Fatal(err)
	}
	var out []catalog.Skill
	for _, s := range ss {
		out = append(out, catalog.Skill{Name: s.Name, Title: s.Title, Markdown: s.Markdown, Actions: s.Actions})
	}
	return out
}

// TestToolsHaveTitles: every tool carries a title a client shows a
// person, as the tool's title and as the annotations' (for clients of
// protocol versions before 2025-06-18), and no two tools share one.
func TestToolsHaveTitles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res, err := f.httpClient(t, "").ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range res.Tools {
		if tool.Title == "" || tool.Title == tool.Name || tool.Annotations.Title != tool.Title || seen[tool.Title] {
			t.Errorf("tool %s: title %q, annotations' title %q; want one display title of its own", tool.Name, tool.Title, tool.Annotations.Title)
		}
		seen[tool.Title] = true
	}
}

// TestPromptsOfTheServedSkills: each skill this build serves is a prompt
// declaring only the argument its first step sets (search-documentation
// query, read-page-section page, the others none), and getting it
// returns the skill's text without the SKILL.md front matter.
func TestPromptsOfTheServedSkills(t *testing.T) {
	t.Parallel()
	f := newFixture(t, generatedSkills(t)...)
	want := map[string]string{"discover-context": "[]", "read-long-text": "[]", "search-documentation": "[query]", "read-page-section": "[page]", "add-library-entry": "[]", "update-library": "[]"}
	for name, c := range f.transports(t, "") {
		res, err := c.ListPrompts(context.Background(), mcpgo.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, p := range res.Prompts {
			var args []string
			for _, a := range p.Arguments {
				args = append(args, a.Name)
			}
			got[p.Name] = fmt.Sprint(args)
			req := mcpgo.GetPromptRequest{}
			req.Params.Name = p.Name
			g, err := c.GetPrompt(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			text := g.Messages[0].Content.(mcpgo.TextContent).Text
			if strings.HasPrefix(text, "---") || strings.Contains(text, "\nname: "+p.Name+"\n") || !strings.HasPrefix(text, "# ") {
				t.Errorf("%s: prompt %s's text begins %.80q, want the skill's title line, no front matter", name, p.Name, text)
			}
		}
		if g, _ := json.Marshal(got); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: prompts' arguments %s, want %v", name, g, want)
		}
	}
}
