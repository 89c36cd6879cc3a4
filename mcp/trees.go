package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
)

// noTreeNote ends the tree member's description where the caller can
// read no tree of the served version, which then offers no enumeration
// (an empty one is refused by some clients' schema checks).
const noTreeNote = " No documentation tree can be read by this connection now: none is served, or none it may read."

// treeSchemas is the input schema of a tool whose request names a
// documentation tree (`tree` with an enumeration), for each set of trees
// a caller can read: the request schema with that enumeration narrowed
// to the trees, so a tool lists no tree the served version lacks
// (contracts/choices/reading.md#ch-reading, "Trees the served version
// lacks").
type treeSchemas struct {
	request map[string]any
	mu      sync.Mutex
	// texts names the texts (siteKey) byTrees was narrowed from: a
	// change of the served texts empties it.
	texts string
	// byTrees holds the encoded schema by the trees and their titles;
	// there are at most 2^n of them for n configured trees, and in
	// practice one per access setting a caller holds.
	byTrees map[string]json.RawMessage
}

// newTreeSchemas returns the tree schemas of a request schema, or nil
// where the request has no tree enumeration.
func newTreeSchemas(request map[string]any) *treeSchemas {
	props, _ := request["properties"].(map[string]any)
	tree, _ := props["tree"].(map[string]any)
	if _, ok := tree["enum"]; !ok {
		return nil
	}
	return &treeSchemas{request: request, byTrees: map[string]json.RawMessage{}}
}

// schema returns the encoded input schema offering trees, the tree
// member's description listing them with what text says of each where
// it says something of any (treeList).
//
// Where from is not "", the page member's description gives to as its
// example route in from's place: the caller's first readable tree's,
// where the contract's text names the site's first tree.
//
// The schema is narrowed from request where the served texts (named
// texts, siteKey) define the action's request, else from the registered
// one.
func (ts *treeSchemas) schema(texts string, request map[string]any, trees []string, text func(string) dispatch.TreeText, from, to string) (json.RawMessage, error) {
	// The key holds each tree's title and the example route too: a tree
	// the configuration leaves untitled takes the served version's, and
	// its first page may change, with an activation.
	var kb strings.Builder
	for _, t := range trees {
		kb.WriteString(t + "\x00" + text(t).Title + "\x00")
	}
	kb.WriteString(from + "\x00" + to)
	key := kb.String()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if texts != ts.texts {
		ts.texts, ts.byTrees = texts, map[string]json.RawMessage{}
	}
	if raw, ok := ts.byTrees[key]; ok {
		return raw, nil
	}
	if request == nil {
		request = ts.request
	}
	req := maps.Clone(request)
	props := maps.Clone(req["properties"].(map[string]any))
	tree := maps.Clone(props["tree"].(map[string]any))
	if len(trees) == 0 {
		delete(tree, "enum")
		tree["type"] = "string"
		desc, _ := tree["description"].(string)
		tree["description"] = desc + noTreeNote
	} else {
		enum := make([]any, len(trees))
		for i, t := range trees {
			enum[i] = t
		}
		tree["enum"] = enum
		if list := treeList(trees, text); list != "" {
			desc, _ := tree["description"].(string)
			tree["description"] = desc + list
		}
	}
	props["tree"] = tree
	if page, ok := props["page"].(map[string]any); ok && from != "" && to != "" && from != to {
		page = maps.Clone(page)
		if desc, ok := page["description"].(string); ok {
			page["description"] = strings.Replace(desc, "such as "+from+",", "such as "+to+",", 1)
		}
		props["page"] = page
	}
	req["properties"] = props
	raw, err := marshal(req)
	if err != nil {
		return nil, err
	}
	ts.byTrees[key] = raw
	return raw, nil
}

// withTrees narrows, in tools, the tree enumeration of every tool whose
// request names a tree to the trees the caller of ctx can read in the
// served version, from the request the served texts of site define (tt,
// nil for the registered ones). A failing holder check offers none, never
// a guess.
func (s *Server) withTrees(ctx context.Context, tools []mcpgo.Tool, site schemas.Site, tt *toolTexts) []mcpgo.Tool {
	var trees []string
	asked := false
	for i, t := range tools {
		ts := s.treeTools[t.Name]
		if ts == nil {
			continue
		}
		if !asked {
			var err error
			if trees, err = s.trees.Trees(ctx); err != nil {
				s.log.Warn("mcp tools/list", "code", string(tzctx.ErrorCode(err)))
				trees = nil
			}
			asked = true
		}
		from := filledRoute(site)
		key, request := "", map[string]any(nil)
		if tt != nil {
			key, request = tt.key, tt.requests[t.Name]
		}
		raw, err := ts.schema(key, request, trees, s.trees.TreeText, from, exampleRoute(site, trees, from))
		if err != nil {
			s.log.Error("mcp tools/list: the input schema", "tool", t.Name, "error", err.Error())
			continue
		}
		tools[i].RawInputSchema = raw
	}
	return tools
}

// treeList returns what the tree member's description adds of trees: a
// line for each, its name, then its title and description where the
// configuration gives them ("mcp: MCP documentation — The Model Context
// Protocol."); "" where it gives neither for any of them, as for the
// contract's trees by default, whose description stays the contract's.
func treeList(trees []string, text func(string) dispatch.TreeText) string {
	var b strings.Builder
	described := false
	for _, t := range trees {
		tt := text(t)
		described = described || tt.Title != "" || tt.Description != ""
		b.WriteString("\n- " + t)
		if tt.Title != "" {
			b.WriteString(": " + tt.Title)
		}
		if tt.Description != "" {
			b.WriteString(" — " + tt.Description)
		}
	}
	if !described {
		return ""
	}
	return "\nThe trees this connection may read:" + b.String()
}
