package mcp

import (
	"encoding/json"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Texts give the served texts the front end shows of the site: those of
// the version served now, which follow it where another version names
// other trees (the server's computes them per version). A change of them
// comes with an activation, which ListsChanged tells every client of.
type Texts interface {
	SiteTexts() SiteTexts
}

// SiteTexts are the served texts of one site.
type SiteTexts struct {
	// Site is what the texts say of the site: its public name (""
	// takes the contract's, schemas.DefaultSiteName) and the trees they
	// name, nil for the contract's own; the instructions, the server's
	// title and the example routes a caller is answered draw on it.
	Site schemas.Site
	// Actions define each action as the texts describe it: its
	// description and request schema, as tools/list shows them. Nil
	// keeps the registered actions' own.
	Actions interface {
		Action(name string) (schemas.Action, error)
	}
	// Items are the contract set's entries, the skills the prompts are
	// made of among them.
	Items []tzctx.CatalogItem
}

// FixedTexts are texts that never change: those of a server built for
// one site, as tests build it.
type FixedTexts SiteTexts

// SiteTexts implements Texts.
func (f FixedTexts) SiteTexts() SiteTexts { return SiteTexts(f) }

// siteTexts returns the texts served now, the site's name filled in.
func (s *Server) siteTexts() SiteTexts {
	t := s.texts.SiteTexts()
	if t.Site.Name == "" {
		t.Site.Name = schemas.DefaultSiteName
	}
	return t
}

// siteKey names the texts of site, which are a function of it: the key
// under which what the front end derives of them is held.
func siteKey(site schemas.Site) string {
	key, _ := json.Marshal(site)
	return string(key)
}

// toolTexts are the tools' descriptions and input schemas as one site's
// texts define them, held for the texts served now alone.
type toolTexts struct {
	key   string
	desc  map[string]string
	input map[string]json.RawMessage
	// requests are the request schemas the tree enumerations are
	// narrowed from (treeSchemas).
	requests map[string]map[string]any
}

// toolTextsHolder holds the tool texts of the site served last.
type toolTextsHolder struct {
	mu  sync.Mutex
	cur *toolTexts
}

// toolTextsOf returns the tool texts of t, computed once per site while
// it is served; nil where t keeps the registered actions' own.
func (s *Server) toolTextsOf(t SiteTexts) *toolTexts {
	if t.Actions == nil {
		return nil
	}
	key := siteKey(t.Site)
	s.tools.mu.Lock()
	defer s.tools.mu.Unlock()
	if c := s.tools.cur; c != nil && c.key == key {
		return c
	}
	tt := &toolTexts{key: key, desc: map[string]string{}, input: map[string]json.RawMessage{}, requests: map[string]map[string]any{}}
	for name := range s.actions {
		a, err := t.Actions.Action(name)
		if err != nil {
			s.log.Error("mcp tools/list: the served texts lack the action", "tool", name, "error", err.Error())
			continue
		}
		in, err := marshal(a.Request)
		if err != nil {
			s.log.Error("mcp tools/list: the input schema", "tool", name, "error", err.Error())
			continue
		}
		tt.desc[name], tt.input[name], tt.requests[name] = a.Description, in, a.Request
	}
	s.tools.cur = tt
	return tt
}

// withToolTexts sets, in tools, each tool's description and input schema
// to those the texts served now define; the tree enumerations are
// narrowed after (withTrees).
func (s *Server) withToolTexts(tt *toolTexts, tools []mcpgo.Tool) {
	if tt == nil {
		return
	}
	for i, t := range tools {
		if d, ok := tt.desc[t.Name]; ok {
			tools[i].Description = d
			tools[i].RawInputSchema = tt.input[t.Name]
		}
	}
}
