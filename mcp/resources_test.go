package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/mcp"
)

// listedIDs pages list_context over HTTP for the caller of token.
func (f *fixture) listedIDs(t *testing.T, token string) []catalog.Entry {
	t.Helper()
	var out []catalog.Entry
	args := map[string]any{}
	for {
		var page struct {
			Stamp      string          `json:"stamp"`
			NextOffset *int            `json:"next_offset"`
			Entries    []catalog.Entry `json:"entries"`
		}
		if err := json.Unmarshal(f.postAPI(t, "list_context", args, token), &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Entries...)
		if page.NextOffset == nil {
			return out
		}
		args = map[string]any{"offset": *page.NextOffset, "stamp": page.Stamp}
	}
}

// wholeText reads a text to its end over the HTTP API.
func (f *fixture) wholeText(t *testing.T, action string, args map[string]any, token string) string {
	t.Helper()
	var b strings.Builder
	call := map[string]any{"limit": 16000}
	for k, v := range args {
		call[k] = v
	}
	for {
		var a struct {
			Stamp      string `json:"stamp"`
			NextOffset *int   `json:"next_offset"`
			Text       string `json:"text"`
			Error      any    `json:"error"`
		}
		if err := json.Unmarshal(f.postAPI(t, action, call, token), &a); err != nil || a.Error != nil {
			t.Fatalf("%s %v: %v %v", action, call, err, a.Error)
		}
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			return b.String()
		}
		call["offset"], call["stamp"] = *a.NextOffset, a.Stamp
	}
}

func listResources(t *testing.T, c *client.Client) []mcpgo.Resource {
	t.Helper()
	res, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Resources
}

func readResource(c *client.Client, uri string) (*mcpgo.TextResourceContents, error) {
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(context.Background(), req)
	if err != nil {
		return nil, err
	}
	tc, _ := res.Contents[0].(mcpgo.TextResourceContents)
	return &tc, nil
}

// TestResourcesFollowTheCatalog: each caller's resources are the entries
// list_context lists to it, in its order, with their media types; each
// resource reads as the entry's whole text (CTX-07); an entry hidden from
// the caller does not read; the templates read a page and an outline as
// read_documentation reads them.
func TestResourcesFollowTheCatalog(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, token := range []string{"", tokenPlain, tokenBlueprint} {
		entries := f.listedIDs(t, token)
		for name, c := range f.transports(t, token) {
			got := listResources(t, c)
			if len(got) != len(entries) {
				t.Fatalf("%s token %q: %d resources, list_context lists %d", name, token, len(got), len(entries))
			}
			for i, e := range entries {
				r := got[i]
				if r.URI != mcp.ContextURI(e.ID) || r.MIMEType != e.MimeType || r.Title != e.Title {
					t.Errorf("%s token %q: resource %d is %s (%s), want %s (%s)", name, token, i, r.URI, r.MIMEType, e.ID, e.MimeType)
				}
				tc, err := readResource(c, r.URI)
				if err != nil {
					t.Fatalf("%s: read %s: %v", name, r.URI, err)
				}
				if want := f.wholeText(t, "read_context", map[string]any{"id": e.ID}, token); tc.Text != want || tc.MIMEType != e.MimeType {
					t.Errorf("%s: resource %s reads %d bytes (%s), read_context %d", name, r.URI, len(tc.Text), tc.MIMEType, len(want))
				}
			}
			blueprint := false
			for _, e := range entries {
				blueprint = blueprint || e.ID == "docs:blueprint"
			}
			if _, err := readResource(c, mcp.ContextURI("docs:blueprint")); (err == nil) != blueprint {
				t.Errorf("%s token %q: reading docs:blueprint: %v, listed %v", name, token, err, blueprint)
			}
			page, err := readResource(c, mcp.PageURI("cloud", "reference/http"))
			if err != nil || page.Text != f.wholeText(t, "read_documentation", map[string]any{"page": "/cloud/reference/http/"}, token) {
				t.Errorf("%s: the page template reads %v", name, err)
			}
			home, err := readResource(c, mcp.PageURI("tzdocs", ""))
			if err != nil || home.Text != f.wholeText(t, "read_documentation", map[string]any{"page": "/tzdocs/"}, token) {
				t.Errorf("%s: the home page reads %v", name, err)
			}
			outline, err := readResource(c, mcp.OutlineURI("cloud"))
			if err != nil || outline.Text != f.wholeText(t, "read_documentation", map[string]any{"tree": "cloud", "part": "outline"}, token) {
				t.Errorf("%s: the outline template reads %v", name, err)
			}
			if _, err := readResource(c, mcp.PageURI("cloud", "no/such/page")); err == nil || !strings.Contains(err.Error(), "context_not_found") {
				t.Errorf("%s: a missing page reads %v, want context_not_found", name, err)
			}
		}
	}
}

