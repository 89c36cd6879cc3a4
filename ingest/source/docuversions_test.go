package source

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestDocusaurusVersionRoutes: a Docusaurus tree names the version it is
// read at and the routes the site serves each other version and locale
// under, as Docusaurus's getVersionPathPart gives them: the last version
// at routeBasePath itself, current at "next", another at its name, a
// versions.NAME.path in its place; current is left out where
// includeCurrentVersion is false; a site without versions.json is
// current at routeBasePath.
func TestDocusaurusVersionRoutes(t *testing.T) {
	plain := "module.exports = {presets: [['classic', {docs: {sidebarPath: require.resolve('./sidebars.js')}}]]}\n"
	paths := "module.exports = {i18n: {defaultLocale: 'en', locales: ['en', 'fr']}, presets: [['classic', {docs: {lastVersion: '1.0', versions: {current: {path: 'dev'}, '2.0': {path: '/two/'}}, sidebarPath: require.resolve('./sidebars.js')}}]]}\n"
	noCurrent := "module.exports = {presets: [['classic', {docs: {includeCurrentVersion: false, sidebarPath: require.resolve('./sidebars.js')}}]]}\n"
	for _, c := range []struct {
		name, config, version string
		self                  string
		others                string
	}{
		{"default", plain, "", "{website/versioned_docs/version-2.0  2.0}", "[{website/docs next current} {website/versioned_docs/version-1.0 1.0 1.0}]"},
		{"current on request", plain, "current", "{website/docs next current}", "[{website/versioned_docs/version-2.0  2.0} {website/versioned_docs/version-1.0 1.0 1.0}]"},
		{"an older version on request", plain, "1.0", "{website/versioned_docs/version-1.0 1.0 1.0}", "[{website/docs next current} {website/versioned_docs/version-2.0  2.0}]"},
		{"paths, locales, lastVersion", paths, "", "{website/versioned_docs/version-1.0  1.0}", "[{website/i18n/fr fr } {website/docs dev current} {website/versioned_docs/version-2.0 two 2.0}]"},
		{"no current", noCurrent, "2.0", "{website/versioned_docs/version-2.0  2.0}", "[{website/versioned_docs/version-1.0 1.0 1.0}]"},
	} {
		dir := folder(t, docuVersioned(c.config))
		tree, err := Docusaurus{}.Read(context.Background(), dir, Options{DocsVersion: c.version})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var versions []string
		for _, o := range tree.Others {
			if o.Route != "" || o.Version != "" {
				versions = append(versions, routeOf(o))
			}
		}
		if tree.Version.Pages != nil {
			t.Errorf("%s: the version read lists its pages apart: %v", c.name, tree.Version.Pages)
		}
		if got := routeOf(tree.Version); got != c.self {
			t.Errorf("%s: Version %s, want %s", c.name, got, c.self)
		}
		if got := fmt.Sprint(versions); got != c.others {
			t.Errorf("%s: other versions and locales %s, want %s", c.name, got, c.others)
		}
	}
	tree := mustRead(t, Docusaurus{}, map[string]string{"docusaurus.config.js": plain, "sidebars.js": "module.exports = {docs: ['intro']}\n", "docs/intro.md": "# Intro\n"})
	if got := routeOf(tree.Version); got != "{docs  current}" {
		t.Errorf("a site without versions: Version %s, want {docs  current}", got)
	}
}

// routeOf shows a version's or locale's folder, route and name.
func routeOf(o Other) string {
	return fmt.Sprint(struct{ f, r, v string }{o.Folder, o.Route, o.Version})
}

// TestDocusaurusVersionPages: each other version of a versioned site
// lists the page paths of its folder, as the version read is listed
// (number prefixes dropped, a slug followed, drafts left out), so that a
// link into a version can be told a page of it or broken; a locale lists
// none.
func TestDocusaurusVersionPages(t *testing.T) {
	files := docuVersioned("module.exports = {i18n: {defaultLocale: 'en', locales: ['en', 'fr']}, presets: [['classic', {docs: {}}]]}\n")
	files["website/versioned_docs/version-1.0/02-guides/01-setup.md"] = "# Setup\n"
	files["website/versioned_docs/version-1.0/moved.md"] = "---\nslug: /elsewhere/moved\n---\n# Moved\n"
	files["website/versioned_docs/version-1.0/draft.md"] = "---\ndraft: true\n---\n# Draft\n"
	tree, err := Docusaurus{}.Read(context.Background(), folder(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range tree.Others {
		if o.Route != "" || o.Version != "" {
			pages := slices.Clone(o.Pages)
			slices.Sort(pages)
			got[o.Folder] = fmt.Sprint(pages)
		}
	}
	want := map[string]string{
		"website/docs":                       "[intro next-only]",
		"website/versioned_docs/version-1.0": "[elsewhere/moved guides/setup intro]",
		"website/i18n/fr":                    "[]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages of the other versions and locales:\n%v\nwant\n%v", got, want)
	}
}
