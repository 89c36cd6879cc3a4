package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// TestSlugRules holds each generator's slug rule to the anchor its own
// slugger gives a heading text.
func TestSlugRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format, text, want string
	}{
		{"vitepress", "build.target", "build-target"},
		{"vitepress", "optimizeDeps.include <NonInheritBadge />", "optimizedeps-include"},
		{"vitepress", "2. Résumé & more", "_2-resume-more"},
		{"mkdocs", "Install  --  FastAPI", "install-fastapi"},
		{"mkdocs", "Café déjà vu", "cafe-deja-vu"},
		{"mdbook", "Where’s the `->` Operator?", "wheres-the---operator"},
		{"docusaurus", "dispatch(action)", "dispatchaction"},
		{"starlight", "Hello, World!", "hello-world"},
	} {
		rules, _ := rulesFor(c.format)
		if got := rules.slug(slugText(c.text)); got != c.want {
			t.Errorf("%s slug of %q = %q, want %q", c.format, c.text, got, c.want)
		}
	}
}

// fixturePage is one page of a resolver fixture: its path, file and copy.
type fixturePage struct{ path, file, copy string }

func fixtureResolver(t *testing.T, format string, site siteFacts, pages []fixturePage) *Resolver {
	t.Helper()
	rules, _ := rulesFor(format)
	var lps []linkPage
	for _, fp := range pages {
		m := textmap.Scan(fp.copy)
		p := &loadedPage{Page: tzctx.Page{Path: fp.path, Route: tzctx.RouteOf("d", fp.path)}, copy: fp.copy, scan: m, file: fp.file, headings: outlineHeadings(m)}
		lps = append(lps, linkPageOf(context.Background(), rules, nil, DefaultMaxPageBytes, p))
	}
	return newResolver(format, "d", site, lps)
}

