package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// TestCorpora ingests each real corpus as one tree and checks the page
// counts the corpora README states, first and last routes and titles.
func TestCorpora(t *testing.T) {
	cases := []struct {
		corpus                string
		pages                 int
		firstRoute, lastRoute string
		firstTitle, lastTitle string
	}{
		{"browser-use-docs", 53, "/tzdocs/introduction/", "/tzdocs/cloud/", "Introduction", "Cloud Documentation"},
		{"mcp-docs", 342, "/tzdocs/docs/2026-07-28/getting-started/intro/", "/tzdocs/community/interest-groups/tool-annotations/", "What is the Model Context Protocol (MCP)?", "Tool Annotations Charter"},
		{"mintlify-docs", 984, "/tzdocs/", "/tzdocs/zh/api/static-export/overview/", "Introduction", "静态导出"},
		{"powershell-docs", 3077, "/tzdocs/7.6/CimCmdlets/CimCmdlets/", "/tzdocs/module/", "CimCmdlets Module", "PowerShell Module Browser"},
	}
	for _, c := range cases {
		t.Run(c.corpus, func(t *testing.T) {
			dir := testkit.Corpus(t, c.corpus)
			st := testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: dir})
			v, err := st.Acquire()
			if err != nil {
				t.Fatal(err)
			}
			defer v.Release()
			tr := v.Tree("tzdocs")
			if len(tr.Pages) != c.pages {
				t.Fatalf("pages = %d, want %d", len(tr.Pages), c.pages)
			}
			first, last := tr.Pages[0], tr.Pages[len(tr.Pages)-1]
			if first.Route != c.firstRoute || last.Route != c.lastRoute {
				t.Errorf("first, last routes = %s, %s; want %s, %s", first.Route, last.Route, c.firstRoute, c.lastRoute)
			}
			if first.Title != c.firstTitle || last.Title != c.lastTitle {
				t.Errorf("first, last titles = %q, %q; want %q, %q", first.Title, last.Title, c.firstTitle, c.lastTitle)
			}
			// Every page's title is either its front matter title or the
			// one derived from its path, never empty; every copy is stored.
			for _, p := range tr.Pages {
				if p.Title == "" {
					t.Fatalf("page %s has no title", p.Route)
				}
				txt, err := tr.Text(p.Route)
				if err != nil || txt == nil {
					t.Fatalf("page %s: no stored copy (%v)", p.Route, err)
				}
			}
			if m := v.Meta(); m.Pages != c.pages || len(m.Trees) != 1 {
				t.Errorf("meta = %+v", m)
			}
		})
	}
}

