package mcp

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// The bounds of the server instructions, in code points: what a client
// puts before the agent's first turn. Trees past the bound are counted,
// and the instructions say how to list them (list_context). Below
// MinInstructionsMaxChars the sentences on how to find an answer would
// not fit beside a tree.
const (
	DefaultInstructionsMaxChars = 1200
	MinInstructionsMaxChars     = 800
	MaxInstructionsMaxChars     = 20000
)

// libraryActions are the actions that read the library: offered, with the
// skills, prompts and guide that drive them, only where the served
// version holds a library entry the caller may read.
var libraryActions = []string{"list_library", "read_library_entry"}

// libraryGuide is the guide of the library's discipline, which names its
// actions as commands rather than driving them as a skill does.
const libraryGuide = "guide:library-first"

// isLibraryItem reports whether a catalog entry is of the library: the
// library's guide, or an entry (a skill, its parts, a payload) every
// action of which reads the library.
func isLibraryItem(id string, actions []string) bool {
	if id == libraryGuide {
		return true
	}
	if len(actions) == 0 {
		return false
	}
	for _, a := range actions {
		if !slices.Contains(libraryActions, a) {
			return false
		}
	}
	return true
}

// served returns what is served to the caller of ctx: the trees it may
// read, with their titles and page counts, and whether the served
// version holds a library entry it may read. A failing check serves
// none, never a guess, and is logged without the caller's words.
func (s *Server) served(ctx context.Context, what string) ([]tzctx.TreeSummary, bool) {
	trees, lib, err := s.trees.Summary(ctx)
	if err != nil {
		s.log.Warn("mcp "+what, "code", string(tzctx.ErrorCode(err)))
		return nil, false
	}
	return trees, lib
}

// instructions are the server instructions for the caller of ctx
// (contracts/choices/served.md#ch-served-texts): what is
// served first, each readable tree's title, description and page count,
// then how to find an answer in it, the library where one is held, and
// where the service's own contracts are; at most InstructionsMaxChars
// code points, the trees past the bound counted and listable.
func (s *Server) instructions(ctx context.Context) string {
	trees, lib := s.served(ctx, "instructions")
	return instructionsText(s.siteTexts().Site.Name, trees, lib, s.instructionsMax)
}

// instructionsText is instructions' text for a site named name serving
// trees (and a library, where lib), of at most maxChars code points.
func instructionsText(name string, trees []tzctx.TreeSummary, lib bool, maxChars int) string {
	var tail strings.Builder
	if len(trees) > 0 {
		tail.WriteString("To find an answer: search_documentation for a question (it answers with the best sections); read_documentation for a tree's index (tree), a page (page), a section (page with an offset from its headings) or exact words and names (query).")
	}
	if lib {
		tail.WriteString(" list_library and read_library_entry give the library's entries to take into a project.")
	}
	tail.WriteString(" The service's own contracts, guides and skills: list_context, starting with tzctx://context/overview.")
	rest := strings.TrimPrefix(tail.String(), " ")
	if len(trees) == 0 {
		return schemas.Possessive(name) + " served context holds no documentation this connection may read now. " + rest
	}
	head := name + " serves this documentation:\n"
	budget := maxChars - utf8.RuneCountInString(head) - 1 - utf8.RuneCountInString(rest)
	var lines strings.Builder
	for i, t := range trees {
		line := "- " + t.Name
		if t.Title != "" && t.Title != t.Name {
			line += ": " + t.Title
		}
		if t.Description != "" {
			line += " — " + t.Description
		}
		line += " (" + pagesPhrase(t.Pages) + ")\n"
		left := len(trees) - i - 1
		more := ""
		if left > 0 {
			more = moreTrees(left)
		}
		if utf8.RuneCountInString(line)+utf8.RuneCountInString(more) > budget {
			lines.WriteString(moreTrees(len(trees) - i))
			break
		}
		lines.WriteString(line)
		budget -= utf8.RuneCountInString(line)
	}
	return head + lines.String() + "\n" + rest
}

// moreTrees is the line that counts the trees the instructions leave out.
func moreTrees(n int) string {
	if n == 1 {
		return "- and 1 more tree: list_context lists every tree's index.\n"
	}
	return "- and " + strconv.Itoa(n) + " more trees: list_context lists every tree's index.\n"
}

// pagesPhrase counts pages: "1 page", "12 pages".
func pagesPhrase(n int) string {
	if n == 1 {
		return "1 page"
	}
	return strconv.Itoa(n) + " pages"
}

// exampleRoute returns the page route the texts a caller is answered
// give as an example: that of the first of site's trees among trees (the
// caller's readable ones), its example route else its home page; def,
// the contract's, where the site serves the contract's trees or none of
// trees.
func exampleRoute(site schemas.Site, trees []string, def string) string {
	if site.Trees == nil {
		return def
	}
	for _, t := range site.Trees {
		if slices.Contains(trees, t.Name) {
			return siteRoute(t)
		}
	}
	return def
}

// siteRoute is a site tree's example route, else its home page's, as
// schemas.FillSite fills the contract's example routes.
func siteRoute(t schemas.SiteTree) string {
	if t.Route != "" {
		return t.Route
	}
	return "/" + t.Name + "/"
}

// filledRoute is the example route the contract's texts were filled with
// for site (schemas.FillSite): its first tree's; "" where the site serves
// the contract's trees.
func filledRoute(site schemas.Site) string {
	if len(site.Trees) == 0 {
		return ""
	}
	return siteRoute(site.Trees[0])
}
