package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

var (
	treeLineRE  = regexp.MustCompile(`(?m)^  tree (\S+)\s+(\d+) pages\s+(\d+) bytes\s+(\d+) headings  ([a-z]+) "(.*)"$`)
	totalLineRE = regexp.MustCompile(`(?m)^  total: (\d+) trees, (\d+) pages, (\d+) bytes, (\d+) headings, (\d+) navigation entr(?:y|ies) skipped, [0-9.]+ s$`)
)

// manifestPages counts the pages a tree folder's docs.json lists: the
// oracle for the counts the summary prints.
func manifestPages(t *testing.T, dir string) int {
	t.Helper()
	res, err := manifest.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Pages)
}

// summaryTrees parses the tree lines of an ingest summary: name → pages.
func summaryTrees(t *testing.T, out string) ([]string, map[string]int) {
	t.Helper()
	var names []string
	pages := map[string]int{}
	for _, m := range treeLineRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		names = append(names, m[1])
		pages[m[1]] = n
	}
	return names, pages
}

func TestIngestSiteFolder(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	r := mustCLI(t, data, "ingest", site, "--version", "site-1")

	if !strings.HasPrefix(r.stdout, "version site-1\n") {
		t.Errorf("stdout does not begin with \"version site-1\":\n%s", r.stdout)
	}
	names, pages := summaryTrees(t, r.stdout)
	if strings.Join(names, ",") != "cloud,blueprint,tzdocs" {
		t.Errorf("summary trees = %v, want cloud, blueprint, tzdocs in tree order:\n%s", names, r.stdout)
	}
	total := 0
	for _, tree := range []string{"cloud", "blueprint", "tzdocs"} {
		want := manifestPages(t, filepath.Join(site, tree))
		if pages[tree] != want {
			t.Errorf("tree %s: summary says %d pages, its docs.json lists %d", tree, pages[tree], want)
		}
		total += want
	}
	m := totalLineRE.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != "3" || m[2] != strconv.Itoa(total) {
		t.Errorf("total line wants 3 trees, %d pages:\n%s", total, r.stdout)
	}
	if strings.Contains(r.stdout, "activated") {
		t.Errorf("ingest without --activate activated:\n%s", r.stdout)
	}
	// Not a terminal: progress comes as plain lines on stderr, ending with
	// the last page.
	if !strings.Contains(r.stderr, fmt.Sprintf("ingest: %d/%d pages", total, total)) {
		t.Errorf("stderr lacks the final progress line %d/%d:\n%s", total, total, r.stderr)
	}

	// The version is stored, complete, and not active.
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := st.Lookup("site-1")
	if err != nil {
		t.Fatal(err)
	}
	if meta.Pages != total || len(meta.Trees) != 3 {
		t.Errorf("stored meta = %d pages, %d trees; want %d, 3", meta.Pages, len(meta.Trees), total)
	}
	if a := activeName(t, data); a != "" {
		t.Errorf("ACTIVE = %q after an ingest without --activate", a)
	}
	if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
		t.Errorf("staging holds %v after a finished ingest", left)
	}
}

func TestIngestTreeFlagActivate(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	r := mustCLI(t, data, "ingest", "--tree", "tzdocs="+filepath.Join(site, "cloud"), "--version", "one-tree", "--activate")

	if !strings.HasPrefix(r.stdout, "version one-tree\n") || !strings.HasSuffix(r.stdout, "activated one-tree\n") {
		t.Errorf("stdout wants \"version one-tree\" first and \"activated one-tree\" last:\n%s", r.stdout)
	}
	names, pages := summaryTrees(t, r.stdout)
	want := manifestPages(t, filepath.Join(site, "cloud"))
	if len(names) != 1 || names[0] != "tzdocs" || pages["tzdocs"] != want {
		t.Errorf("summary trees = %v %v, want tzdocs alone with %d pages:\n%s", names, pages, want, r.stdout)
	}
	if a := activeName(t, data); a != "one-tree" {
		t.Errorf("ACTIVE = %q, want one-tree", a)
	}

	// Two --tree flags make one version of two trees, in tree order
	// whatever the flag order.
	r = mustCLI(t, data, "ingest",
		"--tree", "tzdocs="+filepath.Join(site, "tzdocs"),
		"--tree", "cloud="+filepath.Join(site, "cloud"),
		"--version", "two-trees")
	if names, _ := summaryTrees(t, r.stdout); strings.Join(names, ",") != "cloud,tzdocs" {
		t.Errorf("summary trees = %v, want cloud, tzdocs:\n%s", names, r.stdout)
	}
	if a := activeName(t, data); a != "one-tree" {
		t.Errorf("ACTIVE = %q after an ingest without --activate, want one-tree still", a)
	}
}