// TestCorpusTitles pins titles from front matter and from paths.
func TestCorpusTitles(t *testing.T) {
	t.Parallel()
	dir := testkit.Corpus(t, "mintlify-docs")
	st := testkit.Ingest(t, ingest.TreeSource{Name: "cloud", Dir: dir})
	v, _ := st.Acquire()
	defer v.Release()
	tr := v.Tree("cloud")
	want := map[string]string{}
	for _, p := range tr.Pages[:5] {
		raw, err := os.ReadFile(filepath.Join(dir, p.Path+".mdx"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			if v, ok := strings.CutPrefix(line, "title: "); ok {
				want[p.Route] = strings.Trim(v, `"'`)
				break
			}
		}
		if want[p.Route] == "" {
			t.Fatalf("%s has no title line", p.Path)
		}
		if p.Title != want[p.Route] {
			t.Errorf("%s: title %q, want %q", p.Route, p.Title, want[p.Route])
		}
	}
}

func TestCopyAndTitles(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"cloud/docs.json":          `{"name":"Cloud","navigation":{"pages":["index","getting-started","x/index","plain_page","crlf"]}}`,
		"cloud/index.mdx":          "\ufeff---\r\ntitle: Home page\r\ndescription: The home\r\n---\r\n# Home\r\n",
		"cloud/getting-started.md": "# Getting\n\n## One\n\n```\n## not a heading\n```\n\n### Two\n",
		"cloud/x/index.mdx":        "---\ntitle: 'Quoted: yes'\n...\nbody",
		"cloud/plain_page.mdx":     "---\nno closing line\n",
		"cloud/crlf.mdx":           "---\ntitle: [broken\n---\nline\r\n",
	})
	st := testkit.Ingest(t, ingest.TreeSource{Name: "cloud", Dir: filepath.Join(site, "cloud")})
	v, _ := st.Acquire()
	defer v.Release()
	tr := v.Tree("cloud")
	got := map[string][2]string{}
	for _, p := range tr.Pages {
		txt, _ := tr.Text(p.Route)
		got[p.Route] = [2]string{p.Title, txt.Slice(0, txt.Total())}
	}
	want := map[string][2]string{
		"/cloud/":                 {"Home page", "# Home\r\n"},
		"/cloud/getting-started/": {"Getting started", "# Getting\n\n## One\n\n```\n## not a heading\n```\n\n### Two\n"},
		"/cloud/x/":               {"Quoted: yes", "body"},
		"/cloud/plain_page/":      {"Plain page", "---\nno closing line\n"},
		"/cloud/crlf/":            {"[broken", "line\r\n"}, // not YAML: the line is read as written
	}
	for route, w := range want {
		if got[route] != w {
			t.Errorf("%s: got %q, want %q", route, got[route], w)
		}
	}
	hs, _ := tr.Headings("/cloud/getting-started/")
	if len(hs) != 2 || hs[0].Text != "One" || hs[1].Text != "Two" || hs[1].Depth != 3 {
		t.Errorf("headings = %+v", hs)
	}
	idx, _ := tr.Text("index")
	wantIndex := "# Cloud\n\n- [Home page](/cloud/): The home\n- [Getting started](/cloud/getting-started/)\n- [Quoted: yes](/cloud/x/)\n- [Plain page](/cloud/plain_page/)\n- [[broken](/cloud/crlf/)\n"
	if s := idx.Slice(0, idx.Total()); s != wantIndex {
		t.Errorf("index = %q, want %q", s, wantIndex)
	}
	full, _ := tr.Text("full")
	wantFull := "# Home\r\n\n# Getting\n\n## One\n\n```\n## not a heading\n```\n\n### Two\n\nbody\n\n---\nno closing line\n\nline\r\n"
	if s := full.Slice(0, full.Total()); s != wantFull {
		t.Errorf("full = %q, want %q", s, wantFull)
	}
	out, _ := tr.Text("outline")
	wantOutline := "- [Home page](/cloud/): The home\n- [Getting started](/cloud/getting-started/)\n  - [One](/cloud/getting-started/#one)\n  - [Two](/cloud/getting-started/#two)\n- [Quoted: yes](/cloud/x/)\n- [Plain page](/cloud/plain_page/)\n- [[broken](/cloud/crlf/)\n"
	if s := out.Slice(0, out.Total()); s != wantOutline {
		t.Errorf("outline = %q, want %q", s, wantOutline)
	}
}

// TestLLMSTexts serves llms.txt and llms-full.txt as they are, and builds
// the outline from the index lines that link listed pages.
func TestLLMSTexts(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"tzdocs/docs.json":     `{"navigation":{"groups":[{"group":"g","pages":["a","b"]}]}}`,
		"tzdocs/a.mdx":         "# A\n\n## Part one\n",
		"tzdocs/b.mdx":         "# B\n",
		"tzdocs/llms.txt":      "# Site\n\n> about\n\n- [Bee](https://example.com/b.md): second\n- [Ay](https://example.com/a.md)\n",
		"tzdocs/llms-full.txt": "whole text as given",
	})
	st := testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: filepath.Join(site, "tzdocs")})
	v, _ := st.Acquire()
	defer v.Release()
	tr := v.Tree("tzdocs")
	read := func(k string) string { x, _ := tr.Text(k); return x.Slice(0, x.Total()) }
	if got := read("index"); got != "# Site\n\n> about\n\n- [Bee](https://example.com/b.md): second\n- [Ay](https://example.com/a.md)\n" {
		t.Errorf("index = %q", got)
	}
	if got := read("full"); got != "whole text as given" {
		t.Errorf("full = %q", got)
	}
	if got, want := read("outline"), "- [Ay](https://example.com/a.md)\n  - [Part one](/tzdocs/a/#part-one)\n- [Bee](https://example.com/b.md): second\n"; got != want {
		t.Errorf("outline = %q, want %q", got, want)
	}
}

