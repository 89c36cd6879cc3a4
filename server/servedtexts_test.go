package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// servedTreesFixture writes two small documentation folders: rockets, an
// MkDocs site, and engines, an mdBook; a page of each holds the rule code
// CTX-08, so a rule-code search has a preface to serve.
func servedTreesFixture(t *testing.T) []ingest.TreeSource {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"rockets/mkdocs.yml":               "site_name: Rocket Guide\nnav:\n  - Home: index.md\n  - Launch checklist: launch/checklist.md\n",
		"rockets/docs/index.md":            "# Rocket Guide\n\nHow to fly the rocket.\n",
		"rockets/docs/launch/checklist.md": "# Launch checklist\n\n## Before fuelling\n\nCheck the valves. Rule CTX-08 applies.\n\n## Countdown\n\nCount down from ten.\n",
		"engines/book.toml":                "[book]\ntitle = \"Engine Manual\"\n",
		"engines/src/SUMMARY.md":           "# Summary\n\n- [Engines](README.md)\n- [Thrust](thrust.md)\n",
		"engines/src/README.md":            "# Engines\n\nThe engines push the rocket.\n",
		"engines/src/thrust.md":            "# Thrust\n\nThrust is force. See CTX-08.\n",
	}
	testkit.WriteFiles(t, root, files)
	return []ingest.TreeSource{{Name: "rockets", Dir: filepath.Join(root, "rockets")}, {Name: "engines", Dir: filepath.Join(root, "engines")}}
}

// configOf loads a configuration file holding conf, watching the data
// directory once an hour (the tests activate nothing after start).
func configOf(t *testing.T, conf string) Config {
	t.Helper()
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WatchInterval = Duration(time.Hour)
	return cfg
}

// contractTrees finds the contract's tree names, as a text names a tree.
var contractTrees = regexp.MustCompile(`\b(cloud|blueprint|tzdocs)\b|Turn Zero`)

// contractDocuments are the texts that are the contract itself and this
// build's reading of it (and the bundle, which holds them): they define
// the contract's trees (cloud, blueprint gated by its profile) and stay
// as written whatever a site serves
// (contracts/choices/served.md#ch-served-texts). The choices are a
// contents page and a file per subject under choices/.
func contractDocument(label string) bool {
	for _, id := range []string{"source:contracts/served_context.md", "source:contracts%2Fserved_context.md", "source:contracts/choices.md", "source:contracts%2Fchoices.md"} {
		if strings.HasSuffix(label, id) {
			return true
		}
	}
	for _, prefix := range []string{"source:contracts/choices/", "source:contracts%2Fchoices%2F"} {
		if _, id, ok := strings.Cut(label, prefix); ok && strings.HasSuffix(id, ".md") && !strings.Contains(id, "/") && !strings.Contains(id, "%2F") {
			return true
		}
	}
	return label == "read_context bundle" || strings.HasSuffix(label, "tzctx://context/bundle")
}

