package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// heldVersions serves one opened version to a query.Reader, whatever is
// active, for comparing two versions' answers in one process.
type heldVersions struct{ v query.Version }

func (h heldVersions) Acquire() (query.Version, error) { return heldVersion{h.v}, nil }

// heldVersion is a version whose reference the test holds: a reader's
// release of it does nothing.
type heldVersion struct{ query.Version }

func (heldVersion) Release() {}

// answerSet is what a version answers, by what was asked: every page's
// stored text stamp and its read, every tree part's stamp, and the
// searches asked.
type answerSet map[string]string

// versionAnswers opens version name of the data directory and collects
// its answers for trees (all of the version's where nil): each page's
// stamp and read (read_documentation page), each tree's index, whole text
// and outline stamps, and, for each query, the contract search
// (read_documentation query) in each tree and, where docSearch, the
// search_documentation answer in each tree and over every tree, less the
// version's name and time.
func versionAnswers(t *testing.T, data, name string, trees, queries []string, docSearch bool) answerSet {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenExisting(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.OpenVersion(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	limits, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := query.NewReader(query.Config{Limits: limits.Limits(), Trees: []query.TreeConfig{}, ServeAll: true}, heldVersions{query.StoreVersion(v)})
	if trees == nil {
		trees = v.TreeNames()
	}
	out := answerSet{}
	put := func(key string, a any, err error) {
		if err != nil {
			out[key] = "error: " + err.Error()
			return
		}
		b, jerr := json.Marshal(a)
		if jerr != nil {
			t.Fatal(jerr)
		}
		out[key] = string(b)
	}
	for _, tn := range trees {
		bt := v.Tree(tn)
		if bt == nil {
			out["tree "+tn] = "absent"
			continue
		}
		for _, key := range []string{"index", "full", "outline"} {
			x, err := bt.Text(key)
			if err != nil || x == nil {
				t.Fatalf("version %s: text %s of tree %s: %v", name, key, tn, err)
			}
			out["stamp "+tn+" "+key] = x.Stamp()
		}
		for _, p := range bt.Pages {
			x, err := bt.Text(p.Route)
			if err != nil || x == nil {
				t.Fatalf("version %s: page %s: %v", name, p.Route, err)
			}
			hs, _ := bt.Headings(p.Route)
			out["stamp "+p.Route] = fmt.Sprintf("%s %q %q %v", x.Stamp(), p.Title, p.Description, hs)
			route := p.Route
			a, _, err := r.ReadDocumentation(ctx, query.DocRequest{Page: &route})
			put("read "+route, a, err)
		}
		for _, q := range queries {
			a, _, err := r.ReadDocumentation(ctx, query.DocRequest{Tree: &tn, Query: &q})
			put("search "+tn+" "+q, a, err)
			if docSearch {
				s, _, err := r.SearchDocumentation(ctx, query.SearchRequest{Tree: &tn, Query: &q})
				put("search_documentation "+tn+" "+q, unversioned(s), err)
			}
		}
	}
	if docSearch {
		for _, q := range queries {
			s, _, err := r.SearchDocumentation(ctx, query.SearchRequest{Query: &q})
			put("search_documentation * "+q, unversioned(s), err)
		}
	}
	return out
}

// unversioned returns a search_documentation answer less the version's
// name and time, which differ between two versions of one content.
func unversioned(s *query.SearchAnswer) *query.SearchAnswer {
	if s == nil {
		return nil
	}
	c := *s
	c.Version, c.Created = "", ""
	return &c
}

// sameAnswers fails the test for every answer of want that got lacks or
// answers otherwise, naming at most a few, and where got holds answers
// want lacks.
func sameAnswers(t *testing.T, what string, got, want answerSet) {
	t.Helper()
	bad := 0
	for k, w := range want {
		g, ok := got[k]
		if ok && g == w {
			continue
		}
		bad++
		if bad <= 5 {
			t.Errorf("%s: %s differs:\n got %.300s\nwant %.300s", what, k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			bad++
			if bad <= 5 {
				t.Errorf("%s: %s is answered, and not by the version compared with", what, k)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d answers differ in all", what, bad)
	}
	if len(want) == 0 {
		t.Errorf("%s: nothing was compared", what)
	}
}

// fiveTrees writes five small trees under dir, alpha to echo, and
// returns them as --tree flags' NAME=DIR values, in that order.
func fiveTrees(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for i, name := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
		pages := map[string]string{
			"index.md": fmt.Sprintf("# %s home\n\nThe %s tree holds the shared word lantern and its own word %s.\n\n## Setup\n\nInstall %s with the lantern.\n", name, name, name, name),
			"guide.md": fmt.Sprintf("# %s guide\n\nA guide of %d steps about the lantern.\n\n## Step one\n\nOpen the lantern.\n\n## Step two\n\nClose it.\n", name, i+2),
			"faq.md":   fmt.Sprintf("# %s questions\n\nWhy a lantern? Because %s.\n", name, strings.Repeat("light ", i+1)),
		}
		out = append(out, name+"="+writeTree(t, dir, name, pages))
	}
	return out
}

// treeArgs returns --tree flags for the NAME=DIR values given.
func treeArgs(trees ...string) []string {
	var out []string
	for _, tr := range trees {
		out = append(out, "--tree", tr)
	}
	return out
}

// TestIngestBaseReplacesOneTree builds a five-tree version, replaces one
// tree with --base active after the other four folders are gone, and
// shows the other four trees' pages, stamps and contract search answers
// unchanged, and the replaced tree's read anew.
func TestIngestBaseReplacesOneTree(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	trees := fiveTrees(t, filepath.Join(src, "one"))
	mustCLI(t, data, append([]string{"ingest", "--version", "five", "--activate"}, treeArgs(trees...)...)...)
	kept := []string{"alpha", "bravo", "delta", "echo"}
	queries := []string{"lantern", "guide", "step one", "alpha", "light", "echo questions", "home setup"}
	before := versionAnswers(t, data, "five", kept, queries, false)
	for _, k := range []string{"search alpha lantern", "read /alpha/guide/"} {
		if a := before[k]; strings.HasPrefix(a, "error") || !strings.Contains(a, "lantern") {
			t.Fatalf("five answers %s with %.300s", k, a)
		}
	}

	// The four other folders are removed: the built-on ingest cannot
	// have read them.
	for _, tr := range trees {
		if name, dir, _ := strings.Cut(tr, "="); name != "charlie" {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
	}
	charlie := writeTree(t, filepath.Join(src, "two"), "charlie", map[string]string{
		"index.md": "# charlie home\n\nThe charlie tree, rewritten, with a lantern.\n",
		"new.md":   "# charlie news\n\nA new page.\n",
	})
	r := mustCLI(t, data, "ingest", "--tree", "charlie="+charlie, "--base", "active", "--version", "six")
	for _, want := range []string{"version six", "tree alpha", "tree echo", "carried from five"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ingest --base printed no %q:\n%s", want, r.stdout)
		}
	}
	after := versionAnswers(t, data, "six", kept, queries, false)
	sameAnswers(t, "the four trees carried from five", after, before)

	got := versionAnswers(t, data, "six", []string{"charlie"}, nil, false)
	if _, ok := got["stamp /charlie/new/"]; !ok {
		t.Errorf("six has no /charlie/new/ page: %v", got)
	}
	if _, ok := got["stamp /charlie/guide/"]; ok {
		t.Errorf("six still holds /charlie/guide/, which the tree read anew lacks")
	}
	// The base is as it was, and still served.
	sameAnswers(t, "five after the built-on ingest", versionAnswers(t, data, "five", kept, queries, false), before)
	if a := activeName(t, data); a != "five" {
		t.Errorf("active is %s after an ingest without --activate, want five", a)
	}
}

// TestIngestBaseDropTree leaves one of the base's trees out of the new
// version, reading no folder at all.
func TestIngestBaseDropTree(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	trees := fiveTrees(t, src)
	mustCLI(t, data, append([]string{"ingest", "--version", "five"}, treeArgs(trees...)...)...)
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, data, "ingest", "--base", "five", "--drop-tree", "bravo", "--drop-tree", "delta", "--version", "three")
	got := versionAnswers(t, data, "three", []string{"alpha", "bravo", "charlie", "delta", "echo"}, []string{"lantern"}, false)
	for _, tn := range []string{"bravo", "delta"} {
		if got["tree "+tn] != "absent" {
			t.Errorf("three holds the dropped tree %s", tn)
		}
	}
	sameAnswers(t, "the trees kept", versionAnswers(t, data, "three", []string{"alpha", "charlie", "echo"}, []string{"lantern"}, false),
		versionAnswers(t, data, "five", []string{"alpha", "charlie", "echo"}, []string{"lantern"}, false))
}

// TestIngestBaseRefusals checks that a built-on ingest refuses bad input
// with a message naming the fix, and stores nothing.
func TestIngestBaseRefusals(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	trees := fiveTrees(t, src)
	alpha := trees[0]
	// Nothing is served yet.
	r := runCLI(t, data, "ingest", "--tree", alpha, "--base", "active")
	if r.err == nil || !errors.Is(r.err, ingest.ErrBase) || !strings.Contains(r.err.Error(), "no version is served yet") {
		t.Errorf("--base active with nothing served: %v", r.err)
	}
	mustCLI(t, data, "ingest", "--tree", alpha, "--tree", trees[1], "--version", "two", "--activate")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tree", alpha, "--base", "nope"}, []string{`--base nope: no version "nope"`, "two", "tzctx versions"}},
		{[]string{"--base", "two", "--drop-tree", "charlie"}, []string{"--drop-tree charlie: version two has no tree charlie", "its trees: alpha, bravo", "drop one of those"}},
		{[]string{"--tree", alpha, "--base", "two", "--drop-tree", "alpha"}, []string{"tree alpha is both given with --tree and dropped with --drop-tree", "give one of the two"}},
		{[]string{"--tree", alpha, "--drop-tree", "bravo"}, []string{"--drop-tree bravo needs --base", "--base active"}},
		{[]string{"--base", "two", "--drop-tree", "alpha", "--drop-tree", "bravo"}, []string{"every tree of version two is dropped", "keep a tree"}},
		{[]string{"--base", "active"}, []string{"identical content is stored already as version two"}},
	} {
		r := runCLI(t, data, append([]string{"ingest"}, c.args...)...)
		msg := r.stdout
		if r.err != nil {
			msg = r.err.Error()
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("ingest %v: %q lacks %q", c.args, msg, w)
			}
		}
	}
	if rows := parseVersions(t, mustCLI(t, data, "versions").stdout); len(rows) != 1 {
		t.Errorf("the refused ingests stored versions: %v", rows)
	}
}

// versionsJSON runs tzctx versions --json and decodes it.
func versionsJSON(t *testing.T, data string) map[string]versionJSON {
	t.Helper()
	var out struct {
		Versions []versionJSON `json:"versions"`
		Faults   []string      `json:"faults"`
	}
	r := mustCLI(t, data, "versions", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("versions --json: %v\n%s", err, r.stdout)
	}
	if len(out.Faults) > 0 {
		t.Errorf("versions --json lists faults: %v", out.Faults)
	}
	m := map[string]versionJSON{}
	for _, v := range out.Versions {
		m[v.Name] = v
	}
	return m
}

// TestVersionsJSONRecords checks the records of what was ingested: per
// tree the folder, the format, the pages, the base and when; a carried
// tree keeps its folder and time of reading from the base; and an
// exported archive carries no folder.
func TestVersionsJSONRecords(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	trees := fiveTrees(t, src)
	mustCLI(t, data, "ingest", "--tree", trees[0], "--tree", trees[1], "--version", "one", "--activate")
	bravoDir := strings.TrimPrefix(trees[1], "bravo=")
	bravo2 := writeTree(t, filepath.Join(src, "again"), "bravo", map[string]string{"index.md": "# bravo\n\nAgain.\n"})
	mustCLI(t, data, "ingest", "--tree", "bravo="+bravo2, "--base", "active", "--version", "two")

	vs := versionsJSON(t, data)
	one, two := vs["one"], vs["two"]
	if !one.Active || one.Base != "" || two.Base != "one" || two.Active {
		t.Errorf("one: active %v base %q; two: active %v base %q", one.Active, one.Base, two.Active, two.Base)
	}
	byName := func(v versionJSON) map[string]treeJSON {
		m := map[string]treeJSON{}
		for _, tr := range v.Trees {
			m[tr.Name] = tr
		}
		return m
	}
	o, w := byName(one), byName(two)
	alphaDir := strings.TrimPrefix(trees[0], "alpha=")
	if o["alpha"].Folder != alphaDir || o["bravo"].Folder != bravoDir || o["alpha"].Format != "markdown" || o["alpha"].Pages != 3 || o["alpha"].Read == "" || o["alpha"].Base != "" {
		t.Errorf("one's records: %+v", o)
	}
	// alpha is carried: its folder, format and time of reading are one's,
	// and it names the version it was carried from; bravo was read anew.
	if a := w["alpha"]; a.Folder != alphaDir || a.Format != "markdown" || a.Read != o["alpha"].Read || a.Base != "one" || a.Pages != 3 {
		t.Errorf("two's carried alpha: %+v", a)
	}
	if b := w["bravo"]; b.Folder != bravo2 || b.Base != "" || b.Pages != 1 || b.Format != "markdown" {
		t.Errorf("two's bravo read anew: %+v", b)
	}
	// The text form is as it was.
	if rows := parseVersions(t, mustCLI(t, data, "versions").stdout); len(rows) != 2 || rows[1].trees != "alpha,bravo" {
		t.Errorf("versions lists %+v", rows)
	}

	// An exported archive names no folder of this machine; the version it
	// brings has no record of one.
	file := filepath.Join(t.TempDir(), "two.tar.gz")
	mustCLI(t, data, "export", "two", file)
	for name, body := range archiveEntries(t, file) {
		if strings.Contains(name, "sources") || strings.Contains(body, src) {
			t.Errorf("the archive's entry %s names the folder %s", name, src)
		}
	}
	replica := t.TempDir()
	mustCLI(t, replica, "import", file)
	if a := byName(versionsJSON(t, replica)["two"])["alpha"]; a.Folder != "" || a.Base != "one" || a.Format != "markdown" {
		t.Errorf("the imported two's alpha: %+v", a)
	}
	// A deleted version's record of folders goes with it: a version of
	// that name imported later shows none.
	mustCLI(t, data, "delete", "two")
	mustCLI(t, data, "import", file)
	if a := byName(versionsJSON(t, data)["two"])["alpha"]; a.Folder != "" {
		t.Errorf("two, deleted and imported, shows the folder %s", a.Folder)
	}
}

// archiveEntries reads a version archive's entries, by name.
func archiveEntries(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = string(b)
	}
}