// testSkill is a skill as the generators build one, driving
// read_documentation with a query.
var testSkill = catalog.Skill{
	Name:     "search-documentation",
	Title:    "Search Turn Zero Cloud documentation",
	Markdown: "---\nname: search-documentation\ndescription: Find the pages that hold some words.\n---\n\n# Search\n\n## Steps\n\n1. Call `read_documentation` with `query`.\n\n## Calls\n\n| `page` | no |\n",
	Actions:  []string{"read_documentation"},
}

// TestPromptsAreTheSkills: each skill the catalog lists to the caller is
// a prompt named after it, with a query argument where the skill drives
// read_documentation with one in its steps (a member its other sections
// name is no argument); getting it returns the skill's text without its
// front matter and the argument given.
func TestPromptsAreTheSkills(t *testing.T) {
	t.Parallel()
	f := newFixture(t, testSkill)
	for name, c := range f.transports(t, "") {
		res, err := c.ListPrompts(context.Background(), mcpgo.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Prompts) != 1 {
			t.Fatalf("%s: prompts %+v, want the one skill", name, res.Prompts)
		}
		p := res.Prompts[0]
		if p.Name != testSkill.Name || p.Description != "Find the pages that hold some words." || len(p.Arguments) != 1 || p.Arguments[0].Name != "query" {
			t.Errorf("%s: prompt %+v", name, p)
		}
		req := mcpgo.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = p.Name, map[string]string{"query": "stamp offset"}
		got, err := c.GetPrompt(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		text := got.Messages[0].Content.(mcpgo.TextContent).Text
		if !strings.HasPrefix(text, "# Search\n\n## Steps\n") || !strings.HasSuffix(text, "Use `query`: stamp offset") {
			t.Errorf("%s: prompt text %q", name, text)
		}
		req.Params.Name = "no-such-skill"
		if _, err := c.GetPrompt(context.Background(), req); err == nil {
			t.Errorf("%s: an unknown prompt was got", name)
		}
	}
	plain := newFixture(t)
	res, err := plain.httpClient(t, "").ListPrompts(context.Background(), mcpgo.ListPromptsRequest{})
	if err != nil || len(res.Prompts) != 0 {
		t.Errorf("a catalog without skills lists prompts %v (%v)", res, err)
	}
}

// TestListChangedReachesEveryClient: ListsChanged, which the watchers
// call on an activation, notifies every connected client on both
// transports of the resource, prompt and tool lists (a tool's tree
// enumeration follows the served version).
func TestListChangedReachesEveryClient(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	type seen struct {
		name string
		ch   chan string
	}
	var all []seen
	for i := 0; i < 2; i++ {
		for name, c := range f.transports(t, "") {
			ch := make(chan string, 8)
			c.OnNotification(func(n mcpgo.JSONRPCNotification) {
				select {
				case ch <- n.Method:
				default: // seen enough: ListsChanged repeats
				}
			})
			all = append(all, seen{name, ch})
		}
	}
	// The HTTP clients' listening streams open some time after
	// initialize, and a notification sent before is not theirs to see:
	// ListsChanged is called again until every client has seen all, so
	// the verdict does not depend on how fast the streams open.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			f.s.ListsChanged()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	for _, s := range all {
		got := map[string]bool{}
		timeout := time.After(time.Minute)
		for len(got) < 3 {
			select {
			case m := <-s.ch:
				got[m] = true
			case <-timeout:
				t.Fatalf("%s client saw %v within a minute, want the three list_changed notifications", s.name, got)
			}
		}
		if !got["notifications/resources/list_changed"] || !got["notifications/prompts/list_changed"] || !got["notifications/tools/list_changed"] {
			t.Errorf("%s client saw %v", s.name, got)
		}
	}
}