// TestServedTextsNameOnlyTheServedTrees serves two configured trees
// (rockets, engines) under another site name, once "Acme Docs" (a name
// ending in "s" and starting with a vowel) and once "Orbit", and reads
// every text the server serves about itself over HTTP and MCP (issue
// 31): none names a tree that is not served or Turn Zero Cloud, the name
// takes its article and possessive right in every sentence that holds
// it, the instructions start with the trees, their titles and page
// counts within 1,200 code points, no library is offered where none is
// held, a refusal names the served trees alone, and a route completes
// across the trees when no tree is given.
func TestServedTextsNameOnlyTheServedTrees(t *testing.T) {
	t.Parallel()
	srcs := servedTreesFixture(t)
	for _, name := range []string{"Acme Docs", "Orbit"} {
		t.Run(name, func(t *testing.T) {
			conf := `{"site": {"name": "` + name + `"}, "trees": [
  {"name": "rockets", "title": "Rocket Guide", "description": "How to fly the rocket.", "access": "anonymous"},
  {"name": "engines", "title": "Engine Manual", "access": "anonymous"}
]}`
			cfg := configOf(t, conf)
			data := t.TempDir()
			testkit.IngestInto(t, data, "docs-1", true, srcs...)
			s := startServer(t, data, cfg)
			texts := servedTexts(t, s.base)

			// A refusal names the trees served, and no other.
			code, raw, err := postRaw(s.base, "read_documentation", map[string]any{"tree": "cloud"})
			if err != nil || code != 400 {
				t.Fatalf("read_documentation tree cloud: %d %v %s", code, err, raw)
			}
			var refusal struct{ Error struct{ Detail string } }
			_ = json.Unmarshal(raw, &refusal)
			if !strings.Contains(refusal.Error.Detail, "rockets") || !strings.Contains(refusal.Error.Detail, "engines") {
				t.Errorf("the refusal of an unknown tree names not the served trees: %s", refusal.Error.Detail)
			}
			texts["refusal read_documentation tree"] = strings.ReplaceAll(refusal.Error.Detail, `"cloud"`, "the tree asked for")

			wrong := []*regexp.Regexp{regexp.MustCompile(`Docs's|\b[Aa] (Acme|Orbit)\b|Orbit'[^s]`)}
			for label, text := range texts {
				if !contractDocument(label) {
					if m := contractTrees.FindStringIndex(text); m != nil {
						t.Errorf("%s names %q, which is not served: …%s…", label, text[m[0]:m[1]], text[max(0, m[0]-100):min(len(text), m[1]+100)])
					}
				}
				for _, re := range wrong {
					if m := re.FindStringIndex(text); m != nil {
						t.Errorf("%s misreads the site name: …%s…", label, text[max(0, m[0]-60):min(len(text), m[1]+60)])
					}
				}
			}

			// Examples are drawn from the trees served.
			if tool := texts["mcp tools/list read_documentation"]; !strings.Contains(tool, "such as /rockets/launch/checklist/") {
				t.Errorf("read_documentation's page member gives no example of the served trees: %.600s", tool)
			}
			if ov := texts["read_context overview"]; !strings.Contains(ov, "`rockets` (Rocket Guide: How to fly the rocket.) and `engines` (Engine Manual)") {
				t.Errorf("the overview does not name the served trees: %.3000s", ov)
			}

			// The instructions say what is served first, within the bound.
			ins := texts["mcp initialize instructions"]
			if n := utf8.RuneCountInString(ins); n > 1200 {
				t.Errorf("the instructions are %d code points, over 1,200", n)
			}
			if want := name + " serves this documentation:\n- rockets: Rocket Guide — How to fly the rocket. (2 pages)\n- engines: Engine Manual (2 pages)\n"; !strings.HasPrefix(ins, want) {
				t.Errorf("the instructions start\n%s\nwant\n%s", ins, want)
			}
			for _, w := range []string{"search_documentation", "read_documentation"} {
				if !strings.Contains(ins, w) {
					t.Errorf("the instructions do not say how to find an answer with %s: %s", w, ins)
				}
			}

			// No library is held, so none is offered.
			for label := range texts {
				if strings.Contains(label, "list_library") || strings.Contains(label, "read_library_entry") || strings.Contains(label, "library-first") || strings.Contains(label, "add-library-entry") || strings.Contains(label, "update-library") {
					if strings.HasPrefix(label, "mcp ") {
						t.Errorf("%s is offered where the served version holds no library", label)
					}
				}
			}
			if strings.Contains(ins, "list_library") {
				t.Errorf("the instructions offer the library where none is held: %s", ins)
			}

			// A route with no tree completes across the trees, each value
			// prefixed by its tree.
			c := mcpSession(t, s.base, "")
			req := mcpgo.CompleteRequest{}
			req.Params.Ref = mcpgo.ResourceReference{Type: "ref/resource", URI: "tzctx://docs/{tree}/page/{+route}"}
			req.Params.Argument = mcpgo.CompleteArgument{Name: "route", Value: ""}
			res, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Completion.Values; !slices.Contains(got, "rockets/launch/checklist") || !slices.Contains(got, "engines/thrust") {
				t.Errorf("a route with no tree completes to %v, want the routes of both trees prefixed by their tree", got)
			}
			req.Params.Argument.Value = "thr"
			if res, err = c.Complete(context.Background(), req); err != nil || !slices.Equal(res.Completion.Values, []string{"engines/thrust"}) {
				t.Errorf("route %q with no tree completes to %v, %v; want [engines/thrust]", "thr", res, err)
			}
		})
	}
}

