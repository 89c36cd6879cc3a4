package source

import (
	"context"
	"fmt"
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
		var versions []Other
		for _, o := range tree.Others {
			if o.Route != "" || o.Version != "" {
				versions = append(versions, o)
			}
		}
		if got := fmt.Sprint(tree.Version); got != c.self {
			t.Errorf("%s: Version %s, want %s", c.name, got, c.self)
		}
		if got := fmt.Sprint(versions); got != c.others {
			t.Errorf("%s: other versions and locales %s, want %s", c.name, got, c.others)
		}
	}
	tree := mustRead(t, Docusaurus{}, map[string]string{"docusaurus.config.js": plain, "sidebars.js": "module.exports = {docs: ['intro']}\n", "docs/intro.md": "# Intro\n"})
	if got := fmt.Sprint(tree.Version); got != "{docs  current}" {
		t.Errorf("a site without versions: Version %s, want {docs  current}", got)
	}
}
