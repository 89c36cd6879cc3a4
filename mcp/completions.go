package mcp

import (
	"context"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
)

// The defaults of a completion's bounds, where Options leave them out
// (contracts/choices/mcp.md#ch-mcp-completions).
const (
	// DefaultCompletionValueChars bounds the characters of the value a
	// completion completes: a route (id_max_length, 160, and its tree)
	// or a few words of a title fit with room to spare.
	DefaultCompletionValueChars = 256
	// DefaultCompletionWords bounds the words of the value matched
	// against the pages' titles.
	DefaultCompletionWords = 16
	// DefaultCompletionCandidates bounds the candidates (pages, or
	// trees) one completion considers: a site of 100,000 pages is
	// considered whole.
	DefaultCompletionCandidates = 100000
)

// CompletionBounds bound the work of one completion/complete, which any
// anonymous caller may send as often as it types: the value it completes
// and the candidates it considers. A value over a bound completes to no
// values; candidates past the bound are not considered, and the answer
// says there may be more (hasMore). Each candidate is looked at at most
// twice (its route, then its title), and the request's cancellation is
// observed every completionCheckEvery candidates.
type CompletionBounds struct {
	// MaxValueChars bounds the characters (code points) of the value;
	// 0 means DefaultCompletionValueChars.
	MaxValueChars int
	// MaxWords bounds the words of the value; 0 means
	// DefaultCompletionWords.
	MaxWords int
	// MaxCandidates bounds the candidates considered; 0 means
	// DefaultCompletionCandidates.
	MaxCandidates int
}

// withDefaults fills the bounds left at 0.
func (b CompletionBounds) withDefaults() CompletionBounds {
	if b.MaxValueChars <= 0 {
		b.MaxValueChars = DefaultCompletionValueChars
	}
	if b.MaxWords <= 0 {
		b.MaxWords = DefaultCompletionWords
	}
	if b.MaxCandidates <= 0 {
		b.MaxCandidates = DefaultCompletionCandidates
	}
	return b
}

// over reports whether value is over the bound of characters or of
// words; it reads at most the bound's characters of value.
func (b CompletionBounds) over(value string) bool {
	chars := 0
	for range value {
		if chars++; chars > b.MaxValueChars {
			return true
		}
	}
	return len(strings.Fields(value)) > b.MaxWords
}

// completionCheckEvery is how many candidates a completion looks at
// between two checks of its request's cancellation.
const completionCheckEvery = 256

// completer answers completion/complete: the trees the caller may read,
// for a template's tree variable, and the page routes of a tree, for the
// page template's route variable and a prompt's page argument. It never
// logs or records the value completed, which is the caller's words.
type completer struct {
	s *Server
	b CompletionBounds
}

// noValues is the answer of a completion with nothing to offer.
func noValues() *mcpgo.Completion { return &mcpgo.Completion{Values: []string{}} }

// CompletePromptArgument completes a prompt's page argument with the
// routes (/cloud/guides/reading/) of every tree the caller may read.
func (c completer) CompletePromptArgument(ctx context.Context, _ string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	if err := ctx.Err(); err != nil {
		// The client has gone: nothing is read for no one.
		return nil, err
	}
	if arg.Name != "page" || c.b.over(arg.Value) {
		return noValues(), nil
	}
	trees, err := c.s.completionTrees(ctx)
	if err != nil {
		return nil, err
	}
	value := arg.Value
	if value != "" && !strings.HasPrefix(value, "/") && !strings.Contains(value, " ") {
		value = "/" + value
	}
	g := candidates{max: c.b.MaxCandidates}
	if err := c.addPages(ctx, &g, trees, func(_ string, p tzctx.Page) candidate {
		return candidate{value: p.Route, title: p.Title}
	}); err != nil {
		return nil, err
	}
	out, _, err := complete(ctx, g, value)
	return out, err
}