// TestBadSites feeds each kind of bad site folder and checks the error
// names the file and the fault, and that nothing changed.
func TestBadSites(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"cloud/docs.json": `{"navigation":{"pages":["index","a"]}}`,
		"cloud/index.mdx": "# Home\n",
		"cloud/a.mdx":     "# A\n",
	}
	cases := []struct {
		name    string
		files   map[string]string
		site    bool // ingest the site folder rather than --tree cloud
		maxSize int64
		want    []string
	}{
		{name: "invalid json", files: map[string]string{"cloud/docs.json": "{\"navigation\": {\"pages\": [\"index\",]}}"},
			want: []string{"docs.json", "line 1", "invalid JSON"}},
		{name: "listed page without file", files: map[string]string{"cloud/docs.json": `{"navigation":{"pages":["index","missing/page"]}}`},
			want: []string{"docs.json", "/navigation/pages/1", `"missing/page"`, "no file", "add the page file"}},
		{name: "invalid utf-8", files: map[string]string{"cloud/a.mdx": "# A\nok\nbad \xff byte\n"},
			want: []string{"a.mdx", "not valid UTF-8", "line 3", "save the page as UTF-8"}},
		{name: "unknown tree folder", site: true, files: map[string]string{"Docs/docs.json": `{}`},
			want: []string{"Docs", `folder "Docs" is not a tree name`, "cloud, blueprint or tzdocs"}},
		{name: "ref escapes", files: map[string]string{"cloud/docs.json": `{"navigation":{"$ref":"../outside.json"}}`},
			want: []string{"docs.json", "/navigation", "leaves the site folder"}},
		{name: "ref loops", files: map[string]string{
			"cloud/docs.json": `{"navigation":{"$ref":"nav.json"}}`,
			"cloud/nav.json":  `{"pages":["index"],"groups":[{"$ref":"docs.json"}]}`},
			want: []string{"nav.json", "/groups/0", "cycle"}},
		{name: "page over size bound", maxSize: 10, files: map[string]string{"cloud/a.mdx": "# A page longer than ten bytes\n"},
			want: []string{"a.mdx", "over the bound of 10 bytes", "--max-page-bytes"}},
		{name: "walker accepts, schema refuses", files: map[string]string{"cloud/docs.json": `{"name":["Cloud"],"navigation":{"pages":["index","a"]}}`},
			want: []string{"docs.json", "at /name", "expects a value of type string, not an array", "see the manifest_schema entry of the catalog"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			// A good version first, active, so we can show nothing changed.
			goodSite := t.TempDir()
			testkit.WriteFiles(t, goodSite, good)
			sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: []ingest.TreeSource{{Name: "cloud", Dir: filepath.Join(goodSite, "cloud")}}, Version: "good"})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Activate(context.Background(), sum.Version); err != nil {
				t.Fatal(err)
			}
			site := t.TempDir()
			testkit.WriteFiles(t, site, good)
			testkit.WriteFiles(t, site, c.files)
			opts := ingest.Options{MaxPageBytes: c.maxSize}
			if c.site {
				opts.Trees, err = ingest.SiteTrees(site)
			} else {
				opts.Trees = []ingest.TreeSource{{Name: "cloud", Dir: filepath.Join(site, "cloud")}}
			}
			var checkErr error
			if err == nil {
				_, checkErr = ingest.Check(context.Background(), opts)
				_, err = ingest.Run(context.Background(), st, opts)
				// Check runs every check Run runs, and fails alike.
				if checkErr == nil || checkErr.Error() != err.Error() {
					t.Errorf("Check gave %v, Run %v", checkErr, err)
				}
			}
			if err == nil {
				t.Fatal("ingest succeeded; want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			var ie *ingest.Error
			var me *manifest.Error
			if !errors.As(err, &ie) && !errors.As(err, &me) {
				t.Errorf("error %T is not a site-folder error", err)
			}
			ms, _ := st.List()
			active, _ := st.ActiveName()
			if len(ms) != 1 || ms[0].Name != "good" || active != "good" {
				t.Errorf("after a failed ingest: versions %v, active %q", ms, active)
			}
			if ents, _ := os.ReadDir(filepath.Join(st.Dir(), "staging")); len(ents) != 0 {
				t.Errorf("staging holds %d entries after a failed ingest", len(ents))
			}
		})
	}
}

