package lint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/lint"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// site is a Mintlify tree, docs, of three listed pages with headings and
// one page file it does not list; index.mdx links a missing page (line
// 3), a missing anchor of a listed page (line 4), and well: a listed
// page, its heading, a heading of its own, an external page and an image
// (line 5); setup.mdx names a code name and a repository path (line 3).
var site = map[string]string{
	"docs/docs.json":        `{"navigation":{"pages":["index","guides/index","guides/setup"]}}`,
	"docs/index.mdx":        "# Home\n\n[gone](/guides/missing)\n[anchor](/guides/setup#nowhere)\n[ok](/guides/setup) [ok](/guides/setup#install-the-tool) [ok](#start-here) [ext](https://example.com/x) ![img](/img/a.png)\n\n## Start here\n",
	"docs/guides/index.md":  "---\ntitle: Guides\n---\n# Guides\n\n## Overview\n",
	"docs/guides/setup.mdx": "# Setup\n\nBuilt by Hydra, see internal/store/x.go.\n\n## Install the tool\n",
	"docs/notes/draft.md":   "# Draft\n",
}

// check runs ingest.Check on the files and then lint.Trees as opts says,
// and returns the findings as FILE:LINE: RULE, sorted, and the report.
func check(t *testing.T, files map[string]string, opts lint.Options) (errs, warns []string, res finding.Report) {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, files)
	r, err := ingest.Check(context.Background(), ingest.Options{Trees: []ingest.TreeSource{{Name: "docs", Dir: filepath.Join(dir, "docs")}}})
	if err != nil {
		t.Fatalf("ingest.Check: %v", err)
	}
	lint.Trees(context.Background(), &res, dir, r, opts)
	short := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Rule))
		}
		slices.Sort(out)
		return out
	}
	return short(res.Errors), short(res.Warnings), res
}

// TestTreesFindings: a link to no listed page and an anchor naming no
// heading are errors at their file and line, naming the target; a page
// file the manifest does not list is a warning; the links that resolve
// (a page, its heading, a heading of the page itself, an external page,
// an image) are none.
func TestTreesFindings(t *testing.T) {
	errs, warns, res := check(t, site, lint.Options{})
	if want := []string{"docs/index.mdx:3: broken-link", "docs/index.mdx:4: broken-anchor"}; !slices.Equal(errs, want) {
		t.Errorf("errors = %v, want %v", errs, want)
	}
	if want := []string{"docs/notes/draft.md:1: unlisted-file"}; !slices.Equal(warns, want) {
		t.Errorf("warnings = %v, want %v", warns, want)
	}
	for _, f := range res.Errors {
		if f.Rule == lint.RuleBrokenLink && !strings.Contains(f.Message, `"/guides/missing" names no page`) ||
			f.Rule == lint.RuleBrokenAnchor && !strings.Contains(f.Message, "#nowhere names no heading of /docs/guides/setup/") {
			t.Errorf("%s does not name what is broken", f)
		}
	}
}

// TestTreesOptions: Links warn makes the broken links warnings and off
// drops them; HouseRules adds CTX-08's findings (a code name of
// CodeNames, a repository path) as warnings at their line, which are
// none without it.
func TestTreesOptions(t *testing.T) {
	errs, warns, _ := check(t, site, lint.Options{Links: lint.LinksWarn})
	if len(errs) != 0 || !slices.Contains(warns, "docs/index.mdx:3: broken-link") || !slices.Contains(warns, "docs/index.mdx:4: broken-anchor") {
		t.Errorf("with links warn: errors %v, warnings %v; want the broken links as warnings", errs, warns)
	}
	errs, warns, _ = check(t, site, lint.Options{Links: lint.LinksOff})
	if want := []string{"docs/notes/draft.md:1: unlisted-file"}; len(errs) != 0 || !slices.Equal(warns, want) {
		t.Errorf("with links off: errors %v, warnings %v; want no link finding", errs, warns)
	}
	_, warns, _ = check(t, site, lint.Options{Links: lint.LinksOff, HouseRules: true, CodeNames: []string{"hydra"}})
	for _, w := range []string{"docs/guides/setup.mdx:3: ctx-08-code-name", "docs/guides/setup.mdx:3: ctx-08-repo-path"} {
		if !slices.Contains(warns, w) {
			t.Errorf("with the house rules, warnings %v lack %s", warns, w)
		}
	}
}

// TestIngestFinding: a fault ingest refuses the site for is a finding at
// the line of the manifest value its JSON pointer names, with ingest's
// problem.
func TestIngestFinding(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"docs/docs.json": "{\"navigation\":{\"pages\":[\n  \"index\",\n  \"nofile\"]}}",
		"docs/index.mdx": "# Home\n",
	})
	_, err := ingest.Check(context.Background(), ingest.Options{Trees: []ingest.TreeSource{{Name: "docs", Dir: filepath.Join(dir, "docs")}}})
	if err == nil {
		t.Fatal("ingest.Check accepted a page with no file")
	}
	f := lint.IngestFinding(dir, err)
	if f.File != "docs/docs.json" || f.Line != 3 || f.Rule != lint.RuleIngest || !strings.Contains(f.Message, `at /navigation/pages/1: page "nofile" has no file`) {
		t.Errorf("IngestFinding = %s, want docs/docs.json:3: ingest: at /navigation/pages/1: page \"nofile\" has no file…", f)
	}
}

// TestParse: ParseLinks and ParseRules read what an operator writes and
// refuse anything else, saying what to write.
func TestParse(t *testing.T) {
	for _, s := range []string{"off", "warn", "error"} {
		if l, err := lint.ParseLinks(s); err != nil || string(l) != s {
			t.Errorf("ParseLinks(%q) = %q, %v", s, l, err)
		}
	}
	if _, err := lint.ParseLinks("loud"); err == nil || !strings.Contains(err.Error(), "write off") {
		t.Errorf("ParseLinks(loud) = %v, want a refusal naming the levels", err)
	}
	for s, want := range map[string]bool{"": false, "ctx-08": true, " CTX-08 ,": true} {
		if got, err := lint.ParseRules(s); err != nil || got != want {
			t.Errorf("ParseRules(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := lint.ParseRules("ctx-08,spelling"); err == nil || !strings.Contains(err.Error(), `"spelling"`) {
		t.Errorf("ParseRules(ctx-08,spelling) = %v, want a refusal naming spelling", err)
	}
}
