package main

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"os"
	"path/filepath"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// TestServedLinksResolve ingests the five corpora of other generators and
// follows every link of every served page that ingest rewrote to a served
// route: each is passed as page (its #anchor cut off, A-08) through the
// HTTP read, and its anchor looked for among the outline's anchors of that
// page. It counts the links that do not resolve, the anchors the outline
// does not list (a heading the outline leaves out: level 1, inside a block
// quote, an id attribute; or a fragment that names no heading, kept as
// written) and the internal links left as written, and holds each to the
// count measured on the corpora as they are.
func TestServedLinksResolve(t *testing.T) {
	corpora := testkit.Corpora(t)
	for _, c := range []struct {
		name, dir string
		// rewritten, unresolved, offOutline and left are the counts
		// measured on the corpora as they are.
		rewritten, unresolved, offOutline, left int
	}{
		// FastAPI: one link is an HTML <a href="#in-a-hurry">.
		{"fastapi-docs", "fastapi-docs/docs/en", 140, 0, 0, 0},
		// Redux: 25 fragments name no heading (renamed or removed
		// upstream; tzctx check reports 24 of them, the 25th names the
		// page's level-1 heading); 2 links stand in headings.
		{"redux-docs", "redux-docs", 569, 0, 25, 2},
		// Vite: 18 fragments name headings the pages no longer have; 2
		// name level-1 headings.
		{"vite-docs", "vite-docs", 413, 0, 20, 0},
		// Starlight: 15 links are tags' attributes (<LinkCard href>,
		// <LinkButton href>, <a href> in <code>), outside code.
		{"starlight-docs", "starlight-docs", 282, 0, 0, 0},
		// The Rust book: 5 fragments name a heading inside a block quote,
		// which the outline does not list (3), or a heading renamed
		// upstream (2); an old heading's <a id> names the heading after
		// it. 31 links leave the book for std, the reference and the
		// other books of the same host.
		{"rust-book", "rust-book", 179, 0, 5, 31},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(corpora, c.dir)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s is absent from %s: the test needs it", c.name, corpora)
			}
			data := t.TempDir()
			mustCLI(t, data, "ingest", "--tree", "tzdocs="+dir, "--version", "v", "--activate")
			srv := startServer(t, data, testConfig(0))
			outline, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "part": "outline"})
			anchors := map[string]map[string]bool{}
			var routes []string
			for _, m := range regexp.MustCompile(`(?m)^(\s*)- \[.*\]\((/tzdocs/[^)#]*)(?:#([^)]*))?\)$`).FindAllStringSubmatch(outline, -1) {
				if anchors[m[2]] == nil {
					anchors[m[2]] = map[string]bool{}
					routes = append(routes, m[2])
				}
				if m[3] != "" {
					anchors[m[2]][m[3]] = true
				}
			}
			read := map[string]bool{}
			follows := func(route string) bool {
				ok, seen := read[route]
				if !seen {
					code, a, _, err := post(srv.base, "read_documentation", map[string]any{"tree": "tzdocs", "page": route})
					ok = err == nil && code == http.StatusOK && a.Error == nil
					read[route] = ok
				}
				return ok
			}
			rewritten, unresolved, offOutline := 0, 0, 0
			left := map[string]int{}
			for _, route := range routes {
				text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": route})
				for _, l := range ingest.PageLinks(text, textmap.Scan(text)) {
					target, frag, _ := strings.Cut(l.Target, "#")
					if !strings.HasPrefix(target, "/tzdocs/") {
						if target != "" && !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:|^//|^\{`).MatchString(target) && !isFile(target) {
							left[route+" -> "+l.Target]++
						}
						continue
					}
					rewritten++
					if !follows(target) {
						unresolved++
						t.Logf("%s links %s, which read_documentation does not resolve", route, l.Target)
						continue
					}
					if frag != "" && !anchors[target][frag] {
						offOutline++
						t.Logf("%s links %s: the outline lists no #%s on that page", route, l.Target, frag)
					}
				}
			}
			var lefts []string
			for k := range left {
				lefts = append(lefts, k)
			}
			sort.Strings(lefts)
			for _, k := range lefts {
				t.Logf("left as written: %s", k)
			}
			t.Logf("%s: %d links rewritten, %d do not resolve, %d anchors off the outline, %d internal links left as written", c.name, rewritten, unresolved, offOutline, len(lefts))
			if rewritten != c.rewritten {
				t.Errorf("%d links rewritten, measured %d", rewritten, c.rewritten)
			}
			if unresolved != c.unresolved {
				t.Errorf("%d rewritten links do not resolve as page, measured %d", unresolved, c.unresolved)
			}
			if offOutline != c.offOutline {
				t.Errorf("%d anchors are not the outline's, measured %d", offOutline, c.offOutline)
			}
			if len(lefts) != c.left {
				t.Errorf("%d internal links left as written, measured %d", len(lefts), c.left)
			}
		})
	}
}

// isFile reports whether a link target names a file that is no page (an
// image, a download): its last segment has an extension other than .md,
// .mdx or .html.
func isFile(target string) bool {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(target, "/")))
	return ext != "" && ext != ".md" && ext != ".mdx" && ext != ".html"
}

// TestServedLinksRewritten: a VitePress tree's served page links another
// page by its served route and the outline's anchor of the heading the
// link names (VitePress slugs "build.target" to "build-target", the
// outline anchors it "buildtarget"); the route reads as page, the anchor
// is the outline's; a link to nothing and an external link stay as
// written.
func TestServedLinksRewritten(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"docs/.vitepress/config.ts":    "export default { themeConfig: { sidebar: [ { text: 'Guide', items: [ { text: 'Features', link: '/guide/features' }, { text: 'Build', link: '/config/build-options' } ] } ] } }\n",
		"docs/guide/features.md":       "# Features\nSee [target](/config/build-options.md#build-target), [gone](./gone.md) and [site](https://vite.dev/).\n",
		"docs/config/build-options.md": "# Build\n## build.target\n",
	})
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+filepath.Join(site, "docs"), "--version", "v", "--activate")
	srv := startServer(t, data, testConfig(0))
	text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": "guide/features"})
	want := "See [target](/tzdocs/config/build-options/#buildtarget), [gone](./gone.md) and [site](https://vite.dev/)."
	if !strings.Contains(text, want) {
		t.Fatalf("served page:\n%s\nwant it to hold %q", text, want)
	}
	mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/config/build-options/"})
	outline, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "part": "outline"})
	if !strings.Contains(outline, "(/tzdocs/config/build-options/#buildtarget)") {
		t.Errorf("the outline does not list #buildtarget:\n%s", outline)
	}
}