// TestResolveLinkForms resolves each link form a generator resolves to the
// served route and the outline's anchor, and leaves what resolves to
// nothing as it is.
func TestResolveLinkForms(t *testing.T) {
	t.Parallel()
	type want struct {
		from, target string
		status       LinkStatus
		served       string
	}
	for _, c := range []struct {
		name, format, root, routeBase, siteBase string
		version                                 source.Other
		pages                                   []fixturePage
		others                                  []source.Other
		redirects                               []source.Redirect
		links                                   []want
	}{
		{name: "vitepress", format: "vitepress", root: "docs", pages: []fixturePage{
			{"index", "docs/index.md", "# Home\n"},
			{"guide/features", "docs/guide/features.md", "# Features\n## CSS Modules\n"},
			{"config/build-options", "docs/config/build-options.md", "# Build\n## build.target\n## build.target\n"},
		}, others: []source.Other{{Folder: "docs/fr", Route: "fr"}}, links: []want{
			{"docs/guide/features.md", "/config/build-options.md#build-target", LinkPage, "/d/config/build-options/#buildtarget"},
			{"docs/guide/features.md", "/config/build-options#build-target-1", LinkPage, "/d/config/build-options/#buildtarget-1"},
			{"docs/guide/features.md", "../config/build-options.html#build-target", LinkPage, "/d/config/build-options/#buildtarget"},
			{"docs/guide/features.md", "./features#css-modules", LinkPage, "/d/guide/features/#css-modules"},
			{"docs/guide/features.md", "#css-modules", LinkPage, "/d/guide/features/#css-modules"},
			{"docs/guide/features.md", "/", LinkPage, "/d/"},
			{"docs/guide/features.md", "/config/build-options#nothing", LinkNoAnchor, "/d/config/build-options/#nothing"},
			{"docs/guide/features.md", "/fr/guide/features", LinkElsewhere, ""},
			{"docs/guide/features.md", "/gone", LinkBroken, ""},
			{"docs/guide/features.md", "https://vite.dev/guide/", LinkElsewhere, ""},
			{"docs/guide/features.md", "/logo.svg", LinkElsewhere, ""},
		}},
		{name: "docusaurus: relative, docs root, route by id", format: "docusaurus", root: "docs", routeBase: "docs", pages: []fixturePage{
			{"api/store", "docs/api/Store.md", "# Store\n### dispatch(action)\n"},
			{"usage/troubleshooting", "docs/usage/Troubleshooting.md", "# Troubleshooting\n"},
		}, links: []want{
			{"docs/usage/Troubleshooting.md", "api/Store.md#dispatchaction", LinkPage, "/d/api/store/#dispatchaction"},
			{"docs/usage/Troubleshooting.md", "../api/Store.md", LinkPage, "/d/api/store/"},
			{"docs/usage/Troubleshooting.md", "/api/store#dispatchaction", LinkPage, "/d/api/store/#dispatchaction"},
			{"docs/usage/Troubleshooting.md", "../api/store", LinkPage, "/d/api/store/"},
			{"docs/usage/Troubleshooting.md", "/docs/api/store#dispatchaction", LinkPage, "/d/api/store/#dispatchaction"},
			{"docs/usage/Troubleshooting.md", "Nope.md", LinkBroken, ""},
			{"docs/usage/Troubleshooting.md", "./api/Store.md", LinkBroken, ""},
		}},
		{name: "mkdocs: attribute-list ids, directory URLs", format: "mkdocs", root: "docs", pages: []fixturePage{
			{"index", "docs/index.md", "# FastAPI { #fastapi }\n## Install { #install }\n## Run it\n## Run it\n"},
			{"tutorial/first-steps", "docs/tutorial/first-steps.md", "# First Steps\n"},
		}, links: []want{
			{"docs/tutorial/first-steps.md", "../index.md#install", LinkPage, "/d/#install--install-"},
			{"docs/tutorial/first-steps.md", "../index.md#run-it_1", LinkPage, "/d/#run-it-1"},
			{"docs/tutorial/first-steps.md", "../../#run-it", LinkPage, "/d/#run-it"},
			{"docs/tutorial/first-steps.md", "../#run-it", LinkBroken, ""},
			{"docs/index.md", "tutorial/first-steps.md", LinkPage, "/d/tutorial/first-steps/"},
			{"docs/index.md", "tutorial/first-steps/", LinkPage, "/d/tutorial/first-steps/"},
		}},
		{name: "mdbook: .html, block-quote headings, redirects, leaving the book", format: "mdbook", root: "src", redirects: []source.Redirect{{Source: "/ch04-old", Destination: "ch04"}}, pages: []fixturePage{
			{"ch04", "src/ch04.md", "# Ownership\n> ### The Stack and the Heap\n<!-- Old headings. -->\n<a id=\"old-rules\"></a>\n\n## Rules\n<a id=\"stray\"></a>\ntext\n## More\n"},
			{"ch03", "src/ch03.md", "# Types\n"},
		}, links: []want{
			{"src/ch03.md", "ch04.html#the-stack-and-the-heap", LinkPage, "/d/ch04/#the-stack-and-the-heap"},
			{"src/ch03.md", "ch04.md#rules", LinkPage, "/d/ch04/#rules"},
			{"src/ch03.md", "ch04.md#old-rules", LinkPage, "/d/ch04/#rules"},
			{"src/ch03.md", "ch04.md#stray", LinkPage, "/d/ch04/#stray"},
			{"src/ch03.md", "../std/index.html", LinkElsewhere, ""},
			{"src/ch03.md", "ch04-old.html#rules", LinkPage, "/d/ch04/#rules"},
		}},
		{name: "docusaurus read at its last version", format: "docusaurus", root: "versioned_docs/version-3.x", routeBase: "docs", version: source.Other{Version: "3.x"}, pages: []fixturePage{
			{"intro", "versioned_docs/version-3.x/intro.md", "# Intro\n"},
			{"api/store", "versioned_docs/version-3.x/api/Store.md", "# Store\n### dispatch(action)\n"},
		}, others: []source.Other{{Folder: "docs", Route: "next", Version: "current"}, {Folder: "versioned_docs/version-2.x", Route: "2.x", Version: "2.x"}, {Folder: "i18n/fr", Route: "fr"}}, links: []want{
			{"versioned_docs/version-3.x/intro.md", "/docs/intro", LinkPage, "/d/intro/"},
			{"versioned_docs/version-3.x/intro.md", "/docs/next/intro", LinkPage, "/d/intro/"},
			{"versioned_docs/version-3.x/intro.md", "/docs/2.x/api/store#dispatchaction", LinkPage, "/d/api/store/#dispatchaction"},
			{"versioned_docs/version-3.x/intro.md", "/docs/2.x/removed", LinkOtherVersion, ""},
			{"versioned_docs/version-3.x/intro.md", "/docs/next", LinkOtherVersion, ""},
			{"versioned_docs/version-3.x/intro.md", "/docs/gone", LinkBroken, ""},
			{"versioned_docs/version-3.x/intro.md", "/blog/post", LinkBroken, ""},
			{"versioned_docs/version-3.x/intro.md", "/fr/docs/intro", LinkElsewhere, ""},
		}},
		{name: "docusaurus read at an older version", format: "docusaurus", root: "versioned_docs/version-2.x", routeBase: "docs", version: source.Other{Route: "2.x", Version: "2.x"}, pages: []fixturePage{
			{"intro", "versioned_docs/version-2.x/intro.md", "# Intro\n"},
		}, others: []source.Other{{Folder: "docs", Route: "next", Version: "current"}, {Folder: "versioned_docs/version-3.x", Route: "", Version: "3.x"}}, links: []want{
			{"versioned_docs/version-2.x/intro.md", "/docs/2.x/intro", LinkPage, "/d/intro/"},
			{"versioned_docs/version-2.x/intro.md", "/docs/intro", LinkPage, "/d/intro/"},
			{"versioned_docs/version-2.x/intro.md", "/docs/2.x/gone", LinkBroken, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/only-in-3", LinkOtherVersion, ""},
			{"versioned_docs/version-2.x/intro.md", "/blog/post", LinkBroken, ""},
		}},
		// The other versions' pages read: a link into one is told a page
		// of it, or broken where no page of it is there.
		{name: "docusaurus read at an older version, the others' pages read", format: "docusaurus", root: "versioned_docs/version-2.x", routeBase: "docs", version: source.Other{Route: "2.x", Version: "2.x"}, pages: []fixturePage{
			{"intro", "versioned_docs/version-2.x/intro.md", "# Intro\n"},
		}, others: []source.Other{{Folder: "docs", Route: "next", Version: "current", Pages: []string{"index", "next-only"}}, {Folder: "versioned_docs/version-3.x", Route: "", Version: "3.x", Pages: []string{"only-in-3", "api/index"}}}, links: []want{
			{"versioned_docs/version-2.x/intro.md", "/docs/only-in-3", LinkOtherVersion, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/api/", LinkOtherVersion, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/in-no-version", LinkBroken, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/next/next-only", LinkOtherVersion, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/next", LinkOtherVersion, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/next/only-in-3", LinkBroken, ""},
			{"versioned_docs/version-2.x/intro.md", "/docs/intro", LinkPage, "/d/intro/"},
		}},
		{name: "vitepress base", format: "vitepress", root: "docs", siteBase: "vite", pages: []fixturePage{
			{"index", "docs/index.md", "# Home\n"},
			{"guide/features", "docs/guide/features.md", "# Features\n## CSS Modules\n"},
		}, others: []source.Other{{Folder: "docs/fr", Route: "fr"}}, links: []want{
			// Markdown links: VitePress adds the base (TestResolveUnderSiteBase
			// holds the forms written with it).
			{"docs/index.md", "/guide/features", LinkPage, "/d/guide/features/"},
			{"docs/index.md", "/guide/features.md#css-modules", LinkPage, "/d/guide/features/#css-modules"},
			{"docs/index.md", "/fr/guide/features", LinkElsewhere, ""},
			{"docs/index.md", "/vitest/guide/features", LinkBroken, ""},
			{"docs/index.md", "/vite/gone", LinkBroken, ""},
		}},
		{name: "starlight base", format: "starlight", root: "src/content/docs", siteBase: "docs", pages: []fixturePage{
			{"guides/i18n", "src/content/docs/guides/i18n.mdx", "# i18n\n## Hello, World!\n"},
			{"index", "src/content/docs/index.mdx", "# Home\n"},
		}, others: []source.Other{{Folder: "src/content/docs/fr", Route: "fr"}}, links: []want{
			{"src/content/docs/index.mdx", "/docs/guides/i18n/#hello-world", LinkPage, "/d/guides/i18n/#hello-world"},
			{"src/content/docs/index.mdx", "/docs/fr/guides/i18n/", LinkElsewhere, ""},
		}},
		{name: "markdown at the tree folder's root", format: "markdown", pages: []fixturePage{
			{"guide/setup", "guide/setup.md", "# Setup\n## Install it\n"},
			{"index", "index.md", "# Home\n"},
		}, links: []want{
			{"index.md", "/guide/setup.md#install-it", LinkPage, "/d/guide/setup/#install-it"},
			{"index.md", "guide/setup.md", LinkPage, "/d/guide/setup/"},
			{"guide/setup.md", "../index.md", LinkPage, "/d/"},
		}},
		{name: "starlight: routes only, other locales", format: "starlight", root: "src/content/docs", pages: []fixturePage{
			{"guides/i18n", "src/content/docs/guides/i18n.mdx", "# i18n\n## Hello, World!\n"},
			{"getting-started", "src/content/docs/getting-started.mdx", "# Start\n"},
			{"index", "src/content/docs/index.mdx", "# Home\n"},
		}, others: []source.Other{{Folder: "src/content/docs/fr", Route: "fr"}}, links: []want{
			// A browser resolves ".." no higher than the site's root.
			{"src/content/docs/index.mdx", "../guides/i18n/", LinkPage, "/d/guides/i18n/"},
			{"src/content/docs/getting-started.mdx", "/guides/i18n/#hello-world", LinkPage, "/d/guides/i18n/#hello-world"},
			{"src/content/docs/guides/i18n.mdx", "../../getting-started/", LinkPage, "/d/getting-started/"},
			{"src/content/docs/getting-started.mdx", "/fr/guides/i18n/", LinkElsewhere, ""},
			{"src/content/docs/getting-started.mdx", "guides/i18n.mdx", LinkBroken, ""},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fixtureResolver(t, c.format, siteFacts{root: c.root, others: c.others, routeBase: c.routeBase, siteBase: c.siteBase, redirects: c.redirects, version: c.version}, c.pages)
			for _, l := range c.links {
				res := r.Resolve(l.from, l.target)
				got := ""
				if res.Status == LinkPage || res.Status == LinkNoAnchor {
					got = res.Target()
				}
				if res.Status != l.status || got != l.served {
					t.Errorf("%s from %s: status %d, served %q; want %d, %q", l.target, l.from, res.Status, got, l.status, l.served)
				}
			}
		})
	}
}

// TestRewriteLinks rewrites the links of a copy in place, leaving code,
// comments, headings and what resolves to nothing as written.
func TestRewriteLinks(t *testing.T) {
	t.Parallel()
	r := fixtureResolver(t, "vitepress", siteFacts{root: "docs"}, []fixturePage{
		{"guide/index", "docs/guide/index.md", "# Guide\n"},
		{"config/shared-options", "docs/config/shared-options.md", "# Shared\n## base\n"},
	})
	in := "See [base](/config/shared-options.md#base) and [gone](/gone).\n" +
		"`[code](/config/shared-options.md)`\n```\n[fenced](/config/shared-options.md)\n```\n" +
		"## [In a heading](/config/shared-options.md)\n[ref]: ../config/shared-options <title>\n" +
		"[angle](<../config/shared-options.md> \"t\")\n"
	want := "See [base](/d/config/shared-options/#base) and [gone](/gone).\n" +
		"`[code](/config/shared-options.md)`\n```\n[fenced](/config/shared-options.md)\n```\n" +
		"## [In a heading](/config/shared-options.md)\n[ref]: /d/config/shared-options/ <title>\n" +
		"[angle](/d/config/shared-options/ \"t\")\n"
	if got := rewriteLinks(r, "docs/guide/index.md", in, textmap.Scan(in)); got != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	if got := rewriteLinks(r, "docs/guide/index.md", "no links\n", textmap.Scan("no links\n")); !strings.EqualFold(got, "no links\n") {
		t.Errorf("a copy without links changed: %q", got)
	}
}

// TestGatherLinksStopsWhenCancelled: the pass that reads every page for
// its anchors checks its context before each page.
func TestGatherLinksStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := sitefs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := &loadedTree{name: "d", format: "markdown"}
	pages := []source.Page{{Path: "a", File: "a.md"}}
	if _, err := gatherLinks(ctx, tr, f, TreeSource{Name: "d", Dir: dir}, pages, Options{MaxPageBytes: DefaultMaxPageBytes}); !errors.Is(err, context.Canceled) {
		t.Errorf("gatherLinks with a cancelled context: %v, want context.Canceled", err)
	}
	r, err := gatherLinks(context.Background(), tr, f, TreeSource{Name: "d", Dir: dir}, pages, Options{MaxPageBytes: DefaultMaxPageBytes})
	if err != nil || r == nil {
		t.Errorf("gatherLinks: %v, %v", r, err)
	}
	if r, err := gatherLinks(ctx, &loadedTree{name: "d", format: "mintlify"}, f, TreeSource{}, pages, Options{}); r != nil || err != nil {
		t.Errorf("a Mintlify tree gets a resolver (%v) or an error (%v); its links are served as written, unread", r, err)
	}
}

// TestResolveUnderSiteBase: on a site deployed under a base, a link
// resolves as the generator renders it. Astro adds the base to no link:
// one written with it names the page, Markdown link or tag alike, and one
// written without it is a 404 on the site, broken, with the form that
// works. VitePress adds the base to every absolute Markdown link: one
// written without it names the page, one written with it is broken (the
// base twice), with the form that works; a tag's href is VitePress's to
// leave as written (raw HTML) or its component's to prefix (VPLink), so
// both forms name the page.
func TestResolveUnderSiteBase(t *testing.T) {
	// baseLink is one link of the fixture: written in a tag or not, what
	// it resolves to and the form the lint offers.
	type baseLink struct {
		target      string
		tag         bool
		status      LinkStatus
		served, fix string
	}
	for _, c := range []struct {
		name, format, root, base string
		pages                    []fixturePage
		from                     string
		links                    []baseLink
	}{
		{"starlight", "starlight", "src/content/docs", "docs", []fixturePage{
			{"guides/i18n", "src/content/docs/guides/i18n.mdx", "# i18n\n## Hello, World!\n"},
			{"index", "src/content/docs/index.mdx", "# Home\n"},
		}, "src/content/docs/index.mdx", []baseLink{
			{"/docs/guides/i18n/#hello-world", false, LinkPage, "/d/guides/i18n/#hello-world", ""},
			{"/docs/guides/i18n/", true, LinkPage, "/d/guides/i18n/", ""},
			{"/docs/", false, LinkPage, "/d/", ""},
			{"/docs", true, LinkPage, "/d/", ""},
			{"/guides/i18n/#hello-world", false, LinkBroken, "", "/docs/guides/i18n/#hello-world"},
			{"/guides/i18n/", true, LinkBroken, "", "/docs/guides/i18n/"},
			{"/guides/gone/", false, LinkBroken, "", ""},
			{"/favicon.svg", true, LinkElsewhere, "", ""},
			{"../guides/i18n/", false, LinkPage, "/d/guides/i18n/", ""},
		}},
		{"vitepress", "vitepress", "docs", "vite", []fixturePage{
			{"index", "docs/index.md", "# Home\n"},
			{"guide/features", "docs/guide/features.md", "# Features\n## CSS Modules\n"},
		}, "docs/index.md", []baseLink{
			{"/guide/features#css-modules", false, LinkPage, "/d/guide/features/#css-modules", ""},
			{"/guide/features.md", false, LinkPage, "/d/guide/features/", ""},
			{"/vite/guide/features#css-modules", false, LinkBroken, "", "/guide/features#css-modules"},
			{"/vite/guide/features.md", false, LinkBroken, "", "/guide/features.md"},
			{"/vite/gone", false, LinkBroken, "", ""},
			{"/vite/guide/features#css-modules", true, LinkPage, "/d/guide/features/#css-modules", ""},
			{"/vite/guide/features.html", true, LinkPage, "/d/guide/features/", ""},
			{"/vite/", true, LinkPage, "/d/", ""},
			{"/vite", true, LinkPage, "/d/", ""},
			{"/guide/features", true, LinkPage, "/d/guide/features/", ""},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fixtureResolver(t, c.format, siteFacts{root: c.root, siteBase: c.base}, c.pages)
			for _, l := range c.links {
				res := r.ResolveLink(c.from, PageLink{Target: l.target, Attr: l.tag})
				got := ""
				if res.Status == LinkPage || res.Status == LinkNoAnchor {
					got = res.Target()
				}
				if res.Status != l.status || got != l.served || res.Fix != l.fix {
					t.Errorf("%s (tag %v): status %d, served %q, fix %q; want %d, %q, %q", l.target, l.tag, res.Status, got, res.Fix, l.status, l.served, l.fix)
				}
			}
		})
	}
}