// TestAnsweredTextsNameTheCallersTrees: what is answered per caller (the
// instructions, tool schemas, resource templates, prompts and a refusal)
// names only the trees that caller may read: with the first configured
// tree gated, an anonymous caller is never told of it, its examples
// drawn from the tree it may read, and the holder is (issue 31).
func TestAnsweredTextsNameTheCallersTrees(t *testing.T) {
	t.Parallel()
	conf := `{"site": {"name": "Orbit"}, "trees": [
  {"name": "rockets", "title": "Rocket Guide", "access": "product_profile:rockets"},
  {"name": "engines", "title": "Engine Manual", "access": "anonymous"}
]}`
	cfg := configOf(t, conf)
	cfg.Credentials = []identity.Credential{{TokenSHA256: identity.SHA256("tok-rockets"), Account: "ada", Application: "agent", Profiles: []string{"rockets"}}}
	data := t.TempDir()
	testkit.IngestInto(t, data, "docs-1", true, servedTreesFixture(t)...)
	s := startServer(t, data, cfg)
	ctx := context.Background()
	answered := func(token string) string {
		t.Helper()
		_, _, ins := mcpInitialize(t, s.base, token)
		c := mcpSession(t, s.base, token)
		var b strings.Builder
		b.Write(ins)
		for _, list := range []func() (any, error){
			func() (any, error) { return c.ListTools(ctx, mcpgo.ListToolsRequest{}) },
			func() (any, error) { return c.ListPrompts(ctx, mcpgo.ListPromptsRequest{}) },
			func() (any, error) { return c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{}) },
		} {
			v, err := list()
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(v)
			b.Write(raw)
		}
		header := []string{}
		if token != "" {
			header = []string{"Authorization", "Bearer " + token}
		}
		_, raw, err := postRaw(s.base, "read_documentation", map[string]any{"tree": "nosuch"}, header...)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		return b.String()
	}
	anon, holder := answered(""), answered("tok-rockets")
	if strings.Contains(anon, "rockets") {
		i := strings.Index(anon, "rockets")
		t.Errorf("an anonymous caller is told of the gated tree: …%s…", anon[max(0, i-200):min(len(anon), i+100)])
	}
	if !strings.Contains(anon, "such as /engines/thrust/,") || !strings.Contains(anon, "- engines: Engine Manual (2 pages)") {
		t.Errorf("an anonymous caller's examples or instructions are not drawn from the tree it may read: %.3000s", anon)
	}
	if !strings.Contains(holder, "such as /rockets/launch/checklist/,") || !strings.Contains(holder, "- rockets: Rocket Guide (2 pages)") {
		t.Errorf("the holder is not told of the gated tree: %.3000s", holder)
	}
}

// TestInstructionsBoundConfigured: mcp_instructions_max_chars bounds the
// instructions a server sends: at its least, the served trees that fit
// are listed and the rest counted with how to list them.
func TestInstructionsBoundConfigured(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("A long description of the tree. ", 10)
	cfg := configOf(t, `{"mcp_instructions_max_chars": 800, "trees": [
  {"name": "rockets", "title": "Rocket Guide", "description": "`+strings.TrimSpace(long)+`", "access": "anonymous"},
  {"name": "engines", "title": "Engine Manual", "description": "`+strings.TrimSpace(long)+`", "access": "anonymous"}
]}`)
	data := t.TempDir()
	testkit.IngestInto(t, data, "docs-1", true, servedTreesFixture(t)...)
	s := startServer(t, data, cfg)
	_, _, raw := mcpInitialize(t, s.base, "")
	var res struct {
		Result struct{ Instructions string }
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("initialize: %v %s", err, raw)
	}
	ins := res.Result.Instructions
	if n := utf8.RuneCountInString(ins); n > 800 || !strings.Contains(ins, "- rockets: Rocket Guide") || !strings.Contains(ins, "- and 1 more tree: list_context lists every tree's index.") {
		t.Errorf("under a bound of 800 the instructions are %d code points:\n%s", n, ins)
	}
}
