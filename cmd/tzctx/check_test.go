package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/lint"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// lintSite is the base of each lint case: a tzdocs tree of three listed
// pages with headings, and a cloud tree of one.
var lintSite = map[string]string{
	"tzdocs/docs.json":        `{"navigation":{"pages":["index","guides/index","guides/setup"]}}`,
	"tzdocs/index.mdx":        "# Home\n\n## Start here\n",
	"tzdocs/guides/index.md":  "---\ntitle: Guides\n---\n# Guides\n\n## Overview\n",
	"tzdocs/guides/setup.mdx": "# Setup\n\n## Install the tool\n\n## Install the tool\n",
	"cloud/docs.json":         `{"navigation":{"pages":["index"]}}`,
	"cloud/index.mdx":         "# Cloud\n\n## Reading\n",
}

// TestCheckLint runs the documentation lint on small sites and compares
// every finding: file, line, rule, and what the message must name.
func TestCheckLint(t *testing.T) {
	type want struct {
		file string
		line int
		rule string
		says string
	}
	tests := []struct {
		name     string
		files    map[string]string // written over lintSite
		errors   []want
		warnings []want
		args     []string
	}{
		{name: "a clean site", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n\nSee [setup](/guides/setup), [again](guides/setup.mdx#install-the-tool-1),\n" +
				"[guides](/tzdocs/guides/), [overview](guides/index.md#overview), [here](#start-here),\n" +
				"[cloud](/cloud/#reading), [out](https://example.com/x), [mail](mailto:a@b.c), ![img](/img/a.png).\n\n## Start here\n\n[ref]: /guides/setup\n",
			"tzdocs/guides/setup.mdx": "# Setup\n\n[up](../#start-here) [index](./index) [sibling](index#overview)\n\n## Install the tool\n\n## Install the tool\n",
		}},
		{name: "a broken link, with the line of the file", files: map[string]string{
			"tzdocs/guides/index.md": "---\ntitle: Guides\n---\n# Guides\n\nRead [this](/guides/missing).\n\n## Overview\n",
		}, errors: []want{{"tzdocs/guides/index.md", 6, "broken-link", `"/guides/missing" names no page`}}},
		{name: "relative links resolve from the page's folder", files: map[string]string{
			"tzdocs/guides/setup.mdx": "# Setup\n[a](setup) [b](nothere)\n",
		}, errors: []want{{"tzdocs/guides/setup.mdx", 2, "broken-link", `"nothere"`}}},
		{name: "a link to a file the manifest does not list", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n[x](/extra)\n",
			"tzdocs/extra.mdx": "# Extra\n",
		}, errors: []want{{"tzdocs/index.mdx", 2, "broken-link", "extra.mdx exists, but docs.json does not list it"}},
			warnings: []want{{"tzdocs/extra.mdx", 1, "unlisted-file", "does not list this page file"}}},
		{name: "broken anchors, here and on another page", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n[a](#nowhere)\n[b](/guides/setup#install)\n[c](/cloud/#reading)\n",
		}, errors: []want{
			{"tzdocs/index.mdx", 2, "broken-anchor", "#nowhere names no heading of /tzdocs/"},
			{"tzdocs/index.mdx", 3, "broken-anchor", "#install-the-tool"},
		}},
		{name: "fences, comments and code spans hide links", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n```md\n[a](/gone)\n```\n<!--\n[b](/gone)\n-->\n`[c](/gone)` and <!-- [d](/gone) --> and \\[e](/gone\n~~~\n[f](/gone)\n",
		}},
		{name: "a comment holding a fence marker does not open a fence", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n<!-- ```\n-->\n[a](/gone)\n",
		}, errors: []want{{"tzdocs/index.mdx", 4, "broken-link", `"/gone"`}}},
		{name: "reference definitions are checked", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n[x][r]\n\n[r]: ./gone\n[^1]: a footnote, not a link\n",
		}, errors: []want{{"tzdocs/index.mdx", 4, "broken-link", `"./gone"`}}},
		{name: "redirects in docs.json are followed", files: map[string]string{
			"tzdocs/docs.json": `{"navigation":{"pages":["index","guides/index","guides/setup"]},"redirects":[{"source":"/old","destination":"/guides/setup"},{"source":"/v1/:slug*","destination":"/guides/:slug*"},{"source":"/dead","destination":"/nothing"}]}`,
			"tzdocs/index.mdx": "# Home\n[a](/old#install-the-tool) [b](/v1/setup) [c](/dead)\n",
		}, errors: []want{{"tzdocs/index.mdx", 2, "broken-link", `"/dead"`}}},
		{name: "a heading holding inline JSX is anchored by its text, as the outline anchors it", files: map[string]string{
			"tzdocs/index.mdx": "# Home\n[a](#colors---required) [b](#colors---badge-colorredrequiredbadge)\n\n### `colors` - <Badge color=\"red\">required</Badge>\n",
		}, errors: []want{{"tzdocs/index.mdx", 2, "broken-anchor", "the anchor #colors---badge-colorredrequiredbadge names no heading"}}},
		{name: "headings of an imported snippet are anchors", files: map[string]string{
			"tzdocs/index.mdx":         "import Part from '/snippets/part.mdx';\n\n# Home\n[a](#from-the-snippet)\n",
			"tzdocs/snippets/part.mdx": "## From the snippet\n",
		}},
		{name: "unlisted files, a shadowed .md, hidden folders and node_modules", files: map[string]string{
			"tzdocs/notes/draft.md":      "# Draft\n",
			"tzdocs/guides/setup.md":     "# Old setup\n",
			"tzdocs/.git/x.md":           "# hidden\n",
			"tzdocs/node_modules/p/x.md": "# dependency\n",
		}, warnings: []want{
			{"tzdocs/guides/setup.md", 1, "unlisted-file", "read from guides/setup.mdx"},
			{"tzdocs/notes/draft.md", 1, "unlisted-file", "list it under navigation"},
		}},
		{name: "CTX-08 findings are warnings, with the code-name list", args: []string{"--code-names", "NAMES"}, files: map[string]string{
			"tzdocs/guides/index.md": "---\ntitle: Guides\n---\n# Guides\nBuilt by Hydra, see internal/store/x.go.\n\n## Overview\n",
			"NAMES":                  "# code names\nhydra\n\n",
		}, warnings: []want{
			{"tzdocs/guides/index.md", 5, "ctx-08-code-name", "Hydra"},
			{"tzdocs/guides/index.md", 5, "ctx-08-repo-path", "internal/store/x.go"},
		}},
		{name: "an ingest error is an error with its file and line", files: map[string]string{
			"tzdocs/docs.json": "{\"navigation\":{\"pages\":[\n  \"index\",\n  \"guides/index\",\n  \"guides/nofile\"]}}",
		}, errors: []want{{"tzdocs/docs.json", 4, "ingest", `at /navigation/pages/2: page "guides/nofile" has no file`}}},
		{name: "a schema refusal is an ingest error", files: map[string]string{
			"tzdocs/docs.json": "{\"navigation\":{\"pages\":[\"index\"]},\n \"name\": 3}",
		}, errors: []want{{"tzdocs/docs.json", 2, "ingest", "see the manifest_schema entry of the catalog"}}},
		{name: "a control character is an ingest error at its line", files: map[string]string{
			"tzdocs/guides/setup.mdx": "# Setup\nok\nbad \x1b here\n",
		}, errors: []want{{"tzdocs/guides/setup.mdx", 3, "ingest", "control character U+001B"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := t.TempDir()
			testkit.WriteFiles(t, site, lintSite)
			testkit.WriteFiles(t, site, tt.files)
			os.Remove(filepath.Join(site, "NAMES"))
			args := []string{"check", site, "--json"}
			for _, a := range tt.args {
				if a == "NAMES" {
					f := filepath.Join(t.TempDir(), "names")
					if err := os.WriteFile(f, []byte(tt.files["NAMES"]), 0o644); err != nil {
						t.Fatal(err)
					}
					a = f
				}
				args = append(args, a)
			}
			r := runCLI(t, t.TempDir(), args...)
			var got finding.Report
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("--json output is not JSON (%v):\n%s\nstderr: %s", err, r.stdout, r.stderr)
			}
			if (len(tt.errors) > 0) != (r.err != nil) {
				t.Errorf("exit error %v with %d errors expected", r.err, len(tt.errors))
			}
			compare := func(kind string, got []finding.Finding, want []want) {
				sort.Slice(got, func(i, j int) bool {
					if got[i].File != got[j].File {
						return got[i].File < got[j].File
					}
					return got[i].Line < got[j].Line || got[i].Line == got[j].Line && got[i].Rule < got[j].Rule
				})
				if len(got) != len(want) {
					t.Fatalf("%s: got %d, want %d:\n%s", kind, len(got), len(want), r.stdout)
				}
				for i, w := range want {
					g := got[i]
					if g.File != w.file || g.Line != w.line || g.Rule != w.rule || !strings.Contains(g.Message, w.says) {
						t.Errorf("%s %d: got %s, want %s:%d: %s: …%s…", kind, i, g, w.file, w.line, w.rule, w.says)
					}
				}
			}
			compare("errors", got.Errors, tt.errors)
			compare("warnings", got.Warnings, tt.warnings)
		})
	}
}

// TestCheckExitCodes checks how check ends: errors fail it, warnings only
// with --strict, and the text output is one FILE:LINE: RULE: MESSAGE line
// per finding.
func TestCheckExitCodes(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, lintSite)
	data := t.TempDir()

	r := mustCLI(t, data, "check", site)
	if r.stdout != "0 errors, 0 warnings\n" {
		t.Errorf("a clean site printed %q", r.stdout)
	}
	mustCLI(t, data, "check", "--tree", "tzdocs="+filepath.Join(site, "tzdocs"), "--strict")

	testkit.WriteFiles(t, site, map[string]string{"tzdocs/draft.mdx": "# Draft\n"})
	r = mustCLI(t, data, "check", site)
	if !strings.Contains(r.stdout, "tzdocs/draft.mdx:1: unlisted-file: ") || !strings.HasSuffix(r.stdout, "0 errors, 1 warnings\n") {
		t.Errorf("a warning printed %q", r.stdout)
	}
	r = runCLI(t, data, "check", site, "--strict")
	if !errors.Is(r.err, ErrCheckFailed) {
		t.Errorf("--strict with a warning: error %v, want ErrCheckFailed", r.err)
	}

	testkit.WriteFiles(t, site, map[string]string{"tzdocs/index.mdx": "# Home\n[x](/gone)\n"})
	r = runCLI(t, data, "check", site)
	if !errors.Is(r.err, ErrCheckFailed) || !strings.Contains(r.stdout, "tzdocs/index.mdx:2: broken-link: ") {
		t.Errorf("a broken link: error %v, output %q", r.err, r.stdout)
	}
	r = runCLI(t, data, "check", site, "--json")
	var raw map[string][]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if len(raw) != 2 || len(raw["errors"]) != 1 || len(raw["warnings"]) != 1 {
		t.Fatalf("--json holds %v, want errors and warnings, one each", raw)
	}
	for _, k := range []string{"file", "line", "rule", "message"} {
		if _, ok := raw["errors"][0][k]; !ok || len(raw["errors"][0]) != 4 {
			t.Errorf("a finding %v lacks %s, or holds more than file, line, rule and message", raw["errors"][0], k)
		}
	}
	if !errors.Is(r.err, ErrCheckFailed) {
		t.Errorf("--json with an error: error %v, want ErrCheckFailed", r.err)
	}

	for _, bad := range [][]string{
		{"check", site, "--tree", "tzdocs=" + site},
		{"check", "--tree", "tzdocs"},
		{"check", site, "--code-names", filepath.Join(site, "absent")},
		{"check", site, "--max-page-bytes", "0"},
	} {
		if r := runCLI(t, data, bad...); r.err == nil || errors.Is(r.err, ErrCheckFailed) {
			t.Errorf("tzctx %v: error %v, want a usage error", bad, r.err)
		}
	}
	if dirNames(t, filepath.Join(data, "versions")) != nil {
		t.Error("check wrote a version")
	}
}

// TestCheckLinksLevel checks --links: broken links and anchors are errors
// by default and with error, warnings with warn, and left out with off;
// other findings stay what they were, and an unknown level is a usage
// error naming the levels.
func TestCheckLinksLevel(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, lintSite)
	testkit.WriteFiles(t, site, map[string]string{
		"tzdocs/index.mdx": "# Home\n[x](/gone) [y](#nowhere)\n",
		"tzdocs/draft.mdx": "# Draft\n",
	})
	data := t.TempDir()
	rules := func(fs []finding.Finding) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rule)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	for _, tt := range []struct {
		args             []string
		errors, warnings string
		fails            bool
	}{
		{nil, "broken-anchor,broken-link", "unlisted-file", true},
		{[]string{"--links", "error"}, "broken-anchor,broken-link", "unlisted-file", true},
		{[]string{"--links=warn"}, "", "broken-anchor,broken-link,unlisted-file", false},
		{[]string{"--links=off"}, "", "unlisted-file", false},
	} {
		r := runCLI(t, data, append([]string{"check", site, "--json"}, tt.args...)...)
		var got finding.Report
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%v: --json: %v\n%s\nstderr: %s", tt.args, err, r.stdout, r.stderr)
		}
		if e, w := rules(got.Errors), rules(got.Warnings); e != tt.errors || w != tt.warnings {
			t.Errorf("%v: errors [%s], warnings [%s]; want [%s], [%s]", tt.args, e, w, tt.errors, tt.warnings)
		}
		if failed := errors.Is(r.err, ErrCheckFailed); failed != tt.fails {
			t.Errorf("%v: exit error %v, want failure %v", tt.args, r.err, tt.fails)
		}
	}
	if r := runCLI(t, data, "check", site, "--links=warn", "--strict"); !errors.Is(r.err, ErrCheckFailed) {
		t.Errorf("--links=warn --strict with broken links: error %v, want ErrCheckFailed", r.err)
	}
	r := runCLI(t, data, "check", site, "--links=loud")
	if r.err == nil || errors.Is(r.err, ErrCheckFailed) || !strings.Contains(r.err.Error(), "--links") || !strings.Contains(r.err.Error(), "off (not reported), warn (warnings) or error") {
		t.Errorf("--links=loud: error %v, want a usage error naming the levels", r.err)
	}
}

// TestCheckContracts checks tzctx check without a site: the embedded
// contract set passes, and a copy with a file the index names removed, or
// a file the index omits added, fails naming it.
func TestCheckContracts(t *testing.T) {
	r := mustCLI(t, t.TempDir(), "check")
	if r.stdout != "0 errors, 0 warnings\n" {
		t.Errorf("the embedded contract set: %q", r.stdout)
	}
	root := filepath.Join("..", "..")
	copySet := func(t *testing.T) string {
		dir := t.TempDir()
		testkit.CopyTree(t, filepath.Join(root, "contracts"), filepath.Join(dir, "contracts"))
		testkit.CopyTree(t, filepath.Join(root, "schemas"), filepath.Join(dir, "schemas"))
		return dir
	}
	dir := copySet(t)
	mustCLI(t, t.TempDir(), "check", "--contracts", dir)

	if err := os.Remove(filepath.Join(dir, "contracts", "overview.md")); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, t.TempDir(), "check", "--contracts", dir)
	if !errors.Is(r.err, ErrCheckFailed) || !strings.Contains(r.stdout, "contracts/overview.md: ctx-01-missing: ") {
		t.Errorf("a missing file: error %v, output %q", r.err, r.stdout)
	}

	dir = copySet(t)
	testkit.WriteFiles(t, dir, map[string]string{"schemas/extra.json": "{}"})
	r = runCLI(t, t.TempDir(), "check", "--contracts", dir, "--json")
	if !errors.Is(r.err, ErrCheckFailed) || !strings.Contains(r.stdout, `"file": "schemas/extra.json"`) || !strings.Contains(r.stdout, `"rule": "ctx-01-unindexed"`) {
		t.Errorf("an extra file: error %v, output %s", r.err, r.stdout)
	}
}

// TestCheckSampleSite holds the sample site to no error: its links and
// anchors resolve.
func TestCheckSampleSite(t *testing.T) {
	r := runCLI(t, t.TempDir(), "check", testkit.SampleSite(t), "--json")
	var got finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if r.err != nil || len(got.Errors) > 0 {
		t.Errorf("the sample site has errors (%v):\n%s", r.err, r.stdout)
	}
}

// TestCheckCorpora lints the real corpora: the check passes ingest's
// checks on each and reports findings, each with a file inside the corpus
// and a line. It runs the binary, so that the corpora's pages do not swell
// this process, whose size the memory tests' children inherit.
func TestCheckCorpora(t *testing.T) {
	tier.Long(t, "lints four real documentation sets with a tzctx child process")
	testkit.Corpora(t)
	bin := buildBinary(t)
	for _, c := range []string{"browser-use-docs", "mcp-docs", "mintlify-docs", "powershell-docs"} {
		t.Run(c, func(t *testing.T) {
			dir := testkit.Corpus(t, c)
			cmd := exec.Command(bin, "--data", t.TempDir(), "check", "--tree", "tzdocs="+dir, "--json")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			var got finding.Report
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("--json: %v\n%.2000s\nstderr: %s", err, out, stderr.String())
			}
			counts := map[string]int{}
			for _, f := range append(got.Errors, got.Warnings...) {
				counts[f.Rule]++
				if f.Rule == lint.RuleIngest {
					t.Errorf("ingest refuses the corpus: %s", f)
				}
				if f.Line < 1 || !strings.HasPrefix(f.File, filepath.ToSlash(dir)+"/") {
					t.Errorf("finding %s lacks a line or a file inside the corpus", f)
				}
			}
			if (err != nil) != (len(got.Errors) > 0) {
				t.Errorf("exit %v with %d errors", err, len(got.Errors))
			}
			t.Logf("%s: %v", c, counts)
		})
	}
}

// TestCheckDocsHouseRulesOnlyWhenAsked: on a VitePress tree check resolves
// an anchor by VitePress's slug rule, holds the pages to the house rules
// (CTX-08) only with --rules ctx-08, and does not report another locale's
// files as unlisted.
func TestCheckDocsHouseRulesOnlyWhenAsked(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"docs/.vitepress/config.ts":    "export default { locales: { root: { label: 'English' }, fr: { label: 'Français' } }, themeConfig: { sidebar: [ { text: 'Guide', items: [ { text: 'Features', link: '/guide/features' }, { text: 'Build', link: '/config/build-options' } ] } ] } }\n",
		"docs/guide/features.md":       "# Features\nSee [target](/config/build-options#build-target); the code is in src/main.rs.\n",
		"docs/config/build-options.md": "# Build\n## build.target\n",
		"docs/fr/guide/features.md":    "# Fonctionnalités\n",
	})
	dir := filepath.Join(site, "docs")
	r := runCLI(t, t.TempDir(), "check", "--tree", "tzdocs="+dir)
	if r.err != nil || strings.Contains(r.stdout, "broken-anchor") || strings.Contains(r.stdout, "ctx-08") || strings.Contains(r.stdout, "unlisted") {
		t.Errorf("check without --rules: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	r = runCLI(t, t.TempDir(), "check", "--tree", "tzdocs="+dir, "--rules", "ctx-08")
	if !strings.Contains(r.stdout, "ctx-08-repo-path") {
		t.Errorf("check --rules ctx-08 does not report the repository path:\n%s%s", r.stdout, r.stderr)
	}
	r = runCLI(t, t.TempDir(), "check", "--tree", "tzdocs="+dir, "--rules", "house")
	if r.err == nil || !strings.Contains(r.err.Error(), "ctx-08") {
		t.Errorf("--rules house: %v, want a refusal naming ctx-08", r.err)
	}
}

// TestCheckDocusaurusLinks: on a Docusaurus tree check resolves a file
// link from the docs root and a route under routeBasePath as Docusaurus
// does, reports a fragment that names no heading, and does not report a
// "_" partial or a versioned doc as unlisted.
func TestCheckDocusaurusLinks(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"docusaurus.config.js":              "module.exports = { presets: [['classic', { docs: { sidebarPath: './sidebars.js' } }]] }\n",
		"sidebars.js":                       "module.exports = { docs: ['intro', 'api/store', 'usage/Troubleshooting'] }\n",
		"docs/intro.md":                     "# Intro\nSee [dispatch](/docs/api/store#dispatchaction).\n",
		"docs/api/Store.md":                 "---\nid: store\n---\n# Store\n### dispatch(action)\n",
		"docs/usage/Troubleshooting.md":     "# Troubleshooting\nCall [`dispatch`](api/Store.md#dispatchaction), not [this](api/Store.md#dispatch).\n",
		"docs/_Partial.mdx":                 "A partial.\n",
		"versioned_docs/version-1/intro.md": "# Intro 1\n",
	})
	r := runCLI(t, t.TempDir(), "check", "--tree", "tzdocs="+site)
	if strings.Count(r.stdout, "broken-") != 1 || !strings.Contains(r.stdout, "Troubleshooting.md:2: broken-anchor: the anchor #dispatch names no heading") || strings.Contains(r.stdout, "unlisted") {
		t.Errorf("check: want one broken anchor, #dispatch, and nothing unlisted; got %v\n%s%s", r.err, r.stdout, r.stderr)
	}
}
