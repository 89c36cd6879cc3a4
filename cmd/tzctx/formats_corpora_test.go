package main

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// navEntry is one page of a corpus's navigation as the test's own small
// reader of the navigation file finds it: its title and route.
type navEntry struct{ title, route string }

// firstHeading is a page file's front matter title, else its first "# "
// heading, less an attribute list: the test's own reading of a title.
func firstHeading(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.HasPrefix(text, "---\n") {
		end := strings.Index(text[4:], "\n---")
		if m := regexp.MustCompile(`(?m)^title:\s*"?(.*?)"?\s*$`).FindStringSubmatch(text[4 : 4+end]); m != nil {
			return m[1]
		}
		text = text[4+end:]
	}
	if m := regexp.MustCompile(`(?m)^# (.*?)(\s*\{[^}]*\})?\s*$`).FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// route is the route tzctx gives a page file's path below the published
// folder in the tzdocs tree.
func route(rel string) string {
	p := strings.TrimSuffix(rel, path.Ext(rel))
	if b := path.Base(p); b == "index" || b == "README" {
		p = path.Dir(p)
	}
	if p == "." {
		return "/tzdocs/"
	}
	return "/tzdocs/" + p + "/"
}

// mkdocsOracle reads the nav of an mkdocs.yml line by line: every
// "- [Label: ]path.md" line under nav:, in order.
func mkdocsOracle(t *testing.T, dir string) []navEntry {
	data, err := os.ReadFile(filepath.Join(dir, "mkdocs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\s*- (?:(.*?):\s+)?(\S+\.md)\s*$`)
	var out []navEntry
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "nav:") {
			in = true
			continue
		}
		if in && line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			break
		}
		if m := re.FindStringSubmatch(line); in && m != nil {
			title := strings.Trim(m[1], `"'`)
			if title == "" {
				title = firstHeading(t, filepath.Join(dir, "docs", m[2]))
			}
			out = append(out, navEntry{title, route(m[2])})
		}
	}
	return out
}

// summaryOracle reads the chapter links of an mdBook SUMMARY.md, drafts
// left out.
func summaryOracle(t *testing.T, dir string) []navEntry {
	data, err := os.ReadFile(filepath.Join(dir, "src", "SUMMARY.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\s*(?:- )?\[(.+)\]\((\S+\.md)\)\s*$`)
	var out []navEntry
	for _, line := range strings.Split(string(data), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			out = append(out, navEntry{m[1], route(m[2])})
		}
	}
	return out
}

// TestIngestFormatCorpora ingests the MkDocs and mdBook corpora with no
// flag but --tree and checks, against each one's navigation file read by
// the test's own reader: the number of pages and the titles and routes of
// the first twenty in order (the composed index), a page read by its
// route, and a search that finds a page by a word of its title.
func TestIngestFormatCorpora(t *testing.T) {
	corpora := testkit.Corpora(t)
	for _, c := range []struct {
		name, dir string
		oracle    func(*testing.T, string) []navEntry
		page      string // a page path to read
		pageStart string // what its copy starts with
		query     string // a word of a title
		found     string // the route the search finds
	}{
		{"fastapi-docs", "fastapi-docs/docs/en", mkdocsOracle, "tutorial/first-steps", "# First Steps", "uvicorn", "/tzdocs/deployment/manually/"},
		{"rust-book", "rust-book", summaryOracle, "ch04-01-what-is-ownership", "## What Is Ownership?", "closures", "/tzdocs/ch13-01-closures/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(corpora, c.dir)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s is absent", c.name)
			}
			want := c.oracle(t, dir)
			data := t.TempDir()
			res := mustCLI(t, data, "ingest", "--tree", "tzdocs="+dir, "--version", "v", "--activate")
			if strings.Contains(res.stderr, "warning:") {
				t.Errorf("ingest warned:\n%s", res.stderr)
			}
			srv := startServer(t, data, testConfig(0))
			index, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs"})
			var got []navEntry
			for _, m := range regexp.MustCompile(`(?m)^- \[(.*)\]\((/tzdocs/\S*?)\)`).FindAllStringSubmatch(index, -1) {
				got = append(got, navEntry{m[1], m[2]})
			}
			t.Logf("%d pages; first %+v", len(got), got[:3])
			if len(got) != len(want) {
				t.Errorf("the index lists %d pages, the navigation %d", len(got), len(want))
			}
			for i := 0; i < 20 && i < len(want) && i < len(got); i++ {
				if got[i] != want[i] {
					t.Errorf("page %d: %+v, the navigation says %+v", i, got[i], want[i])
				}
			}
			a := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": c.page})
			if !strings.Contains(a.Text[:min(len(a.Text), 400)], c.pageStart) {
				t.Errorf("page %s starts %q, want %q", c.page, a.Text[:min(len(a.Text), 200)], c.pageStart)
			}
			s := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "query": c.query})
			if !strings.Contains(s.Text, "("+c.found) {
				t.Errorf("search %q does not find %s:\n%s", c.query, c.found, s.Text)
			}
		})
	}
}
