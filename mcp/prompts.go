package mcp

import (
	"context"
	"regexp"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// skillPrefix begins a skill's content ID; a skill's parts add
// ":<part>".
const skillPrefix = "skill:"

// promptArgs are the arguments a prompt takes where its skill drives
// read_documentation and names the member: the member, and what to give.
var promptArgs = []struct{ name, description string }{
	{"query", "A few words to search the documentation for; read_documentation's query member."},
	{"page", "A documentation page route, such as " + contractPageExample + "; read_documentation's page member."},
}

// contractPageExample is the example route the page argument gives where
// the site serves the contract's trees.
const contractPageExample = "/cloud/guides/reading/"

// codeSpan finds a Markdown text's code spans.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// prompt is one prompt with its handler.
type prompt struct {
	Prompt  mcpgo.Prompt
	Handler server.PromptHandlerFunc
}

// prompts returns a prompt per skill of the catalog (not per part): its
// name is the skill's, its text the skill's text without its front
// matter, read through read_context when the prompt is got, and its
// argument query or page where the skill drives read_documentation and
// its first step sets that member: what a person gives to start it.
func (s *Server) prompts(items []tzctx.CatalogItem) []prompt {
	var out []prompt
	for _, it := range items {
		name, ok := strings.CutPrefix(it.ID, skillPrefix)
		if !ok || name == "" || strings.Contains(name, ":") {
			continue
		}
		p := mcpgo.Prompt{Name: name, Title: it.Title, Description: skillDescription(it)}
		if isLibraryItem(it.ID, it.Actions) {
			s.libraryPrompts[name] = true
		}
		named := map[string]bool{}
		for _, m := range codeSpan.FindAllStringSubmatch(firstStep(steps(it.Text)), -1) {
			named[m[1]] = true
		}
		drivesDocs := false
		for _, a := range it.Actions {
			drivesDocs = drivesDocs || a == "read_documentation"
		}
		for _, a := range promptArgs {
			if drivesDocs && named[a.name] {
				p.Arguments = append(p.Arguments, mcpgo.PromptArgument{Name: a.name, Description: a.description})
			}
		}
		id := it.ID
		out = append(out, prompt{p, func(ctx context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			body, _, err := s.readWhole(ctx, "read_context", map[string]any{"id": id})
			if err != nil {
				return nil, err
			}
			body = withoutFrontMatter(body)
			for _, a := range p.Arguments {
				if v := req.Params.Arguments[a.Name]; v != "" {
					body += "\n\nUse `" + a.Name + "`: " + v
				}
			}
			return &mcpgo.GetPromptResult{Description: s.promptDescription(id, p.Description), Messages: []mcpgo.PromptMessage{
				{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(body)},
			}}, nil
		}})
	}
	return out
}

// promptDescription is the description of the prompt of the skill id as
// the texts served now give it, which names the site; def where they lack
// the skill.
func (s *Server) promptDescription(id, def string) string {
	for _, it := range s.siteTexts().Items {
		if it.ID == id {
			return skillDescription(it)
		}
	}
	return def
}

// skillDescription is the description in a skill's front matter, else
// its title.
func skillDescription(it tzctx.CatalogItem) string {
	rest, ok := strings.CutPrefix(it.Text, "---\n")
	if !ok {
		return it.Title
	}
	front, _, _ := strings.Cut(rest, "\n---")
	for _, line := range strings.Split(front, "\n") {
		if d, ok := strings.CutPrefix(line, "description:"); ok {
			return strings.Trim(strings.TrimSpace(d), `"'`)
		}
	}
	return it.Title
}

// filterPrompts lists the prompts whose skill list_context lists to this
// caller, the library's only where the served version holds a library
// entry it may read, the page argument's example drawn from the trees it
// may read.
func (s *Server) filterPrompts(ctx context.Context, prompts []mcpgo.Prompt) []mcpgo.Prompt {
	if len(prompts) == 0 {
		return prompts
	}
	entries, _, err := s.catalogEntries(ctx, false)
	if err != nil {
		return nil
	}
	listed := map[string]bool{}
	for _, e := range entries {
		listed[e.ID] = true
	}
	summary, lib := s.served(ctx, "prompts/list")
	trees := make([]string, len(summary))
	for i, t := range summary {
		trees[i] = t.Name
	}
	texts := s.siteTexts()
	skills := map[string]tzctx.CatalogItem{}
	for _, it := range texts.Items {
		if name, ok := strings.CutPrefix(it.ID, skillPrefix); ok {
			skills[name] = it
		}
	}
	var out []mcpgo.Prompt
	for _, p := range prompts {
		if !listed[skillPrefix+p.Name] || (!lib && s.libraryPrompts[p.Name]) {
			continue
		}
		// The skill's title and description as the texts served now
		// give them, which name the site.
		if it, ok := skills[p.Name]; ok {
			p.Title, p.Description = it.Title, skillDescription(it)
		}
		out = append(out, withPageExample(texts.Site, p, trees))
	}
	return out
}

// withPageExample returns p with its page argument's example route drawn
// from trees, the caller's (exampleRoute); p itself where the example is
// the contract's.
func withPageExample(site schemas.Site, p mcpgo.Prompt, trees []string) mcpgo.Prompt {
	route := exampleRoute(site, trees, contractPageExample)
	if route == contractPageExample {
		return p
	}
	args := slices.Clone(p.Arguments)
	for i, a := range args {
		if a.Name == "page" {
			args[i].Description = strings.Replace(a.Description, contractPageExample, route, 1)
		}
	}
	p.Arguments = args
	return p
}

// steps is the "## Steps" section of a skill's text, where the skill
// says what to call with which members; the whole text where it has no
// such section.
func steps(md string) string {
	_, rest, ok := strings.Cut(md, "\n## Steps\n")
	if !ok {
		return md
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// firstStep is the first numbered step of a skill's steps ("1. …" up to
// "2. "), the one that says what the person gives; the whole text where
// it numbers none.
func firstStep(steps string) string {
	_, rest, ok := strings.Cut("\n"+steps, "\n1. ")
	if !ok {
		return steps
	}
	first, _, _ := strings.Cut(rest, "\n2. ")
	return first
}

// withoutFrontMatter is a skill's text without its YAML front matter
// (the lines between a first "---" line and the next), which is for a
// skill loader, not for the model a prompt is handed to; the prompt's
// description already carries the front matter's.
func withoutFrontMatter(md string) string {
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		return md
	}
	_, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return md
	}
	return strings.TrimLeft(body, "\n")
}
