package source

import (
	"context"
	"strings"
	"testing"
)

// docuVersioned is a versioned Docusaurus site: versions.json lists 2.0
// and 1.0, 2.0 has its own sidebars, 1.0 none, and the docs folder holds
// the unreleased next version.
func docuVersioned(config string) map[string]string {
	return map[string]string{
		"website/docusaurus.config.js":                         config,
		"website/sidebars.js":                                  "module.exports = {docs: ['intro', 'next-only']}\n",
		"website/versions.json":                                `["2.0", "1.0"]`,
		"website/versioned_sidebars/version-2.0-sidebars.json": `{"docs": ["two-only", {"type": "category", "label": "Start", "items": ["intro"]}]}`,
		"website/versioned_docs/version-2.0/intro.md":          "# Intro 2.0\n",
		"website/versioned_docs/version-2.0/two-only.md":       "# Two\n",
		"website/versioned_docs/version-1.0/intro.md":          "# Intro 1.0\n",
		"website/docs/intro.md":                                "# Intro next\n",
		"website/docs/next-only.md":                            "# Next\n",
	}
}

// TestDocusaurusVersions: a versioned Docusaurus site is read at the
// version its site serves by default (lastVersion, else the first of
// versions.json), from that version's folder and sidebars, and names it;
// DocsVersion reads another or the docs folder (current); a version the
// site lacks is refused listing those it has.
func TestDocusaurusVersions(t *testing.T) {
	plain := "module.exports = {presets: [['classic', {docs: {sidebarPath: require.resolve('./sidebars.js')}}]]}\n"
	last := "module.exports = {presets: [['classic', {docs: {lastVersion: '1.0', sidebarPath: require.resolve('./sidebars.js')}}]]}\n"
	for _, c := range []struct {
		name, config, want string
		pages, says        string
	}{
		{"default, first of versions.json", plain, "", "two-only|website/versioned_docs/version-2.0/two-only.md||\nintro|website/versioned_docs/version-2.0/intro.md||Start\n", "2.0, the site's default (the first of versions.json)"},
		{"default, lastVersion", last, "", "intro|website/versioned_docs/version-1.0/intro.md||\n", "1.0, the site's default (its lastVersion)"},
		{"current on request", plain, "current", "intro|website/docs/intro.md||\nnext-only|website/docs/next-only.md||\n", "current (the docs folder), chosen by --docs-version"},
		{"another on request", last, "2.0", "two-only|website/versioned_docs/version-2.0/two-only.md||\nintro|website/versioned_docs/version-2.0/intro.md||Start\n", "2.0, chosen by --docs-version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := folder(t, docuVersioned(c.config))
			tree, err := Detect(dir).Read(context.Background(), dir, Options{DocsVersion: c.want})
			if err != nil {
				t.Fatal(err)
			}
			if got := pagesOf(tree.Pages); got != c.pages {
				t.Errorf("pages\n%swant\n%s", got, c.pages)
			}
			if tree.DocsVersion != c.says {
				t.Errorf("DocsVersion %q, want %q", tree.DocsVersion, c.says)
			}
		})
	}
	dir := folder(t, docuVersioned(plain))
	_, err := Detect(dir).Read(context.Background(), dir, Options{DocsVersion: "3.0"})
	if err == nil || !strings.Contains(err.Error(), `no version "3.0"`) || !strings.Contains(err.Error(), "2.0, 1.0, current") {
		t.Errorf("err %v, want a refusal listing 2.0, 1.0, current", err)
	}
	// A site without versions.json has only current.
	files := docuVersioned(plain)
	delete(files, "website/versions.json")
	dir = folder(t, files)
	tree, err := Detect(dir).Read(context.Background(), dir, Options{})
	if err != nil || tree.DocsVersion != "" || !strings.Contains(pagesOf(tree.Pages), "website/docs/next-only.md") {
		t.Errorf("unversioned: %v %q", err, tree.DocsVersion)
	}
	if _, err := Detect(dir).Read(context.Background(), dir, Options{DocsVersion: "2.0"}); err == nil || !strings.Contains(err.Error(), "only version is current") {
		t.Errorf("unversioned, 2.0: %v", err)
	}
}
