package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// mintlifyDigests are the content digests of the four Mintlify corpora,
// each ingested alone as the tzdocs tree: reading other formats must leave
// every text of a Mintlify folder exactly as it was. First recorded before
// other formats were read (issue 24), under derivation 3; recorded again
// for derivation 4 (issue 32's includes), after every stored text, each
// tree's title and its page list were compared with those the derivation-3
// binary stored and found identical: the digest moved with the derivation
// number alone.
var mintlifyDigests = map[string]string{
	"browser-use-docs": "67414131b5e5513f48ca27a326dc1607fecd7f77f625441faf6b3b25e7539b5c",
	"mcp-docs":         "fd230d31f3ff205290f9beb8333d82de4ee131a46f295334fbc3bd5a1771caa9",
	"mintlify-docs":    "2787158aaef1fdff04fd6d1709a2ff033b8b61f42e06c12aaa7cfb52ad0786fb",
	"powershell-docs":  "f655c6eb3e795b51799a57093156767d339fb2549c09993deef08a03ddefa0e7",
}

func TestMintlifyCorporaDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests four real corpora")
	}
	corpora := testkit.Corpora(t)
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
				t.Errorf("digest of %s = %s, want %s (recorded for derivation 4): a Mintlify text changed, or the derivation moved (compare the texts, then record the new digests)", name, m.Digest, want)
			}
		})
	}
}
