package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// checkFindings runs tzctx check --json on one tree and returns its errors
// and warnings, each as "FILE:LINE: RULE: MESSAGE" with FILE relative to
// the tree folder.
func checkFindings(t *testing.T, tree string, args ...string) (errs, warns []string) {
	t.Helper()
	r := runCLI(t, t.TempDir(), append([]string{"check", "--json", "--tree", "tzdocs=" + tree}, args...)...)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	show := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			rel, _ := filepath.Rel(tree, f.File)
			out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(f.Line)+": "+f.Rule+": "+f.Message)
		}
		return out
	}
	return show(rep.Errors), show(rep.Warnings)
}

// TestCheckAttributeListAnchor: an MkDocs heading whose attribute list
// sets an id its text does not slug to (FastAPI's "About
// `**user_in.model_dump()`" { #about-user-in-model-dump }) is named by
// that id: check reports no broken anchor (it reported one, offering the
// slug of the text, which no reader's link names).
func TestCheckAttributeListAnchor(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"mkdocs.yml":                    "nav:\n  - index.md\n  - tutorial/extra-models.md\n",
		"docs/index.md":                 "# Home\n\nSee [the models](tutorial/extra-models.md#about-user-in-model-dump).\n",
		"docs/tutorial/extra-models.md": "# Extra Models\n\n### About `**user_in.model_dump()` { #about-user-in-model-dump }\n\nText.\n",
	})
	if errs, _ := checkFindings(t, tree); len(errs) != 0 {
		t.Errorf("check reports:\n%s", strings.Join(errs, "\n"))
	}
}

// TestServedAttributeLinks: a Starlight tree's served page links pages
// through tags' attributes (a <LinkCard> written over several lines, an
// HTML <a href>, a Docusaurus-style <Link to={"…"}>): each is rewritten to
// the served route and the outline's anchor, and the route passed as page
// answers the page; an external href, a bound Vue :href, one in code and
// one to no page stay as written, and check reports the one to no page,
// at its line.
func TestServedAttributeLinks(t *testing.T) {
	site := t.TempDir()
	testkit.WriteFiles(t, site, map[string]string{
		"astro.config.mjs": "import starlight from '@astrojs/starlight';\nexport default { integrations: [starlight({ title: 'S' })] };\n",
		"src/content/docs/index.mdx": "---\ntitle: Home\n---\n\n<LinkCard\n\ttitle=\"Guide\"\n\thref=\"/guides/setup/\"\n/>\n\n" +
			"See <a href=\"/guides/setup/#hello-world\">hello</a>, <Link to={\"../guides/setup/\"}>setup</Link> and <a href=\"https://astro.build/\">Astro</a>.\n\n" +
			"<a :href=\"dep.url\">x</a> `<a href=\"/guides/setup/\">`\n\n<LinkButton href=\"/gone/\">Gone</LinkButton>\n",
		"src/content/docs/guides/setup.md": "---\ntitle: Setup\n---\n\n## Hello, World!\n\nText.\n",
	})
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+site, "--version", "v", "--activate")
	srv := startServer(t, data, testConfig(0))
	text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/"})
	for _, want := range []string{
		"\thref=\"/tzdocs/guides/setup/\"\n",
		"<a href=\"/tzdocs/guides/setup/#hello-world\">hello</a>",
		"<Link to={\"/tzdocs/guides/setup/\"}>setup</Link>",
		"<a href=\"https://astro.build/\">",
		"<a :href=\"dep.url\">x</a> `<a href=\"/guides/setup/\">`",
		"<LinkButton href=\"/gone/\">",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("served page:\n%s\nwant it to hold %q", text, want)
		}
	}
	mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/guides/setup/"})
	outline, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "part": "outline"})
	if !strings.Contains(outline, "(/tzdocs/guides/setup/#hello-world)") {
		t.Errorf("the outline does not list #hello-world:\n%s", outline)
	}
	errs, _ := checkFindings(t, site)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], `src/content/docs/index.mdx:14: broken-link: the link target "/gone/" names no page`) {
		t.Errorf("check: want one broken link, /gone/ at line 14; got\n%s", strings.Join(errs, "\n"))
	}
}

