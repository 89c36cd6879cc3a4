package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/store"
)

// TestDerivationVersionInDigest: the content digest changes with the
// derivation version, so re-ingesting the same files after the rules
// changed builds a new version instead of reporting the old one.
func TestDerivationVersionInDigest(t *testing.T) {
	site := t.TempDir()
	if err := os.MkdirAll(filepath.Join(site, "cloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"docs.json": `{"navigation":{"pages":["index"]}}`, "index.mdx": "# Home\n"} {
		if err := os.WriteFile(filepath.Join(site, "cloud", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trees := []TreeSource{{Name: "cloud", Dir: filepath.Join(site, "cloud")}}
	loaded, err := loadTrees(context.Background(), Options{Trees: trees, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
	if err != nil {
		t.Fatal(err)
	}
	if contentDigest(derivationVersion, loaded) == contentDigest(derivationVersion+1, loaded) {
		t.Fatal("the digest does not depend on the derivation version")
	}

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := Run(context.Background(), st, Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	// Run, which hashes pages as they stream, gets the digest of the
	// trees loaded whole.
	if m, err := st.Lookup(a.Version); err != nil || m.Digest != contentDigest(derivationVersion, loaded) {
		t.Fatalf("the version's digest %q (%v) is not the digest of its trees loaded whole", m.Digest, err)
	}
	if b, err := Run(context.Background(), st, Options{Trees: trees}); err != nil || !b.Existing || b.Version != a.Version {
		t.Fatalf("same files, same rules: %+v, %v; want the existing version %s", b, err, a.Version)
	}
	defer func(d int) { derivation = d }(derivation)
	derivation = derivationVersion + 1
	c, err := Run(context.Background(), st, Options{Trees: trees})
	if err != nil {
		t.Fatal(err)
	}
	if c.Existing || c.Version == a.Version {
		t.Errorf("same files, new rules: %+v; want a new version beside %s", c, a.Version)
	}
}

// contentDigest is the digest of trees loaded in full, as Run computes it
// page by page: the test's way to ask the digest of given rules.
func contentDigest(rules int, trees []*loadedTree) string {
	d := newDigester(rules)
	for _, t := range trees {
		d.w(t.name)
		d.w(t.title)
		for i := range t.pages {
			d.page(&t.pages[i])
		}
		d.texts(t.index, t.full, t.composed)
	}
	return d.sum()
}
