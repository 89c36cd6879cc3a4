package query

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/schemas"
)

func testLimits() schemas.Limits {
	c, err := schemas.Load()
	if err != nil {
		panic(err)
	}
	return c.Limits()
}

func TestSearchMatchesOracleOnSampleSite(t *testing.T) {
	t.Parallel()
	differential(t, sampleStore, 1000)
}

func TestSearchMatchesOracleOnCorpora(t *testing.T) {
	for _, c := range []string{"browser-use-docs", "mcp-docs", "mintlify-docs", "powershell-docs"} {
		t.Run(c, func(t *testing.T) {
			dir := testkit.Corpus(t, c)
			st := testkit.Ingest(t, ingest.TreeSource{Name: "cloud", Dir: dir})
			differential(t, st, 1000)
		})
	}
	// The corpora of the other formats, which hold no docs.json: MkDocs,
	// mdBook, Docusaurus, VitePress and Starlight.
	for _, c := range []string{"fastapi-docs/docs/en", "rust-book", "redux-docs", "vite-docs", "starlight-docs"} {
		t.Run(c, func(t *testing.T) {
			dir := filepath.Join(testkit.Corpora(t), c)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s is absent: the test needs it", dir)
			}
			st := testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: dir})
			differential(t, st, 1000)
		})
	}
}
