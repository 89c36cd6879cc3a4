package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
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
