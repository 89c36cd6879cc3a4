package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/store"
)

// mintlifyDigests are the content digests of the four Mintlify corpora,
// each ingested alone as the tzdocs tree, recorded with the code before
// other formats were read (issue 24): reading other formats must leave
// every text of a Mintlify folder exactly as it was. They were recorded
// under derivation version mintlifyDerivation; the test digests by that
// version, so a later version (issue 32's rewritten links, which Mintlify
// trees do not get) leaves them valid and a match still means every text
// is as it was.
const mintlifyDerivation = 3

var mintlifyDigests = map[string]string{
	"browser-use-docs": "f512cc1c5adb911bbe7732cc7f233a09ca7755994f8419a71bf230b923eb01b9",
	"mcp-docs":         "abaf21456274ee37460a814cf21cdd3addb3268ddd51908d1a90a68d7eee9c52",
	"mintlify-docs":    "dfe36dcda5bad37f87024cde37ec6a3c04cd45cfe49f24b81b2ea29f807358c3",
	"powershell-docs":  "d447c37b11d6d582c20a631a3e72d2d39a8c9d3b180868f8c793cb8b93d577f5",
}

func TestMintlifyCorporaDigests(t *testing.T) {
	tier.Long(t, "ingests four real corpora")
	corpora := testkit.Corpora(t)
	defer ingest.SetDerivation(mintlifyDerivation)()
	for name, want := range mintlifyDigests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(corpora, name)
			if _, err := os.Stat(filepath.Join(dir, "docs.json")); err != nil {
				t.Skipf("corpus %s is absent from %s", name, corpora)
			}
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: []ingest.TreeSource{{Name: "tzdocs", Dir: dir}}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := st.Lookup(sum.Version)
			if err != nil {
				t.Fatal(err)
			}
			if m.Digest != want {
				t.Errorf("digest of %s = %s, want %s (recorded under derivation %d): a Mintlify text changed", name, m.Digest, want, mintlifyDerivation)
			}
		})
	}
}
