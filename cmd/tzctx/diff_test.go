package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// writeTree writes a folder of Markdown pages, file name to text, under
// dir/name and returns the folder.
func writeTree(t *testing.T, dir, name string, pages map[string]string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	for f, text := range pages {
		p := filepath.Join(d, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// twoVersions stores version one (trees api and docs) and version two
// (trees docs and extra) in a new data directory: from one to two, docs
// gains new.md, loses old.md, keeps guide.md as it was, and changes
// index.md's lead and its "Usage" section, adds a "More" section and
// drops "Notes", leaving "Install" as it was; api disappears and extra
// appears.
func twoVersions(t *testing.T) string {
	t.Helper()
	src, data := t.TempDir(), t.TempDir()
	guide := "# Guide\n\nA guide.\n\n## Steps\n\nOne step.\n"
	docsA := writeTree(t, filepath.Join(src, "a"), "docs", map[string]string{
		"index.md": "# Home\n\nWelcome.\n\n## Install\n\nRun the installer.\n\n## Usage\n\nUse it.\n\n## Notes\n\nA note.\n",
		"guide.md": guide,
		"old.md":   "# Old\n\nAn old page.\n",
	})
	api := writeTree(t, filepath.Join(src, "a"), "api", map[string]string{"index.md": "# API\n\nThe calls.\n"})
	docsB := writeTree(t, filepath.Join(src, "b"), "docs", map[string]string{
		"index.md": "# Home\n\nWelcome back.\n\n## Install\n\nRun the installer.\n\n## Usage\n\nUse it well.\n\n## More\n\nMore text.\n",
		"guide.md": guide,
		"new.md":   "# New\n\nA new page.\n",
	})
	extra := writeTree(t, filepath.Join(src, "b"), "extra", map[string]string{"index.md": "# Extra\n\nMore.\n", "two.md": "# Two\n\nTwo.\n"})
	mustCLI(t, data, "ingest", "--tree", "docs="+docsA, "--tree", "api="+api, "--version", "one")
	mustCLI(t, data, "ingest", "--tree", "docs="+docsB, "--tree", "extra="+extra, "--version", "two")
	return data
}

func TestDiffText(t *testing.T) {
	data := twoVersions(t)
	r := mustCLI(t, data, "diff", "one", "two")
	want := `from one to two
tree api: removed, 1 page
tree docs: 1 added, 1 removed, 1 changed, 1 unchanged pages
  + /docs/new/
  - /docs/old/
  ~ /docs/
      changed (lead)
      changed ## Usage
      added ## More
      removed ## Notes
tree extra: added, 2 pages
`
	if r.stdout != want {
		t.Errorf("diff one two printed\n%s\nwant\n%s", r.stdout, want)
	}
	// The other way round, every addition is a removal.
	r = mustCLI(t, data, "diff", "two", "one")
	for _, l := range []string{"tree api: added, 1 page", "tree extra: removed, 2 pages", "  + /docs/old/", "  - /docs/new/", "      removed ## More", "      added ## Notes"} {
		if !strings.Contains(r.stdout, l+"\n") {
			t.Errorf("diff two one lacks line %q:\n%s", l, r.stdout)
		}
	}
	// A version against itself changes nothing.
	r = mustCLI(t, data, "diff", "one", "one")
	if want := "from one to one\ntree api: 0 added, 0 removed, 0 changed, 1 unchanged pages\ntree docs: 0 added, 0 removed, 0 changed, 3 unchanged pages\n"; r.stdout != want {
		t.Errorf("diff one one printed\n%s\nwant\n%s", r.stdout, want)
	}
}

// TestDiffJSON checks the shape contracts/choices/versions.md#ch-diff-activate
// documents: every member present, lists empty rather than null.
func TestDiffJSON(t *testing.T) {
	data := twoVersions(t)
	r := mustCLI(t, data, "diff", "one", "two", "--json")
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("diff --json is not one JSON object: %v\n%s", err, r.stdout)
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	if got, want := keys(raw), []string{"from", "to", "trees", "trees_added", "trees_removed"}; !reflect.DeepEqual(got, sortedCopy(want)) {
		t.Errorf("top-level members %v, want %v", got, sortedCopy(want))
	}
	for _, tr := range raw["trees"].([]any) {
		m := tr.(map[string]any)
		if got, want := keys(m), sortedCopy([]string{"name", "state", "pages", "added", "removed", "changed", "unchanged"}); !reflect.DeepEqual(got, want) {
			t.Errorf("tree %v members %v, want %v", m["name"], got, want)
		}
		for _, k := range []string{"added", "removed", "changed"} {
			if _, ok := m[k].([]any); !ok {
				t.Errorf("tree %v: %s is %v, not a list", m["name"], k, m[k])
			}
		}
	}

	var d struct {
		From, To     string
		TreesAdded   []string `json:"trees_added"`
		TreesRemoved []string `json:"trees_removed"`
		Trees        []struct {
			Name, State      string
			Pages, Unchanged int
			Added, Removed   []string
			Changed          []struct {
				Route     string
				FromStamp string `json:"from_stamp"`
				ToStamp   string `json:"to_stamp"`
				Sections  []struct {
					Heading, Change string
					Depth           int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.From != "one" || d.To != "two" || !reflect.DeepEqual(d.TreesAdded, []string{"extra"}) || !reflect.DeepEqual(d.TreesRemoved, []string{"api"}) {
		t.Errorf("from %q to %q, trees added %v, removed %v", d.From, d.To, d.TreesAdded, d.TreesRemoved)
	}
	var states []string
	for _, tr := range d.Trees {
		states = append(states, tr.Name+"="+tr.State)
	}
	if want := []string{"api=removed", "docs=kept", "extra=added"}; !reflect.DeepEqual(states, want) {
		t.Fatalf("trees %v, want %v", states, want)
	}
	docs := d.Trees[1]
	if docs.Pages != 3 || docs.Unchanged != 1 || !reflect.DeepEqual(docs.Added, []string{"/docs/new/"}) || !reflect.DeepEqual(docs.Removed, []string{"/docs/old/"}) || len(docs.Changed) != 1 {
		t.Fatalf("docs: %+v", docs)
	}
	c := docs.Changed[0]
	if c.Route != "/docs/" || len(c.FromStamp) != 64 || len(c.ToStamp) != 64 || c.FromStamp == c.ToStamp {
		t.Errorf("changed page %+v", c)
	}
	var secs []string
	for _, s := range c.Sections {
		secs = append(secs, s.Change+" "+s.Heading+" "+string(rune('0'+s.Depth)))
	}
	if want := []string{"changed  0", "changed Usage 2", "added More 2", "removed Notes 2"}; !reflect.DeepEqual(secs, want) {
		t.Errorf("sections %q, want %q", secs, want)
	}
	// The stamps are those the version serves for the page.
	for _, v := range []struct{ name, stamp string }{{"one", c.FromStamp}, {"two", c.ToStamp}} {
		if got := pageStamp(t, data, v.name, "docs", "/docs/"); got != v.stamp {
			t.Errorf("%s's stamp of /docs/ is %s, diff says %s", v.name, got, v.stamp)
		}
	}
}

// pageStamp returns the SHA-256 of the text version name stores for the
// page route of tree, which is the stamp its reads carry.
func pageStamp(t *testing.T, data, name, tree, route string) string {
	t.Helper()
	mustCLI(t, data, "activate", name)
	return sha256Hex(storedText(t, data, tree, route))
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// TestDiffUnknownVersion: a name that names no stored version, on either
// side, is refused with an error naming it and the stored versions.
func TestDiffUnknownVersion(t *testing.T) {
	data := twoVersions(t)
	for _, args := range [][]string{{"one", "absent"}, {"absent", "two"}} {
		r := runCLI(t, data, append([]string{"diff"}, args...)...)
		if r.err == nil {
			t.Fatalf("diff %v succeeded:\n%s", args, r.stdout)
		}
		for _, part := range []string{`"absent"`, "the stored versions are one, two", "'tzctx versions'"} {
			if !strings.Contains(r.err.Error(), part) {
				t.Errorf("diff %v: error %q lacks %q", args, r.err, part)
			}
		}
		if r.stdout != "" {
			t.Errorf("diff %v printed %q", args, r.stdout)
		}
	}
	if r := runCLI(t, data, "diff", "../one", "two"); r.err == nil || !strings.Contains(r.err.Error(), "not valid") {
		t.Errorf("diff ../one two: err = %v", r.err)
	}
	if r := runCLI(t, data, "diff", "one"); r.err == nil {
		t.Error("diff with one name succeeded")
	}
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "versions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, empty, "activate", "absent"); r.err == nil || !strings.Contains(r.err.Error(), "no version is stored") {
		t.Errorf("activate in an empty data directory: err = %v", r.err)
	}
}

// TestActivateSummary: activate says what changes against the served
// version before it switches, and warns, in its output and in the log,
// of a served tree the new version lacks.
func TestActivateSummary(t *testing.T) {
	data := twoVersions(t)
	r := mustCLI(t, data, "activate", "one")
	if want := "nothing is served yet: one serves 2 trees (api 1 page, docs 3 pages)\nactivated one\n"; r.stdout != want {
		t.Errorf("first activate printed %q, want %q", r.stdout, want)
	}

	var logBuf bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&logBuf, nil)))
	t.Cleanup(func() { slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) })
	r = mustCLI(t, data, "activate", "two")
	want := `changes from the served one to two:
  tree api: removed, 1 page
  tree docs: 1 added, 1 removed, 1 changed, 1 unchanged pages
  tree extra: added, 2 pages
warning: tree api is served now and is not in two: its reads will answer context_unavailable; ingest with every tree, or activate a version that holds api
activated two
`
	if r.stdout != want {
		t.Errorf("activate two printed\n%s\nwant\n%s", r.stdout, want)
	}
	if a := activeName(t, data); a != "two" {
		t.Errorf("ACTIVE = %q, want two", a)
	}
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "tree=api") || !strings.Contains(lines[0], "version=two") || !strings.Contains(lines[0], "served=one") || !strings.Contains(lines[0], "context_unavailable") {
		t.Errorf("the log holds %q, want one warning naming tree api, versions one and two and context_unavailable", logBuf.String())
	}

	// Back to one: api comes back, extra disappears.
	logBuf.Reset()
	r = mustCLI(t, data, "activate", "one")
	if !strings.Contains(r.stdout, "  tree api: added, 1 page\n") || !strings.Contains(r.stdout, "warning: tree extra is served now and is not in one") {
		t.Errorf("activate one printed\n%s", r.stdout)
	}
	if !strings.Contains(logBuf.String(), "tree=extra") {
		t.Errorf("the log holds %q, want a warning of tree extra", logBuf.String())
	}

	// The version served now: nothing changes, nothing is warned of.
	logBuf.Reset()
	r = mustCLI(t, data, "activate", "one")
	if want := "one is served now: nothing changes\nactivated one\n"; r.stdout != want || logBuf.Len() != 0 {
		t.Errorf("activate of the served version printed %q and logged %q, want %q and nothing", r.stdout, logBuf.String(), want)
	}
}

// TestActivateServedDamaged: where the served version cannot be read,
// activate says so, and still switches (activating another version is how
// a damaged one is left behind).
func TestActivateServedDamaged(t *testing.T) {
	data := twoVersions(t)
	mustCLI(t, data, "activate", "one")
	damageFile(t, filepath.Join(data, "versions", "one", "pages.db"))
	r := mustCLI(t, data, "activate", "two")
	if !strings.Contains(r.stdout, "the served version one cannot be read, so what changes is not known") || !strings.HasSuffix(r.stdout, "activated two\n") {
		t.Errorf("activate two printed\n%s", r.stdout)
	}
	if a := activeName(t, data); a != "two" {
		t.Errorf("ACTIVE = %q, want two", a)
	}
}
