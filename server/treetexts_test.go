package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/schemas"
)

// describedTrees serves two of the sample site's trees under other
// names, the first with a description, the second with a title alone.
const describedTrees = `{"trees": [
  {"name": "mcp", "title": "MCP documentation", "description": "The Model Context Protocol.", "access": "anonymous"},
  {"name": "guide", "title": "The guide", "access": "anonymous"}
]}`

// treeDescription returns the description of read_documentation's tree
// member as tools/list shows it to c.
func treeDescription(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "read_documentation" {
			continue
		}
		raw := tool.RawInputSchema
		if len(raw) == 0 {
			if raw, err = json.Marshal(tool.InputSchema); err != nil {
				t.Fatal(err)
			}
		}
		var schema struct {
			Properties struct {
				Tree struct{ Description string } `json:"tree"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		return schema.Properties.Tree.Description
	}
	t.Fatal("no read_documentation tool")
	return ""
}

// treeResources returns the description of every resources/list entry
// of a documentation tree (docs:<tree> and its whole text; the catalog
// lists no outline), by its name, the entry's ID.
func treeResources(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	res, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range res.Resources {
		if strings.HasPrefix(r.Name, "docs:") {
			out[r.Name] = r.Description
		}
	}
	return out
}

// contractTreeDescription is the contract's description of
// read_documentation's tree member.
func contractTreeDescription(t *testing.T) string {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Action("read_documentation")
	if err != nil {
		t.Fatal(err)
	}
	tree, _ := a.Request["properties"].(map[string]any)["tree"].(map[string]any)
	desc, _ := tree["description"].(string)
	if desc == "" {
		t.Fatal("the contract's tree member has no description")
	}
	return desc
}

// TestTreeDescriptionsReachMCP: a configured tree's description starts
// the descriptions of its resources in resources/list, and tools/list's
// tree member lists each readable tree with its title and description;
// the contract's trees, as configured by default, keep today's texts.
func TestTreeDescriptionsReachMCP(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	data := t.TempDir()
	testkit.IngestInto(t, data, "v1", true,
		ingest.TreeSource{Name: "mcp", Dir: filepath.Join(site, "cloud")},
		ingest.TreeSource{Name: "guide", Dir: filepath.Join(site, "tzdocs")})
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(describedTrees), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WatchInterval = Duration(50 * time.Millisecond)
	s := startServer(t, data, cfg)
	c := mcpSession(t, s.base, "")

	res := treeResources(t, c)
	for _, id := range []string{"docs:mcp", "docs:mcp:full"} {
		if d, ok := res[id]; !ok || !strings.HasPrefix(d, "The Model Context Protocol. Catalog entry "+id) {
			t.Errorf("resource %s: description %q, want it to start with the tree's description", id, d)
		}
	}
	for _, id := range []string{"docs:guide", "docs:guide:full"} {
		if d, ok := res[id]; !ok || !strings.HasPrefix(d, "Catalog entry "+id) {
			t.Errorf("resource %s of a tree without a description: %q", id, d)
		}
	}

	want := contractTreeDescription(t) + "\nThe trees this connection may read:" +
		"\n- mcp: MCP documentation — The Model Context Protocol." +
		"\n- guide: The guide"
	if got := treeDescription(t, c); got != want {
		t.Errorf("tree member's description\n got %q\nwant %q", got, want)
	}
}

// TestTreeTextsDefaultUnchanged: with no trees configured, the tree
// entries' resource descriptions and the tree member's description are
// the contract's, as before trees had descriptions.
func TestTreeTextsDefaultUnchanged(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	ingestSample(t, data, "v1")
	s := startServer(t, data, testConfig(50*time.Millisecond))
	c := mcpSession(t, s.base, "")
	res := treeResources(t, c)
	if len(res) == 0 {
		t.Fatal("resources/list lists no documentation entry")
	}
	for id, d := range res {
		if !strings.HasPrefix(d, "Catalog entry "+id+", ") && !strings.HasPrefix(d, "Catalog entry "+id+". ") {
			t.Errorf("resource %s: description %q", id, d)
		}
	}
	if got, want := treeDescription(t, c), contractTreeDescription(t); got != want {
		t.Errorf("tree member's description\n got %q\nwant %q", got, want)
	}
}