func TestIdenticalContentIsDetected(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := store.Open(t.TempDir())
	a, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Existing || b.Version != a.Version || a.Existing {
		t.Errorf("second ingest = %+v, want the existing version %s", b, a.Version)
	}
	if ms, _ := st.List(); len(ms) != 1 {
		t.Errorf("%d versions stored, want 1", len(ms))
	}
	if !strings.HasPrefix(a.Version, a.Version[:8]+"-") || len(a.Version) != 8+1+12 {
		t.Errorf("default name %q is not date-digest", a.Version)
	}
}

// TestWholeTextAfterAnOpenFence: where a page ends inside a fence, the
// blank line after it and the next page are fenced code in the composed
// whole text, so ingest scans the whole text instead of composing its
// places from the pages'; its places and bytes are then those of the
// text itself, and a page read keeps its own.
func TestWholeTextAfterAnOpenFence(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"docs.json": `{"navigation":{"pages":["a","b","c"]}}`,
		"a.mdx":     "# A\n\n```sh\necho open\n",
		"b.mdx":     "# B\n\ntext\n\n## Two\n",
		"c.mdx":     "# C\nno line end",
	})
	st := testkit.Ingest(t, ingest.TreeSource{Name: "cloud", Dir: site})
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	tr := v.Tree("cloud")
	full, err := tr.Text("full")
	if err != nil || full == nil {
		t.Fatalf("full text: %v, %v", full, err)
	}
	want := "# A\n\n```sh\necho open\n\n# B\n\ntext\n\n## Two\n\n# C\nno line end\n"
	if string(full.Bytes()) != want {
		t.Fatalf("full text = %q, want %q", full.Bytes(), want)
	}
	m := textmap.Scan(want)
	var bases []uint32
	for p := 0; p < m.Len; p = full.NextBaseAfter(p) {
		bases = append(bases, uint32(p))
	}
	if !slices.Equal(bases, m.Bases) {
		t.Errorf("whole text places %v, want the scan's %v", bases, m.Bases)
	}
	b, err := tr.Text(tr.Pages[1].Route)
	if err != nil || b.NextBaseAfter(0) != 4 {
		t.Errorf("page b's places are not its own: next place after 0 is %d (%v)", b.NextBaseAfter(0), err)
	}
}

// TestIndexWorkers: an ingest with any number of index workers in bounds
// stores the same content, found by the same digest, and one over the
// bound is refused naming its flag, leaving nothing.
func TestIndexWorkers(t *testing.T) {
	t.Parallel()
	site := testkit.SampleSite(t)
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := store.Open(t.TempDir())
	if _, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees, IndexWorkers: store.MaxIndexWorkers + 1}); err == nil || !strings.Contains(err.Error(), "--index-workers") {
		t.Fatalf("ingest with %d index workers: %v, want a refusal naming --index-workers", store.MaxIndexWorkers+1, err)
	}
	if ms, _ := st.List(); len(ms) != 0 {
		t.Fatalf("a refused ingest stored %d versions", len(ms))
	}
	one, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees, IndexWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	five, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees, IndexWorkers: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !five.Existing || five.Version != one.Version {
		t.Errorf("ingest with 5 index workers = %+v, want the version of 1 worker, %s", five, one.Version)
	}
}
