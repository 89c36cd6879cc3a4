package server

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// listChangedRequest is a protocol 2026-07-28 subscriptions/listen
// request for the tool and resource lists' changes.
const listChangedRequest = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true,"resourcesListChanged":true}}}`

// TestServedTextsFollowActivation (issue 31): a server with no trees
// member on a loopback address serves every tree of the served version,
// and the texts it serves about itself follow an activation, with no
// restart. Over HTTP and MCP (the overview, every contract-set entry, the
// tools' descriptions and input schemas, the prompts, the instructions
// and the server's title), each version's texts name its trees and the
// name the site takes from them (its one tree's title, else Docs Server),
// never a tree the version does not hold or Turn Zero Cloud, and the name
// reads right after its article and in its possessive. An MCP client
// listening for the lists' changes is told the tools and resources
// changed.
func TestServedTextsFollowActivation(t *testing.T) {
	t.Parallel()
	srcs := servedTreesFixture(t) // rockets (Rocket Guide), engines (Engine Manual)
	data := t.TempDir()
	testkit.IngestInto(t, data, "one", true, srcs[0])
	testkit.IngestInto(t, data, "two", false, srcs[1])
	testkit.IngestInto(t, data, "three", false, srcs...)
	s := startServer(t, data, testConfig(50*time.Millisecond))

	notified := make(chan string, 64)
	stream := openStream(t, http.MethodPost, s.base, "", listChangedRequest)
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("subscriptions/listen: %d", stream.StatusCode)
	}
	go func() {
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			for _, m := range []string{"notifications/tools/list_changed", "notifications/resources/list_changed"} {
				if strings.Contains(sc.Text(), `"`+m+`"`) {
					notified <- m
				}
			}
		}
	}()

	steps := []struct {
		version, name string
		// overview is how the overview names the trees.
		overview, route string
		gone            []string
	}{
		{"one", "Rocket Guide", "`rockets` (Rocket Guide)", "/rockets/launch/checklist/", []string{"engines", "Engine Manual", "Docs Server"}},
		{"two", "Engine Manual", "`engines` (Engine Manual)", "/engines/thrust/", []string{"rockets", "Rocket Guide", "Docs Server"}},
		{"three", "Docs Server", "`engines` (Engine Manual) and `rockets` (Rocket Guide)", "/engines/thrust/", nil},
	}
	for i, step := range steps {
		if i > 0 {
			activate(t, data, step.version)
			if !waitFor(20*time.Second, func() bool { _, v, _ := health(s.base); return v == step.version }) {
				t.Fatalf("the server did not pick up the activation of %s", step.version)
			}
			want := map[string]bool{"notifications/tools/list_changed": true, "notifications/resources/list_changed": true}
			timeout := time.After(20 * time.Second)
			for len(want) > 0 {
				select {
				case m := <-notified:
					delete(want, m)
				case <-timeout:
					t.Fatalf("after the activation of %s, the listening client was not sent %v within 20 s", step.version, want)
				}
			}
		}
		texts := servedTexts(t, s.base)
		// The article and possessive the name takes.
		wrong := regexp.MustCompile(`\ba (Engine)|\ban (Rocket|Docs)|(Rocket Guide|Engine Manual|Docs Server)'[^s]`)
		for label, text := range texts {
			if contractDocument(label) {
				continue
			}
			for _, g := range append(step.gone, "Turn Zero", "`cloud`", "/cloud/") {
				if i := strings.Index(text, g); i >= 0 {
					t.Errorf("%s: %s names %q: …%s…", step.version, label, g, text[max(0, i-100):min(len(text), i+100)])
				}
			}
			if m := wrong.FindStringIndex(text); m != nil {
				t.Errorf("%s: %s misreads the site name: …%s…", step.version, label, text[max(0, m[0]-60):min(len(text), m[1]+60)])
			}
		}
		if ov := texts["read_context overview"]; !strings.Contains(ov, "**Tree.** A documentation set: "+step.overview) || !strings.HasPrefix(ov, "# "+step.name+" served context: overview") {
			t.Errorf("%s: the overview over HTTP does not name the trees served (%s) under %q: %.1500s", step.version, step.overview, step.name, ov)
		}
		if ov := texts["mcp resources/read tzctx://context/overview"]; !strings.Contains(ov, step.overview) {
			t.Errorf("%s: the overview over MCP does not name the trees served: %.1500s", step.version, ov)
		}
		if tool := texts["mcp tools/list read_documentation"]; !strings.Contains(tool, "Read a documentation tree of "+step.name) || !strings.Contains(tool, "such as "+step.route+",") {
			t.Errorf("%s: read_documentation's tool does not name %q or give %s as its example: %.1500s", step.version, step.name, step.route, tool)
		}
		if ins := texts["mcp initialize instructions"]; !strings.HasPrefix(ins, step.name+" serves this documentation:\n") {
			t.Errorf("%s: the instructions start %.200q", step.version, ins)
		}
		if info := texts["mcp initialize serverInfo"]; !strings.Contains(info, `"title":"`+step.name+` served context"`) {
			t.Errorf("%s: the server's title: %s", step.version, info)
		}
		if p := texts["mcp prompts/list discover-context"]; !strings.Contains(p, step.name) {
			t.Errorf("%s: the discover-context prompt does not name %q: %s", step.version, step.name, p)
		}
	}
}