// TestIngestActivateSummary checks that ingest --activate prints what
// activate prints against the served version.
func TestIngestActivateSummary(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	trees := fiveTrees(t, src)
	mustCLI(t, data, "ingest", "--tree", trees[0], "--tree", trees[1], "--version", "one", "--activate")
	r := mustCLI(t, data, "ingest", "--base", "active", "--drop-tree", "bravo", "--tree", trees[2], "--version", "two", "--activate")
	for _, want := range []string{
		"changes from the served one to two:",
		"tree charlie: added, 3 pages",
		"warning: tree bravo is served now and is not in two",
		"activated two",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ingest --activate printed no %q:\n%s", want, r.stdout)
		}
	}
}

// mintlifyTree writes a Mintlify tree under dir/name: docs.json listing
// the pages in the order given (path to text, without the .mdx suffix),
// and the files extra (llms.txt, llms-full.txt) as given.
func mintlifyTree(t *testing.T, dir, name string, order []string, pages, extra map[string]string) string {
	t.Helper()
	files := map[string]string{}
	for p, text := range pages {
		files[p+".mdx"] = text
	}
	for f, text := range extra {
		files[f] = text
	}
	nav, err := json.Marshal(map[string]any{"name": name + " docs", "navigation": map[string]any{"groups": []any{map[string]any{"group": "All", "pages": order}}}})
	if err != nil {
		t.Fatal(err)
	}
	files["docs.json"] = string(nav)
	return writeTree(t, dir, name, files)
}

