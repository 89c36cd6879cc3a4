package schemas_test

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

// TestDefaultSiteNameIsTheChecks: the contract's default name and the
// CTX-08 check's are one name (schemas may import no package of the
// module, so each package states it).
func TestDefaultSiteNameIsTheChecks(t *testing.T) {
	if schemas.DefaultSiteName != surface.ProductName {
		t.Fatalf("schemas.DefaultSiteName %q, surface.ProductName %q", schemas.DefaultSiteName, surface.ProductName)
	}
}

// TestNamedFillsEveryFile: every schema file read through Named holds
// the name and no placeholder, and a JSON file stays valid JSON whatever
// the name holds; the contract parsed from it carries the name in its
// index and its action descriptions.
func TestNamedFillsEveryFile(t *testing.T) {
	const name = `Acme "Docs" \ <b>`
	named := schemas.Named(schemas.FS, name)
	ents, err := fs.ReadDir(named, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		raw, err := fs.ReadFile(named, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		info, err := fs.Stat(named, e.Name())
		if err != nil || info.Size() != int64(len(raw)) {
			t.Errorf("%s: stat %v, size %d of %d bytes read", e.Name(), err, info.Size(), len(raw))
		}
		if strings.Contains(string(raw), "{{") || strings.Contains(string(raw), schemas.DefaultSiteName) || !json.Valid(raw) {
			t.Errorf("%s: a placeholder or the default name left, or not JSON", e.Name())
		}
	}
	c, err := schemas.Parse(named)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Action("list_context")
	if err != nil {
		t.Fatal(err)
	}
	if c.Product() != name || !strings.Contains(a.Description, name) {
		t.Errorf("product %q, list_context's description %q", c.Product(), a.Description)
	}
	// As written, a set reads under the default name.
	d, err := schemas.Parse(schemas.FS)
	if err != nil || d.Product() != schemas.DefaultSiteName {
		t.Errorf("Parse of the written set: product %q, %v", d.Product(), err)
	}
	if fill := schemas.FillSiteName("a {{site.name}} b", `x"y`, false); fill != `a x"y b` {
		t.Errorf("Markdown fill %q", fill)
	}
}

// TestNameOf: a site that configures no name is called by the contract's
// name where it serves the contract's trees, by its one tree's title (its
// name where it has none; cleaned, cut to the name's bound) where it
// serves one, and by schemas.NeutralSiteName where it serves several or its one
// title is no name CheckSiteName takes; each name reads right after its
// article and in its possessive (issue 31).
func TestNameOf(t *testing.T) {
	for _, c := range []struct {
		trees              []schemas.SiteTree
		want, article, pos string
	}{
		{nil, schemas.DefaultSiteName, "a Turn Zero Cloud", "Turn Zero Cloud's"},
		{[]schemas.SiteTree{{Name: "redux", Title: "Redux"}}, "Redux", "a Redux", "Redux's"},
		{[]schemas.SiteTree{{Name: "engines", Title: "Engine Docs"}}, "Engine Docs", "an Engine Docs", "Engine Docs'"},
		{[]schemas.SiteTree{{Name: "vite"}}, "vite", "a vite", "vite's"},
		{[]schemas.SiteTree{{Name: "x", Title: "Evil\u202e\u200b\nName\x07"}}, "Evil Name", "an Evil Name", "Evil Name's"},
		{[]schemas.SiteTree{{Name: "x", Title: "{{site.name}}"}}, schemas.NeutralSiteName, "a Docs Server", "Docs Server's"},
		{[]schemas.SiteTree{}, schemas.NeutralSiteName, "a Docs Server", "Docs Server's"},
		{[]schemas.SiteTree{{Name: "redux", Title: "Redux"}, {Name: "vite", Title: "Vite"}}, schemas.NeutralSiteName, "a Docs Server", "Docs Server's"},
	} {
		got := schemas.NameOf(c.trees)
		if got != c.want || schemas.WithArticle(got) != c.article || schemas.Possessive(got) != c.pos {
			t.Errorf("schemas.NameOf(%v) = %q (%q, %q), want %q (%q, %q)", c.trees, got, schemas.WithArticle(got), schemas.Possessive(got), c.want, c.article, c.pos)
		}
		if err := schemas.CheckSiteName(got); err != nil {
			t.Errorf("schemas.NameOf(%v) = %q, which CheckSiteName refuses: %v", c.trees, got, err)
		}
	}
	long := schemas.NameOf([]schemas.SiteTree{{Name: "x", Title: strings.Repeat("é", 120)}})
	if n := utf8.RuneCountInString(long); n != schemas.SiteNameMaxLength {
		t.Errorf("a 120-character title names the site in %d characters, want the bound %d", n, schemas.SiteNameMaxLength)
	}
}
