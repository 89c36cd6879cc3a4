package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
)

// The resource URIs (contracts/choices/mcp.md#ch-mcp, "Resource URIs"). A
// catalog entry is ContextPrefix and its content ID, path-escaped (a "/" is
// %2F); a documentation page is DocsPrefix, the tree, "/page/" and the route
// without the tree's base path (empty for the home page), path-escaped segment
// by segment; a tree's outline is DocsPrefix, the tree and "/outline".
const (
	ContextPrefix = "tzctx://context/"
	DocsPrefix    = "tzctx://docs/"
)

// The resource templates, as resources/templates/list lists them.
const (
	contextTemplate = ContextPrefix + "{+id}"
	pageTemplate    = DocsPrefix + "{tree}/page/{+route}"
	outlineTemplate = DocsPrefix + "{tree}/outline"
)

// ContextURI is the resource URI of a catalog entry.
func ContextURI(id string) string { return ContextPrefix + url.PathEscape(id) }

// PageURI is the resource URI of a documentation page, its route given
// without the tree's base path ("guides/reading").
func PageURI(tree, route string) string {
	segs := strings.Split(strings.Trim(route, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return DocsPrefix + tree + "/page/" + strings.Join(segs, "/")
}

// OutlineURI is the resource URI of a tree's outline.
func OutlineURI(tree string) string { return DocsPrefix + tree + "/outline" }

// maxRestarts bounds how often a paged read starts again after the text
// changed under it (context_changed).
const maxRestarts = 3

// catalogEntries lists the whole catalog this caller may see, through
// list_context, paged to its end; withSizes also returns each entry's
// size in bytes (-1 where unknown), which costs nothing unless asked.
func (s *Server) catalogEntries(ctx context.Context, withSizes bool) ([]tzctx.CatalogEntry, []int64, error) {
	var err error
	for range maxRestarts {
		var out []tzctx.CatalogEntry
		var sizes []int64
		args := map[string]any{}
		for {
			var res any
			if res, err = s.d.Call(ctx, "list_context", args); err != nil {
				break
			}
			page, ok := res.(dispatch.CatalogPage)
			if !ok {
				return nil, nil, fmt.Errorf("list_context answered %T, not a catalog page", res)
			}
			entries, stamp, next := page.CatalogPage()
			out = append(out, entries...)
			if withSizes {
				var got []int64
				if sz, ok := res.(dispatch.EntrySizer); ok {
					got = sz.EntrySizes()
				}
				for i := range entries {
					if i < len(got) {
						sizes = append(sizes, got[i])
					} else {
						sizes = append(sizes, -1)
					}
				}
			}
			if next == nil {
				return out, sizes, nil
			}
			args = map[string]any{"offset": json.Number(fmt.Sprint(*next)), "stamp": stamp}
		}
		if tzctx.ErrorCode(err) != tzctx.ContextChanged {
			return nil, nil, err
		}
	}
	return nil, nil, err
}

// resources lists the caller's catalog as resources, in catalog order,
// each with its size in bytes where known; a refusal lists none and is
// logged.
func (s *Server) resources(ctx context.Context) []mcpgo.Resource {
	entries, sizes, err := s.catalogEntries(ctx, true)
	if err != nil {
		s.log.Warn("mcp resources/list", "code", string(tzctx.ErrorCode(err)))
		return []mcpgo.Resource{}
	}
	out := make([]mcpgo.Resource, 0, len(entries))
	_, lib := s.served(ctx, "resources/list")
	for i, e := range entries {
		if !lib && s.libraryItems[e.ID] {
			continue
		}
		r := mcpgo.Resource{URI: ContextURI(e.ID), Name: e.ID, Title: e.Title, MIMEType: e.MimeType}
		size := ""
		if sizes[i] >= 0 {
			r.Size = &sizes[i]
			size = fmt.Sprintf(", %d bytes", sizes[i])
		}
		r.Description = s.treeSentence(e.Tree) + "Catalog entry " + e.ID + size + ". Reading the resource returns its whole text in one message; the tool " +
			e.Tool + " reads it in chunks (offset, limit, stamp), which a client may prefer for a large one."
		out = append(out, r)
	}
	return out
}

// treeSentence returns the configured description of tree as the
// sentence a resource of the tree's description starts with, followed
// by a space; "" where the entry is of no tree or the configuration
// describes none (the contract's trees, by default).
func (s *Server) treeSentence(tree string) string {
	if tree == "" {
		return ""
	}
	return sentence(s.trees.TreeText(tree).Description)
}

// sentence returns text ending as a sentence does, followed by a space,
// or "" for no text.
func sentence(text string) string {
	if text == "" {
		return ""
	}
	if !strings.ContainsAny(text[len(text)-1:], ".!?") {
		text += "."
	}
	return text + " "
}

// readWhole reads a text to its end through action, the largest chunks
// the contract allows, and returns its text and media type: one call to
// the records however many chunks it takes (dispatch.ReadWhole).
func (s *Server) readWhole(ctx context.Context, action string, args map[string]any) (string, string, error) {
	text, mime, err := s.d.ReadWhole(ctx, action, args, s.limit)
	if err != nil {
		return "", "", readError(err)
	}
	return text, mime, nil
}

// readError is a refused resource read as mcp-go reports a handler's
// error: its message is the contract's code and detail.
func readError(err error) error {
	te := contractError(err)
	return errors.New(string(te.Code) + ": " + te.Detail)
}

// template is one resource template with its handler.
type template struct {
	Template mcpgo.ResourceTemplate
	Handler  server.ResourceTemplateHandlerFunc
}

// templates returns the resource templates: any catalog entry by its ID,
// read through read_context, and a documentation page or outline, read
// through read_documentation. Their descriptions name every configured
// tree; each list names the caller's own (templatesFor).
func (s *Server) templates(site schemas.Site) []template {
	handle := func(read func(context.Context, string) ([]mcpgo.ResourceContents, error)) server.ResourceTemplateHandlerFunc {
		return func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return read(ctx, req.Params.URI)
		}
	}
	names := s.trees.TreeNames()
	page, outline := templateDescriptions(names, exampleRoute(site, names, ""))
	return []template{
		{mcpgo.NewResourceTemplate(contextTemplate, "context",
			mcpgo.WithTemplateTitle("A catalog entry"),
			mcpgo.WithTemplateDescription("A catalog entry by its content ID, as resources/list and list_context list them, path-escaped; its whole text, read through read_context.")),
			handle(s.readContextURI)},
		{mcpgo.NewResourceTemplate(pageTemplate, "page",
			mcpgo.WithTemplateTitle("A documentation page"),
			mcpgo.WithTemplateDescription(page),
			mcpgo.WithTemplateMIMEType(tzctx.MimeMarkdown)),
			handle(s.readPageURI)},
		{mcpgo.NewResourceTemplate(outlineTemplate, "outline",
			mcpgo.WithTemplateTitle("A documentation tree's outline"),
			mcpgo.WithTemplateDescription(outline),
			mcpgo.WithTemplateMIMEType(tzctx.MimeMarkdown)),
			handle(s.readOutlineURI)},
	}
}

// templatesFor narrows, in a resources/templates/list answer, the trees
// the page and outline templates' descriptions name to those the caller
// of ctx can read in the served version, as a tool's tree enumeration is
// narrowed (withTrees): a gated tree is named to its readers alone
// . A failing holder check names none, never a guess.
func (s *Server) templatesFor(ctx context.Context, templates []mcpgo.ResourceTemplate) {
	trees, err := s.trees.Trees(ctx)
	if err != nil {
		s.log.Warn("mcp resources/templates/list", "code", string(tzctx.ErrorCode(err)))
		trees = nil
	}
	page, outline := templateDescriptions(trees, exampleRoute(s.siteTexts().Site, trees, ""))
	for i, t := range templates {
		switch t.Name {
		case "page":
			templates[i].Description = page
		case "outline":
			templates[i].Description = outline
		}
	}
}

// templateDescriptions returns the descriptions of the page and outline
// templates naming trees.
func templateDescriptions(trees []string, route string) (page, outline string) {
	list, example := templateTrees(trees, route)
	page = "One page of a documentation tree (" + list + ") by its route without the tree's base path, such as " + example + "; the home page's route is empty. Its whole Markdown copy, read through read_documentation."
	outline = "The outline of a documentation tree (" + list + "): each page line of its index followed by its headings with anchors, read through read_documentation. It can be large (a whole tree's headings) and is returned in one message: a client may prefer read_documentation with part outline, which pages it."
	return page, outline
}

// templateTrees returns what the templates' descriptions say of trees:
// their names ("cloud, blueprint or tzdocs") and a page URI of the
// first, the contract's own example for its trees, else route where
// given (a page of the site's, exampleRoute), else its home page.
func templateTrees(names []string, route string) (list, example string) {
	switch len(names) {
	case 0:
		list = "none this connection may read now"
	case 1:
		list = names[0]
	default:
		list = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	example = PageURI("cloud", "guides/reading")
	if len(names) > 0 && names[0] != "cloud" {
		slug := ""
		if rest, ok := strings.CutPrefix(route, "/"+names[0]+"/"); ok {
			slug = strings.TrimSuffix(rest, "/")
		}
		example = PageURI(names[0], slug)
	}
	return list, example
}

// textContents is a resource read's one text.
func textContents(uri, mime, body string) []mcpgo.ResourceContents {
	return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: mime, Text: body}}
}