// digestOf returns the content digest of version name.
func digestOf(t *testing.T, data, name string) string {
	t.Helper()
	st, err := store.OpenExisting(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := st.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return m.Digest
}

// equalAsWhole checks that version built answers every page read, stamp,
// contract search and search_documentation of queries as version whole,
// and has its content digest.
func equalAsWhole(t *testing.T, data, built, whole string, queries []string) {
	t.Helper()
	sameAnswers(t, built+" against "+whole, versionAnswers(t, data, built, nil, queries, true), versionAnswers(t, data, whole, nil, queries, true))
	if b, w := digestOf(t, data, built), digestOf(t, data, whole); b != w {
		t.Errorf("%s's content digest %s differs from %s's %s", built, b, whole, w)
	}
}

// TestIngestBaseEquivalence checks that a version built on a base, the
// tree read anew with pages edited, added, removed and renamed, answers
// page reads, stamps, contract search and search_documentation as the
// same content ingested whole: on a synthetic site whose carried trees
// hold a composed whole text and an llms-full.txt, and on the sample site.
func TestIngestBaseEquivalence(t *testing.T) {
	t.Run("synthetic", func(t *testing.T) {
		src, data := t.TempDir(), t.TempDir()
		page := func(title, words string) string {
			return fmt.Sprintf("---\ntitle: %s\n---\n\n# %s\n\nThe %s page speaks of %s.\n\n## Usage\n\nUse %s with care.\n\n## Notes\n\nA note on %s.\n", title, title, title, words, words, words)
		}
		oldDocs := map[string]string{"index": page("Home", "lantern harbor"), "edit": page("Edited", "compass"), "gone": page("Gone", "anchor"), "old-name": page("Renamed", "rudder keel"), "same": page("Same", "lantern sail")}
		newDocs := map[string]string{"index": oldDocs["index"], "edit": page("Edited", "compass needle"), "new-name": oldDocs["old-name"], "added": page("Added", "harbor light"), "same": oldDocs["same"]}
		docsOld := mintlifyTree(t, filepath.Join(src, "old"), "docs", []string{"index", "edit", "gone", "old-name", "same"}, oldDocs, nil)
		docsNew := mintlifyTree(t, filepath.Join(src, "new"), "docs", []string{"index", "added", "edit", "new-name", "same"}, newDocs, nil)
		full := mintlifyTree(t, src, "whole-text", []string{"a", "b"}, map[string]string{"a": page("Alpha", "lantern"), "b": page("Beta", "harbor")},
			map[string]string{"llms.txt": "# Full\n\n- [Alpha](/a)\n- [Beta](/b)\n", "llms-full.txt": "# Full\n\nThe whole text, written apart: lantern harbor.\n"})
		plain := writeTree(t, src, "plain", map[string]string{"index.md": "# Plain\n\nA plain lantern.\n\n```\n# not a heading\n", "more.md": "# More\n\nMore harbor.\n"})
		mustCLI(t, data, "ingest", "--tree", "docs="+docsOld, "--tree", "whole-text="+full, "--tree", "plain="+plain, "--version", "base", "--activate")
		mustCLI(t, data, "ingest", "--tree", "docs="+docsNew, "--base", "active", "--version", "built")
		mustCLI(t, data, "ingest", "--tree", "docs="+docsNew, "--tree", "whole-text="+full, "--tree", "plain="+plain, "--version", "whole")
		queries := []string{"lantern", "harbor", "compass needle", "rudder", "usage", "note", "whole text", "heading"}
		equalAsWhole(t, data, "built", "whole", queries)
		// What was compared holds what the test means it to: the carried
		// whole text written apart, and search answers with sections.
		got := versionAnswers(t, data, "built", nil, queries, true)
		if a := got["search_documentation * lantern"]; strings.HasPrefix(a, "error") || !strings.Contains(a, "lantern") {
			t.Errorf("built's search_documentation answer: %.300s", a)
		}
		if _, ok := got["read /docs/new-name/"]; !ok {
			t.Errorf("built has no renamed page /docs/new-name/")
		}
		if _, ok := got["read /docs/gone/"]; ok {
			t.Errorf("built still holds the removed page /docs/gone/")
		}
		if x := versionText(t, data, "built", "whole-text", "full"); !strings.Contains(x, "written apart") {
			t.Errorf("built's whole-text tree's whole text is not its llms-full.txt: %.200q", x)
		}
		// Built on the version built so, a tree carried twice still
		// answers as one ingested whole.
		plain2 := writeTree(t, filepath.Join(src, "new"), "plain", map[string]string{"index.md": "# Plain\n\nA plain lantern, changed.\n"})
		mustCLI(t, data, "ingest", "--tree", "plain="+plain2, "--base", "built", "--version", "built2")
		mustCLI(t, data, "ingest", "--tree", "docs="+docsNew, "--tree", "whole-text="+full, "--tree", "plain="+plain2, "--version", "whole2")
		equalAsWhole(t, data, "built2", "whole2", []string{"lantern", "harbor", "changed"})
	})
	t.Run("sample", func(t *testing.T) {
		data := t.TempDir()
		siteB := changedSite(t)
		mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "A")
		mustCLI(t, data, "ingest", "--tree", "cloud="+filepath.Join(siteB, "cloud"), "--base", "A", "--version", "built")
		mustCLI(t, data, "ingest", siteB, "--version", "whole")
		equalAsWhole(t, data, "built", "whole", []string{"stamp offset", "http reference", "THE", "page", "version"})
	})
}

