package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// TestJSNavigationCorporaIngest loads the three corpora whose navigation is
// JavaScript or TypeScript (Docusaurus redux-docs, VitePress vite-docs,
// Starlight starlight-docs) through ingest, as tzctx ingest --tree does
// with no other flag: every page's file reads, every route is one page's,
// and a known page has its route and its title (navigation label, front
// matter title, or first heading).
func TestJSNavigationCorporaIngest(t *testing.T) {
	tier.Long(t, "needs the real corpora")
	_, file, _, _ := runtime.Caller(0)
	corpora := os.Getenv("TZCTX_CORPORA")
	if corpora == "" {
		corpora = filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpora")
	}
	for _, c := range []struct{ name, route, title string }{
		{"redux-docs", "/tzdocs/tutorials/typescript-quick-start/", "TypeScript Quick Start"},
		{"vite-docs", "/tzdocs/guide/", "Getting Started"},
		{"starlight-docs", "/tzdocs/guides/i18n/", "Internationalization (i18n)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// testkit.Corpora cannot serve here: testkit imports ingest.
			dir := filepath.Join(corpora, c.name)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s is absent from %s: the test needs it (set TZCTX_CORPORA)", c.name, corpora)
			}
			loaded, err := loadTrees(context.Background(), Options{Trees: []TreeSource{{Name: "tzdocs", Dir: dir}}, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range loaded[0].pages {
				if strings.TrimSpace(p.Title) == "" {
					t.Errorf("page %s has no title", p.Route)
				}
				if p.Route == c.route {
					found = true
					if p.Title != c.title {
						t.Errorf("%s is titled %q, want %q", c.route, p.Title, c.title)
					}
				}
			}
			if !found {
				t.Errorf("no page at %s", c.route)
			}
		})
	}
}
