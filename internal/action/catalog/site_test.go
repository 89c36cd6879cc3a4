package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/schemas"
)

// TestWrittenSetNamesNoSite: the contract set as written holds the site's
// name only as the placeholder, so that it passes every check under
// another name; a text naming Turn Zero Cloud by hand would be found.
func TestWrittenSetNamesNoSite(t *testing.T) {
	for _, name := range []string{"Acme Docs", `Q "Quoted" \ <Docs>`} {
		if ps := Check(Written(), CheckOptions{Name: name}); len(ps) > 0 {
			for _, p := range ps {
				t.Errorf("as %s: %v", name, p)
			}
		}
	}
	files, _ := copySet(t) // under the default name: every placeholder filled by hand
	got := strings.Join(rules(Check(files, CheckOptions{Name: "Acme Docs"})), "\n")
	for _, want := range []string{"contracts/overview.md " + RuleSiteName, "contracts/overview.md " + RuleSurface + "-public-name", "schemas/skills.json " + RuleSiteName} {
		if !strings.Contains(got, want) {
			t.Errorf("a set naming %s by hand, checked as Acme Docs: findings lack %q:\n%s", schemas.DefaultSiteName, want, got)
		}
	}
}

// TestMisspeltPlaceholderFound: a placeholder the site's name does not
// fill is a finding naming the file and line, and Build refuses to serve
// it.
func TestMisspeltPlaceholderFound(t *testing.T) {
	files, root := copySet(t)
	p := filepath.Join(root, "contracts", "guides", "reading.md")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(string(raw)+"\nAsk {{ site.name }} or {{site.title}}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps := Check(files, CheckOptions{})
	n := 0
	for _, f := range ps {
		if f.File == "contracts/guides/reading.md" && f.Rule == RulePlaceholder && f.Line > 0 && strings.Contains(f.Message, "{{ site.name }}") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a misspelt placeholder: %d findings of it in %v", n, ps)
	}
	c, _ := schemas.Load()
	if _, err := Build(files, c, nil); err == nil || !strings.Contains(err.Error(), "contracts/guides/reading.md") || !strings.Contains(err.Error(), "placeholder") {
		t.Errorf("Build with a misspelt placeholder = %v", err)
	}
}

// TestLoadNamedFillsEveryText: the catalog loaded under a name serves the
// default catalog's texts with the name in place of the default, and no
// placeholder; under the default name, the texts are the files as the
// default fills them.
func TestLoadNamedFillsEveryText(t *testing.T) {
	def, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Acme Docs", `Acme "Docs" \ <b>`} {
		acme, err := LoadNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(def.Items()) != len(acme.Items()) {
			t.Fatalf("%d entries by default, %d as %s", len(def.Items()), len(acme.Items()), name)
		}
		for i, d := range def.Items() {
			a := acme.Items()[i]
			if a.ID != d.ID || strings.Contains(a.Text+a.Title, schemas.DefaultSiteName) || placeholderLeft(a.Text+d.Text) {
				t.Errorf("%s: as %s, entry %s names the default or a placeholder", d.ID, name, a.ID)
			}
			if a.MimeType == MimeJSON && !json.Valid([]byte(a.Text)) {
				t.Errorf("%s: as %s, the JSON text does not parse", a.ID, name)
			}
			if name != "Acme Docs" || d.ID == IDBundle {
				continue // the bundle's stamps follow the texts
			}
			// The name takes its own article: "a Turn Zero Cloud", "an
			// Acme Docs" (issue 31).
			named := strings.NewReplacer("a "+schemas.DefaultSiteName, schemas.WithArticle(name), schemas.DefaultSiteName, name)
			if want := named.Replace(d.Text); a.Text != want || a.Title != named.Replace(d.Title) {
				t.Errorf("%s: not the default text with %s in place", d.ID, name)
			}
		}
	}
	if _, err := LoadNamed("two\nlines"); err == nil {
		t.Error("LoadNamed took a name spanning lines")
	}
}

// placeholderLeft reports whether text holds "{{" other than in an mdBook
// directive ("{{#include …}}", which the choices quote as the form ingest
// expands): every placeholder of the contract set starts "{{" and none "{{#".
func placeholderLeft(text string) bool {
	return strings.Contains(strings.ReplaceAll(text, "{{#", ""), "{{")
}