// TestServedLinksUnderSiteBase: a VitePress site deployed under base
// "/vite/" and a Starlight site under Astro's base "/docs" link pages
// with the base written in (an HTML href, a <LinkCard>, a Markdown link):
// each is rewritten to the served route, which answers as page, and check
// reports none of them.
func TestServedLinksUnderSiteBase(t *testing.T) {
	for _, c := range []struct {
		name, dir string
		files     map[string]string
		page      string
		want      []string
	}{
		{"vitepress", "docs", map[string]string{
			"docs/.vitepress/config.ts":    "export default { base: '/vite/', themeConfig: { sidebar: [ { text: 'Guide', items: [ { text: 'Features', link: '/guide/features' }, { text: 'Build', link: '/config/build-options' } ] } ] } }\n",
			"docs/guide/features.md":       "# Features\nSee <a href=\"/vite/config/build-options#build-target\">target</a> and [build](/config/build-options.md).\n",
			"docs/config/build-options.md": "# Build\n## build.target\n",
		}, "/tzdocs/guide/features/", []string{`<a href="/tzdocs/config/build-options/#buildtarget">`, "[build](/tzdocs/config/build-options/)"}},
		{"starlight", "", map[string]string{
			"astro.config.mjs":                 "import starlight from '@astrojs/starlight';\nexport default defineConfig({ base: '/docs', integrations: [starlight({ title: 'S' })] });\n",
			"src/content/docs/index.mdx":       "---\ntitle: Home\n---\n\n<LinkCard title=\"Setup\" href=\"/docs/guides/setup/\" />\n\nRead [setup](/docs/guides/setup/#hello-world).\n",
			"src/content/docs/guides/setup.md": "---\ntitle: Setup\n---\n\n## Hello, World!\n",
		}, "/tzdocs/", []string{`href="/tzdocs/guides/setup/"`, "[setup](/tzdocs/guides/setup/#hello-world)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, srv := servedPageHolds(t, c.files, c.dir, c.page, c.want)
			mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": strings.SplitN(strings.SplitN(c.want[0], `"`, 3)[1], "#", 2)[0]})
			if errs, _ := checkFindings(t, tree); len(errs) != 0 {
				t.Errorf("check reports:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// servedPageHolds writes files into a site folder, ingests its folder dir
// as tree tzdocs, serves it and checks that page's served text holds each
// of want; it returns the tree folder and the server.
func servedPageHolds(t *testing.T, files map[string]string, dir, page string, want []string) (string, *testServer) {
	t.Helper()
	site := t.TempDir()
	testkit.WriteFiles(t, site, files)
	tree := filepath.Join(site, dir)
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--version", "v", "--activate")
	srv := startServer(t, data, testConfig(0))
	text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": page})
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("served page:\n%s\nwant it to hold %q", text, w)
		}
	}
	return tree, srv
}

// TestServedLinksIntoVersions: a versioned Docusaurus site read at its
// default version (2.0, the first of versions.json) links into its
// versions by route: one into another version (/docs/next/…, /docs/1.0/…)
// whose page the read version has is rewritten to that page's served
// route, which answers as page; one to a page only another version has
// stays as written and check says so, naming the version and
// --docs-version, as a warning. Read at current (--docs-version
// current), its own /docs/next/… routes and the last version's /docs/…
// resolve alike.
func TestServedLinksIntoVersions(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docusaurus.config.js":                  "module.exports = {presets: [['classic', {docs: {}}]]}\n",
		"versions.json":                         `["2.0", "1.0"]`,
		"versioned_docs/version-2.0/intro.md":   "# Intro 2.0\n\nSee [next](/docs/next/guide), [one](/docs/1.0/guide), [old](/docs/1.0/removed) and [this](/docs/guide#setup).\n",
		"versioned_docs/version-2.0/guide.md":   "# Guide 2.0\n\n## Setup\n",
		"versioned_docs/version-1.0/guide.md":   "# Guide 1.0\n",
		"versioned_docs/version-1.0/removed.md": "# Removed\n",
		"docs/intro.md":                         "# Intro next\n\nSee [latest](/docs/guide#setup) and [self](/docs/next/guide).\n",
		"docs/guide.md":                         "# Guide next\n\n## Setup\n",
	})
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"default", nil, "See [next](/tzdocs/guide/), [one](/tzdocs/guide/), [old](/docs/1.0/removed) and [this](/tzdocs/guide/#setup)."},
		{"current", []string{"--docs-version", "current"}, "See [latest](/tzdocs/guide/#setup) and [self](/tzdocs/guide/)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			mustCLI(t, data, append([]string{"ingest", "--tree", "tzdocs=" + tree, "--version", "v", "--activate"}, c.args...)...)
			srv := startServer(t, data, testConfig(0))
			text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/intro/"})
			if !strings.Contains(text, c.want) {
				t.Errorf("served page:\n%s\nwant it to hold %q", text, c.want)
			}
			mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/guide/"})
			errs, warns := checkFindings(t, tree, c.args...)
			if len(errs) != 0 {
				t.Errorf("check errors:\n%s", strings.Join(errs, "\n"))
			}
			var other []string
			for _, w := range warns {
				if strings.Contains(w, ": other-version: ") {
					other = append(other, w)
				}
			}
			if c.name == "default" && (len(other) != 1 || !strings.HasPrefix(other[0], `versioned_docs/version-2.0/intro.md:3: other-version: the link target "/docs/1.0/removed" names a page of version 1.0`) || !strings.Contains(other[0], "--docs-version 1.0")) {
				t.Errorf("check: want one other-version warning for /docs/1.0/removed naming --docs-version 1.0; got\n%s", strings.Join(warns, "\n"))
			}
			if c.name == "current" && len(other) != 0 {
				t.Errorf("check at current: %s", strings.Join(other, "\n"))
			}
		})
	}
}

// TestCheckLinksUnderSiteBase: on a Starlight site under Astro's base
// "/docs", a link written without the base (a Markdown link, a
// <LinkCard>) is a 404 on the real site: the served text keeps it as
// written, and check reports it broken, naming the base and the form that
// works. On a VitePress site under base "/vite/", a Markdown link written
// without the base is rewritten (VitePress adds the base), and one written
// with it is broken (the base twice), naming the form that works.
func TestCheckLinksUnderSiteBase(t *testing.T) {
	for _, c := range []struct {
		name, dir string
		files     map[string]string
		page      string
		served    []string
		errs      []string
	}{
		{"starlight", "", map[string]string{
			"astro.config.mjs":                 "import starlight from '@astrojs/starlight';\nexport default defineConfig({ base: '/docs', integrations: [starlight({ title: 'S' })] });\n",
			"src/content/docs/index.mdx":       "---\ntitle: Home\n---\n\nRead [setup](/guides/setup/#hello-world) and [again](/docs/guides/setup/).\n\n<LinkCard title=\"Setup\" href=\"/guides/setup/\" />\n",
			"src/content/docs/guides/setup.md": "---\ntitle: Setup\n---\n\n## Hello, World!\n",
		}, "/tzdocs/", []string{"[setup](/guides/setup/#hello-world)", "[again](/tzdocs/guides/setup/)", `href="/guides/setup/"`}, []string{
			`src/content/docs/index.mdx:5: broken-link: the link target "/guides/setup/#hello-world" names no page: the site is deployed under the base /docs/, and starlight adds the base to no link (Astro leaves links as written), so the site serves nothing at a link written without it; write "/docs/guides/setup/#hello-world"`,
			`src/content/docs/index.mdx:7: broken-link: the link target "/guides/setup/" names no page: the site is deployed under the base /docs/, and starlight adds the base to no link (Astro leaves links as written), so the site serves nothing at a link written without it; write "/docs/guides/setup/"`,
		}},
		{"vitepress", "docs", map[string]string{
			"docs/.vitepress/config.ts":    "export default { base: '/vite/', themeConfig: { sidebar: [ { text: 'Guide', items: [ { text: 'Features', link: '/guide/features' }, { text: 'Build', link: '/config/build-options' } ] } ] } }\n",
			"docs/guide/features.md":       "# Features\nSee [build](/config/build-options#build-target) and [twice](/vite/config/build-options.md).\n",
			"docs/config/build-options.md": "# Build\n## build.target\n",
		}, "/tzdocs/guide/features/", []string{"[build](/tzdocs/config/build-options/#buildtarget)", "[twice](/vite/config/build-options.md)"}, []string{
			`guide/features.md:2: broken-link: the link target "/vite/config/build-options.md" names no page: the site is deployed under the base /vite/, and vitepress adds the base to every absolute Markdown link, so a link written with it names a page under the base twice; write "/config/build-options.md"`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, _ := servedPageHolds(t, c.files, c.dir, c.page, c.served)
			errs, _ := checkFindings(t, tree)
			if strings.Join(errs, "\n") != strings.Join(c.errs, "\n") {
				t.Errorf("check reports:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(c.errs, "\n"))
			}
		})
	}
}

// TestCheckLinksIntoOtherVersions: a versioned Docusaurus site read at an
// older version (--docs-version 1.0) links bare /docs/… routes, which the
// site serves from its last version (2.0): one the last version has is
// served as written with an other-version warning; one no version has is
// a plain broken link, as on the site; so is /docs/next/… where current
// has no such page.
func TestCheckLinksIntoOtherVersions(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docusaurus.config.js":                "module.exports = {presets: [['classic', {docs: {}}]]}\n",
		"versions.json":                       `["2.0", "1.0"]`,
		"versioned_docs/version-2.0/intro.md": "# Intro 2.0\n",
		"versioned_docs/version-2.0/added.md": "# Added in 2.0\n",
		"versioned_docs/version-1.0/intro.md": "# Intro 1.0\n\nSee [added](/docs/added), [nowhere](/docs/nowhere) and [next](/docs/next/gone).\n",
		"docs/intro.md":                       "# Intro next\n",
	})
	args := []string{"--docs-version", "1.0"}
	errs, warns := checkFindings(t, tree, args...)
	want := []string{
		`versioned_docs/version-1.0/intro.md:3: broken-link: the link target "/docs/nowhere" names no page: it is a route of version 2.0 of the site, which has no page there, nor has 1.0, the version this tree is read at; link a page of 1.0, or add the page`,
		`versioned_docs/version-1.0/intro.md:3: broken-link: the link target "/docs/next/gone" names no page: it is a route of version current of the site, which has no page there, nor has 1.0, the version this tree is read at; link a page of 1.0, or add the page`,
	}
	if len(errs) != len(want) {
		t.Errorf("check errors:\n%s\nwant %d", strings.Join(errs, "\n"), len(want))
	}
	for i := range min(len(errs), len(want)) {
		if errs[i] != want[i] {
			t.Errorf("check error %d:\n%s\nwant\n%s", i, errs[i], want[i])
		}
	}
	var other []string
	for _, w := range warns {
		if strings.Contains(w, ": other-version: ") {
			other = append(other, w)
		}
	}
	if len(other) != 1 || !strings.HasPrefix(other[0], `versioned_docs/version-1.0/intro.md:3: other-version: the link target "/docs/added" names a page of version 2.0`) {
		t.Errorf("check: want one other-version warning, for /docs/added; got\n%s", strings.Join(warns, "\n"))
	}
	data := t.TempDir()
	mustCLI(t, data, append([]string{"ingest", "--tree", "tzdocs=" + tree, "--version", "v", "--activate"}, args...)...)
	srv := startServer(t, data, testConfig(0))
	text, _ := readWhole(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/intro/"})
	if w := "See [added](/docs/added), [nowhere](/docs/nowhere) and [next](/docs/next/gone)."; !strings.Contains(text, w) {
		t.Errorf("served page:\n%s\nwant it to hold %q", text, w)
	}
}