// versionText returns the stored text key of tree in version name.
func versionText(t *testing.T, data, name, tree, key string) string {
	t.Helper()
	st, err := store.OpenExisting(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.OpenVersion(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	x, err := v.Tree(tree).Text(key)
	if err != nil || x == nil {
		t.Fatalf("text %s of tree %s: %v", key, tree, err)
	}
	return string(x.Bytes())
}

// editedPowerShell copies the PowerShell corpus to a temporary folder,
// one page edited, one added, one removed and one renamed, its docs.json
// listing the change.
func editedPowerShell(t *testing.T, corpus string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "powershell")
	testkit.CopyTree(t, corpus, dst)
	nav := filepath.Join(dst, "docs.json")
	raw, err := os.ReadFile(nav)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, c := range []struct{ old, new string }{
		{`"7.6/CimCmdlets/CimCmdlets",`, `"7.6/CimCmdlets/CimCmdlets", "7.6/CimCmdlets/Added-Page",`},
		{`"7.6/CimCmdlets/Get-CimClass",`, ``},
		{`"7.6/CimCmdlets/Get-CimSession",`, `"7.6/CimCmdlets/Get-CimSession-Renamed",`},
	} {
		if !strings.Contains(s, c.old) {
			t.Fatalf("the corpus's docs.json lists no %s; update editedPowerShell", c.old)
		}
		s = strings.Replace(s, c.old, c.new, 1)
	}
	write := func(f, text string) {
		if err := os.WriteFile(filepath.Join(dst, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs.json", s)
	write("7.6/CimCmdlets/Added-Page.md", "---\ntitle: An added page\n---\n\n# Added\n\nA page about CimSession lanterns.\n\n## Parameters\n\nNone.\n")
	if err := os.Rename(filepath.Join(dst, "7.6/CimCmdlets/Get-CimSession.md"), filepath.Join(dst, "7.6/CimCmdlets/Get-CimSession-Renamed.md")); err != nil {
		t.Fatal(err)
	}
	jobs := filepath.Join(dst, "7.6/Microsoft.PowerShell.Core/About/about_Jobs.md")
	b, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	write("7.6/Microsoft.PowerShell.Core/About/about_Jobs.md", strings.Replace(string(b), "job", "lantern job", 3)+"\n## Edited\n\nAn edited section.\n")
	return dst
}

// TestIngestBaseEquivalencePowerShell is TestIngestBaseEquivalence on the
// PowerShell corpus (TZCTX_CORPORA; skipped, saying why, where absent):
// the corpus read anew with a page edited, added, removed and renamed on a
// base holding the unedited corpus, and the corpus carried from a version
// while a small tree is read anew, each against the same content
// ingested whole, on every page and on search queries drawn from the
// pages' titles.
func TestIngestBaseEquivalencePowerShell(t *testing.T) {
	corpus := testkit.Corpus(t, "powershell-docs")
	src, data := t.TempDir(), t.TempDir()
	edited := editedPowerShell(t, corpus)
	small := writeTree(t, src, "small", map[string]string{"index.md": "# Small\n\nA small tree about jobs and lanterns.\n"})
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+corpus, "--tree", "small="+small, "--version", "base")
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+edited, "--base", "base", "--version", "built")
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+edited, "--tree", "small="+small, "--version", "whole")
	queries := []string{"lantern job", "Get-CimSession", "added page", "about_Jobs", "Invoke-Command remote", "ExecutionPolicy", "foreach loop", "pipeline"}
	equalAsWhole(t, data, "built", "whole", queries)
	// The corpus carried from whole, the small tree read again.
	mustCLI(t, data, "ingest", "--tree", "small="+small, "--base", "whole", "--version", "carried")
	equalAsWhole(t, data, "carried", "whole", queries)
}
