package schemas_test

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

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
