package mcp

import (
	"context"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// completer answers completion/complete: the trees the caller may read,
// for a template's tree variable, and the page routes of a tree, for the
// page template's route variable and a prompt's page argument. It never
// logs or records the value completed, which is the caller's words.
type completer struct{ s *Server }

// CompletePromptArgument completes a prompt's page argument with the
// routes (/cloud/guides/reading/) of every tree the caller may read.
func (c completer) CompletePromptArgument(ctx context.Context, _ string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	if arg.Name != "page" {
		return &mcpgo.Completion{Values: []string{}}, nil
	}
	trees, err := c.s.completionTrees(ctx)
	if err != nil {
		return nil, err
	}
	value := arg.Value
	if value != "" && !strings.HasPrefix(value, "/") && !strings.Contains(value, " ") {
		value = "/" + value
	}
	var cands []candidate
	for _, t := range trees {
		pages, err := c.s.d.Pages(ctx, t)
		if err != nil {
			continue
		}
		for _, p := range pages {
			cands = append(cands, candidate{value: p.Route, title: p.Title})
		}
	}
	return complete(cands, value), nil
}

// CompleteResourceArgument completes the tree variable of the page and
// outline templates, and the route variable of the page template (the
// route without the tree's base path) once its tree is given.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcpgo.CompleteArgument, cc mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	switch {
	case arg.Name == "tree" && (uri == pageTemplate || uri == outlineTemplate):
		trees, err := c.s.completionTrees(ctx)
		if err != nil {
			return nil, err
		}
		cands := make([]candidate, len(trees))
		for i, t := range trees {
			cands[i] = candidate{value: t}
		}
		return complete(cands, arg.Value), nil
	case arg.Name == "route" && uri == pageTemplate:
		tree := cc.Arguments["tree"]
		if tree == "" {
			return &mcpgo.Completion{Values: []string{}}, nil
		}
		pages, err := c.s.d.Pages(ctx, tree)
		if err != nil {
			// A tree the caller may not read completes to nothing, as
			// one it may read but the version lacks.
			return &mcpgo.Completion{Values: []string{}}, nil
		}
		cands := make([]candidate, len(pages))
		for i, p := range pages {
			cands[i] = candidate{value: p.Slug(tree), title: p.Title}
		}
		return complete(cands, strings.TrimPrefix(arg.Value, "/")), nil
	}
	return &mcpgo.Completion{Values: []string{}}, nil
}

// completionTrees are the trees the caller of ctx may read in the served
// version; the completion is recorded as the list_context call that
// lists them.
func (s *Server) completionTrees(ctx context.Context) ([]string, error) {
	if _, err := s.d.Call(ctx, "list_context", map[string]any{}); err != nil {
		return nil, readError(err)
	}
	trees, err := s.d.Trees(ctx)
	if err != nil {
		return nil, readError(err)
	}
	return trees, nil
}

// candidate is one value a completion may offer, with the title its
// words match.
type candidate struct{ value, title string }

// complete answers the candidates whose value starts with value (case
// folded) or, where none does, whose title holds each word of value at
// the start of one of its words; at most maxCompletions, in the
// candidates' order, with the total matched.
func complete(cands []candidate, value string) *mcpgo.Completion {
	prefix := strings.ToLower(value)
	var out []string
	total := 0
	add := func(v string) {
		total++
		if len(out) < maxCompletions {
			out = append(out, v)
		}
	}
	for _, c := range cands {
		if strings.HasPrefix(strings.ToLower(c.value), prefix) {
			add(c.value)
		}
	}
	if total == 0 {
		words := strings.Fields(strings.ToLower(strings.Trim(value, "/")))
		for _, c := range cands {
			if len(words) > 0 && titleHas(c.title, words) {
				add(c.value)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return &mcpgo.Completion{Values: out, Total: total, HasMore: total > len(out)}
}

// titleHas reports whether each of words begins a word of title.
func titleHas(title string, words []string) bool {
	tw := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 127)
	})
	for _, w := range words {
		found := false
		for _, t := range tw {
			if strings.HasPrefix(t, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