func TestIngestDefaultVersionName(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	r := mustCLI(t, data, "ingest", site)
	m := regexp.MustCompile(`^version (\d{8}-[0-9a-f]{12})\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("default version name is not DATE-DIGEST12:\n%s", r.stdout)
	}
	if names := dirNames(t, filepath.Join(data, "versions")); len(names) != 1 || names[0] != m[1] {
		t.Errorf("versions folder holds %v, want [%s]", names, m[1])
	}
}

func TestIngestIdenticalContent(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	mustCLI(t, data, "ingest", site, "--version", "first")
	before := dirNames(t, filepath.Join(data, "versions"))

	want := "identical content is stored already as version first; nothing new was written\n"
	r := mustCLI(t, data, "ingest", site)
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("re-ingest stdout does not begin %q:\n%s", want, r.stdout)
	}
	// Naming the existing version again is the same content, too.
	r = mustCLI(t, data, "ingest", site, "--version", "first", "--activate")
	if !strings.HasPrefix(r.stdout, want) || !strings.HasSuffix(r.stdout, "activated first\n") {
		t.Errorf("re-ingest --version first --activate stdout:\n%s", r.stdout)
	}
	if a := activeName(t, data); a != "first" {
		t.Errorf("ACTIVE = %q, want first", a)
	}
	after := dirNames(t, filepath.Join(data, "versions"))
	if strings.Join(before, ",") != "first" || strings.Join(after, ",") != "first" {
		t.Errorf("versions folder before %v, after %v; want [first] both times", before, after)
	}
	if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
		t.Errorf("staging holds %v after identical re-ingests", left)
	}

	// Other content under a taken name is refused and writes nothing.
	res := runCLI(t, data, "ingest", "--tree", "cloud="+filepath.Join(site, "cloud"), "--version", "first")
	if res.err == nil || !strings.Contains(res.err.Error(), `"first" exists already`) {
		t.Errorf("other content under a taken name: err = %v", res.err)
	}
	if after := dirNames(t, filepath.Join(data, "versions")); strings.Join(after, ",") != "first" {
		t.Errorf("versions folder holds %v after a refused ingest", after)
	}
}

func TestIngestRefusals(t *testing.T) {
	site := testkit.SampleSite(t)
	cloud := filepath.Join(site, "cloud")
	cases := []struct {
		name string
		args []string
		want string // in the error
	}{
		{"tree without =", []string{"--tree", "cloud"}, `--tree "cloud": write --tree NAME=DIR`},
		{"tree without name", []string{"--tree", "=" + cloud}, "write --tree NAME=DIR"},
		{"tree without dir", []string{"--tree", "cloud="}, `--tree "cloud=": write --tree NAME=DIR`},
		{"good tree then bad", []string{"--tree", "cloud=" + cloud, "--tree", "tzdocs"}, `--tree "tzdocs"`},
		{"site and tree", []string{site, "--tree", "cloud=" + cloud}, "give either a SITE folder or --tree flags, not both"},
		{"nothing", nil, "nothing to ingest"},
		{"two sites", []string{site, site}, "accepts at most 1 arg"},
		{"unknown tree", []string{"--tree", "Manual=" + cloud}, `"Manual" is not a tree name`},
		{"tree twice", []string{"--tree", "cloud=" + cloud, "--tree", "cloud=" + cloud}, "tree cloud is given twice"},
		{"bad version name", []string{site, "--version", "../escape"}, "is not valid"},
		{"missing site", []string{filepath.Join(site, "absent")}, "cannot read the site folder"},
		{"folder not a site", []string{cloud}, "it is a tree folder, not a site folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			r := runCLI(t, data, append([]string{"ingest"}, c.args...)...)
			if r.err == nil {
				t.Fatalf("ingest %v succeeded:\n%s", c.args, r.stdout)
			}
			if !strings.Contains(r.err.Error(), c.want) {
				t.Errorf("ingest %v: error %q does not say %q", c.args, r.err, c.want)
			}
			if v := dirNames(t, filepath.Join(data, "versions")); len(v) != 0 {
				t.Errorf("a refused ingest left versions %v", v)
			}
			if a := activeName(t, data); a != "" {
				t.Errorf("a refused ingest left ACTIVE = %q", a)
			}
		})
	}
}

// TestIngestFaultNamesFile: a page the manifest lists but the folder lacks
// fails the ingest, naming the manifest and the page, and nothing becomes
// visible even with --activate.
func TestIngestFaultNamesFile(t *testing.T) {
	site := testkit.SampleSite(t)
	if err := os.Remove(filepath.Join(site, "cloud", "reference", "errors.mdx")); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+filepath.Join(site, "tzdocs"), "--version", "good", "--activate")

	r := runCLI(t, data, "ingest", site, "--version", "broken", "--activate")
	if r.err == nil {
		t.Fatalf("ingest of a site with a missing page succeeded:\n%s", r.stdout)
	}
	for _, want := range []string{filepath.Join(site, "cloud", "docs.json"), "/navigation", `"reference/errors"`} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error %q does not name %q", r.err, want)
		}
	}
	if strings.Contains(r.stdout, "activated") {
		t.Errorf("a failed ingest printed an activation:\n%s", r.stdout)
	}
	if v := dirNames(t, filepath.Join(data, "versions")); strings.Join(v, ",") != "good" {
		t.Errorf("versions folder holds %v, want [good]", v)
	}
	if a := activeName(t, data); a != "good" {
		t.Errorf("ACTIVE = %q after a failed ingest, want good", a)
	}
}