// TestUnconfiguredSiteNamedByItsTree (issue 31): a server with no
// configuration serving one's own docs (the Redux corpus) names no Turn
// Zero Cloud in any text it serves about itself: it takes the tree's
// title, Redux, which reads right at a sentence's start, after its
// article and in its possessive. It skips, saying why, where the corpora
// are absent.
func TestUnconfiguredSiteNamedByItsTree(t *testing.T) {
	corpus := filepath.Join(testkit.Corpora(t), "redux-docs")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus redux-docs is absent from the corpora folder: %v", err)
	}
	// A copy whose FAQ holds a rule code, so a rule-code search has a
	// preface (the reader's own sentence, which names the site) to serve.
	dir := filepath.Join(t.TempDir(), "redux-docs")
	testkit.CopyTree(t, corpus, dir)
	faq := filepath.Join(dir, "docs", "FAQ.md")
	b, err := os.ReadFile(faq)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(faq, append(b, "\nRule CTX-08 applies.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	testkit.IngestInto(t, data, "redux-1", true, ingest.TreeSource{Name: "redux", Dir: dir})
	s := startServer(t, data, testConfig(time.Hour))
	texts := servedTexts(t, s.base)
	wrong := regexp.MustCompile(`\b[Aa]n Redux\b|Redux'[^s]|Redux's's`)
	named := 0
	for label, text := range texts {
		named += strings.Count(text, "Redux")
		if contractDocument(label) {
			continue
		}
		if i := strings.Index(text, "Turn Zero"); i >= 0 {
			t.Errorf("%s names Turn Zero: …%s…", label, text[max(0, i-100):min(len(text), i+100)])
		}
		if m := wrong.FindStringIndex(text); m != nil {
			t.Errorf("%s misreads the site name: …%s…", label, text[max(0, m[0]-60):min(len(text), m[1]+60)])
		}
	}
	for label, want := range map[string]string{
		"read_context overview":               "# Redux served context: overview\n\nRedux serves its documentation,",
		"mcp initialize instructions":         "Redux serves this documentation:\n- redux: Redux (",
		"read_context skill:discover-context": "---\nname: discover-context\ndescription: \"List the Redux context catalog",
		"read_documentation CTX-08 preface":   "CTX-08 is a rule code: the identifier of one numbered requirement in a Redux contract.",
	} {
		if !strings.HasPrefix(texts[label], want) {
			t.Errorf("%s starts %.200q, want %q", label, texts[label], want)
		}
	}
	if info := texts["mcp initialize serverInfo"]; !strings.Contains(info, `"title":"Redux served context"`) {
		t.Errorf("the server's title: %s", info)
	}
	if named < 100 {
		t.Errorf("the served texts name Redux %d times; the site's name is in far more sentences", named)
	}
}