// addPages adds to g a candidate of each page of trees, made by of, in
// tree and index order, until g holds its bound; it returns ctx's error
// where ctx ends first. A tree whose pages cannot be read adds none.
func (c completer) addPages(ctx context.Context, g *candidates, trees []string, of func(tree string, p tzctx.Page) candidate) error {
	for _, t := range trees {
		if g.cut {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		pages, err := c.s.trees.Pages(ctx, t)
		if err != nil {
			continue
		}
		for _, p := range pages {
			if !g.add(of(t, p)) {
				break
			}
		}
	}
	return nil
}

// CompleteResourceArgument completes the tree variable of the page and
// outline templates, and the route variable of the page template: the
// route without the tree's base path where its tree is given, else the
// routes of every tree the caller may read, each prefixed by its tree.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcpgo.CompleteArgument, cc mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.b.over(arg.Value) {
		return noValues(), nil
	}
	g := candidates{max: c.b.MaxCandidates}
	value := arg.Value
	switch {
	case arg.Name == "tree" && (uri == pageTemplate || uri == outlineTemplate):
		trees, err := c.s.completionTrees(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range trees {
			if !g.add(candidate{value: t}) {
				break
			}
		}
	case arg.Name == "route" && uri == pageTemplate:
		value = strings.TrimPrefix(value, "/")
		tree := cc.Arguments["tree"]
		if tree == "" {
			// No tree given: the routes of every tree the caller may
			// read, each prefixed by its tree ("cloud/guides/reading"),
			// matched by the route with or without it.
			trees, err := c.s.completionTrees(ctx)
			if err != nil {
				return nil, err
			}
			if err := c.addPages(ctx, &g, trees, func(t string, p tzctx.Page) candidate {
				slug := p.Slug(t)
				return candidate{value: t + "/" + slug, alt: slug, title: p.Title}
			}); err != nil {
				return nil, err
			}
			break
		}
		pages, err := c.s.trees.Pages(ctx, tree)
		if err != nil {
			// A tree the caller may not read completes to nothing, as
			// one it may read but the version lacks.
			return noValues(), nil
		}
		for _, p := range pages {
			if !g.add(candidate{value: p.Slug(tree), title: p.Title}) {
				break
			}
		}
	default:
		return noValues(), nil
	}
	out, _, err := complete(ctx, g, value)
	return out, err
}

// completionTrees are the trees the caller of ctx may read in the served
// version; the completion is recorded as the list_context call that
// lists them.
func (s *Server) completionTrees(ctx context.Context) ([]string, error) {
	if _, err := s.d.Call(ctx, "list_context", map[string]any{}); err != nil {
		return nil, readError(err)
	}
	trees, err := s.trees.Trees(ctx)
	if err != nil {
		return nil, readError(err)
	}
	return trees, nil
}

// candidate is one value a completion may offer, with the title its
// words match; alt, where set, is matched by prefix as value is (a
// route without the tree that prefixes value).
type candidate struct{ value, alt, title string }

// candidates are the candidates one completion considers: at most max,
// cut saying that some were left out.
type candidates struct {
	max  int
	list []candidate
	cut  bool
}

// add adds c, reporting false, and leaving c out, once max are held.
func (g *candidates) add(c candidate) bool {
	if len(g.list) >= g.max {
		g.cut = true
		return false
	}
	g.list = append(g.list, c)
	return true
}

// complete answers the candidates whose value starts with value (case
// folded) or, where none does, whose title holds each word of value at
// the start of one of its words; at most maxCompletions, in the
// candidates' order, with the total matched (none where candidates were
// left out, which hasMore then says). scanned is the number of
// candidates looked at, each at most twice; it returns ctx's error where
// ctx ends first, observed every completionCheckEvery candidates.
func complete(ctx context.Context, g candidates, value string) (_ *mcpgo.Completion, scanned int, _ error) {
	prefix := strings.ToLower(value)
	var out []string
	total := 0
	add := func(v string) {
		total++
		if len(out) < maxCompletions {
			out = append(out, v)
		}
	}
	look := func() error {
		scanned++
		if scanned%completionCheckEvery == 0 {
			return ctx.Err()
		}
		return nil
	}
	for _, c := range g.list {
		if err := look(); err != nil {
			return nil, scanned, err
		}
		if strings.HasPrefix(strings.ToLower(c.value), prefix) || c.alt != "" && strings.HasPrefix(strings.ToLower(c.alt), prefix) {
			add(c.value)
		}
	}
	if words := strings.Fields(strings.ToLower(strings.Trim(value, "/"))); total == 0 && len(words) > 0 {
		for _, c := range g.list {
			if err := look(); err != nil {
				return nil, scanned, err
			}
			if titleHas(c.title, words) {
				add(c.value)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	if g.cut {
		// The total of the candidates left out is not known.
		return &mcpgo.Completion{Values: out, HasMore: true}, scanned, nil
	}
	return &mcpgo.Completion{Values: out, Total: total, HasMore: total > len(out)}, scanned, nil
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
