package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/dev/stepctx"
)

// manyPages is a loaded tree of n pages.
func manyPages(n int) *loadedTree {
	t := &loadedTree{name: "cloud", title: "Cloud"}
	for i := range n {
		p := tzctx.Page{Path: fmt.Sprintf("p%d", i), Route: fmt.Sprintf("/cloud/p%d/", i), Title: "P"}
		t.pages = append(t.pages, loadedPage{Page: p, copy: "x\n"})
	}
	return t
}

// openFolder writes files into a fresh folder and opens it.
func openFolder(t *testing.T, files map[string]string) *sitefs.Folder {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := sitefs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestComposeStopsAtTheNextPage: composing a tree's index and whole text
// sees a stop at the next page, each loop of it: a tree may hold a
// million pages.
func TestComposeStopsAtTheNextPage(t *testing.T) {
	t.Parallel()
	dir := openFolder(t, map[string]string{"index.md": "# Home\n"})
	for _, c := range []struct {
		name   string
		passes int
	}{{"index", 5}, {"whole text", 100 + 5}, {"outline", 2*100 + 5}, {"outline lines", 3*100 + 5}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := stepctx.New(c.passes)
			err := compose(ctx, manyPages(100), dir, 1<<20, true)
			if !errors.Is(err, context.Canceled) || ctx.Checks() != c.passes+1 {
				t.Fatalf("compose = %v after %d checks, want context.Canceled at check %d", err, ctx.Checks(), c.passes+1)
			}
		})
	}
}

// TestOutlineStopsAtTheNextIndexLine: matching the index's lines to pages
// sees a stop at the next line: an llms.txt of 256 MiB holds millions.
func TestOutlineStopsAtTheNextIndexLine(t *testing.T) {
	t.Parallel()
	dir := openFolder(t, map[string]string{"index.md": "# Home\n", "llms.txt": strings.Repeat("- [P](/cloud/p0/)\n", 100)})
	// Checks 1 and 2 read llms.txt, 3 is the one page's, 4 the first line's.
	ctx := stepctx.New(4)
	err := compose(ctx, manyPages(1), dir, 1<<20, false)
	if !errors.Is(err, context.Canceled) || ctx.Checks() != 5 {
		t.Fatalf("compose = %v after %d checks, want context.Canceled at check 5 (the second index line)", err, ctx.Checks())
	}
}

// TestCheckRoutesStopsAtTheNextPage: the check of a navigation's routes
// sees a stop at the next page.
func TestCheckRoutesStopsAtTheNextPage(t *testing.T) {
	t.Parallel()
	var pages []source.Page
	for i := range 100 {
		pages = append(pages, source.Page{Path: fmt.Sprintf("p%d", i)})
	}
	ctx := stepctx.New(10)
	if err := checkRoutes(ctx, TreeSource{Name: "cloud"}, pages); !errors.Is(err, context.Canceled) || ctx.Checks() != 11 {
		t.Fatalf("checkRoutes = %v after %d checks, want context.Canceled at check 11", err, ctx.Checks())
	}
}