// readContextURI reads a catalog entry's resource, uri under
// ContextPrefix.
func (s *Server) readContextURI(ctx context.Context, uri string) ([]mcpgo.ResourceContents, error) {
	id, err := url.PathUnescape(strings.TrimPrefix(uri, ContextPrefix))
	if err != nil || id == "" {
		return nil, fmt.Errorf("invalid_request: %s is not a catalog resource URI; resources/list lists them", ContextPrefix+"…")
	}
	body, mime, err := s.readWhole(ctx, "read_context", map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	return textContents(uri, mime, body), nil
}

// readPageURI reads a documentation page's resource, uri under
// DocsPrefix with a tree and "/page/".
func (s *Server) readPageURI(ctx context.Context, uri string) ([]mcpgo.ResourceContents, error) {
	rest := strings.TrimPrefix(uri, DocsPrefix)
	tree, route, ok := strings.Cut(rest, "/page/")
	if !ok {
		tree, route = strings.TrimSuffix(rest, "/page"), ""
	}
	route, err := url.PathUnescape(route)
	if err != nil {
		return nil, fmt.Errorf("invalid_request: the page URI is not validly percent-encoded")
	}
	body, mime, err := s.readWhole(ctx, "read_documentation", map[string]any{"tree": tree, "page": "/" + tree + "/" + route})
	if err != nil {
		return nil, err
	}
	return textContents(uri, mime, body), nil
}

// readOutlineURI reads a tree's outline resource, uri under DocsPrefix
// ending in "/outline".
func (s *Server) readOutlineURI(ctx context.Context, uri string) ([]mcpgo.ResourceContents, error) {
	tree := strings.TrimSuffix(strings.TrimPrefix(uri, DocsPrefix), "/outline")
	body, mime, err := s.readWhole(ctx, "read_documentation", map[string]any{"tree": tree, "part": "outline"})
	if err != nil {
		return nil, err
	}
	return textContents(uri, mime, body), nil
}
