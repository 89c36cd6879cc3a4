package ingest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

// composedLayout composes the layout of pages joined as a composed whole
// text is, and the text itself, the oracle.
func composedLayout(pages []string) (fullLayout, string) {
	var f fullLayout
	var b strings.Builder
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p)
		if !strings.HasSuffix(p, "\n") {
			b.WriteString("\n")
		}
		f.add(p, textmap.Scan(p))
	}
	return f, b.String()
}

func sameLayout(t *testing.T, what string, f fullLayout, full string) {
	t.Helper()
	l, ok := f.layout()
	if !ok {
		return
	}
	m := textmap.Scan(full)
	if l.Total != m.Len || !slices.Equal(l.LineStarts, m.LineStarts) || !slices.Equal(l.Bases, m.Bases) {
		t.Fatalf("%s: composed layout (%d code points, %d line starts, %d places) differs from the whole text's scan (%d, %d, %d)",
			what, l.Total, len(l.LineStarts), len(l.Bases), m.Len, len(m.LineStarts), len(m.Bases))
	}
}

// TestComposedFullLayoutIsTheScan: the whole text's layout composed from
// the pages' own is the scan of the whole text, on the sample site, on
// every real corpus, and on random pages of fences, comments, headings,
// CR and missing line ends; where a page ends in an open fence or comment
// the composer declines, and ingest scans the text.
func TestComposedFullLayoutIsTheScan(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	sites := map[string][]TreeSource{}
	if trees, err := SiteTrees(filepath.Join(filepath.Dir(file), "..", "data", "site")); err == nil {
		sites["sample site"] = trees
	} else {
		t.Fatal(err)
	}
	// testkit.Corpora cannot be imported here (it imports ingest): the
	// same lookup, and the real corpora are skipped, saying so, where
	// absent.
	corpora := os.Getenv("TZCTX_CORPORA")
	if corpora == "" {
		corpora = filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpora")
	}
	for _, name := range []string{"browser-use-docs", "mcp-docs", "mintlify-docs", "powershell-docs"} {
		dir := filepath.Join(corpora, name)
		if !tier.Exhaustive() {
			t.Logf("corpus %s: its pages are checked in %s", name, tier.LongTarget)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "docs.json")); err != nil {
			t.Logf("corpus %s is absent from %s: its pages are not checked (set TZCTX_CORPORA)", name, corpora)
			continue
		}
		sites[name] = []TreeSource{{Name: "cloud", Dir: dir}}
	}
	for name, trees := range sites {
		loaded, err := loadTrees(context.Background(), Options{Trees: trees, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, tr := range loaded {
			var pages []string
			for _, p := range tr.pages {
				pages = append(pages, p.copy)
			}
			f, full := composedLayout(pages)
			if tr.composed && full != tr.full {
				t.Fatalf("%s/%s: the oracle's whole text is not compose's", name, tr.name)
			}
			if _, ok := f.layout(); !ok {
				t.Logf("%s/%s: a page ends in an open fence or comment; ingest scans the whole text", name, tr.name)
			}
			sameLayout(t, name+"/"+tr.name, f, full)
		}
	}
	parts := []string{"```\n", "~~~~\n", "```go\n", "<!-- a\n", "-->\n", "<!-- b -->\n", "# H\n", "## H2 ##\n", "text\n", "\n", "\r\n", "x\r", "    ```\n", "é😀\n"}
	rng := rand.New(rand.NewPCG(3, 5))
	declined := 0
	for n := 0; n < 3000; n++ {
		pages := make([]string, 1+rng.IntN(4))
		for i := range pages {
			var b strings.Builder
			for range rng.IntN(6) {
				b.WriteString(parts[rng.IntN(len(parts))])
			}
			s := b.String()
			if rng.IntN(3) == 0 {
				s = strings.TrimSuffix(s, "\n")
			}
			pages[i] = s
		}
		f, full := composedLayout(pages)
		if _, ok := f.layout(); !ok {
			declined++
		}
		sameLayout(t, "random pages "+strings.Join(pages, "|"), f, full)
	}
	if declined == 0 || declined == 3000 {
		t.Errorf("the composer declined %d of 3000 random sites; the test no longer covers both paths", declined)
	}
}

// TestStoredWholeTextIsComposed: the whole text Run stores for a tree
// without llms-full.txt, built as a span of the pages' bytes and gaps, is
// byte for byte the text compose makes of the pages, with the scan's
// places, on the sample site and on the real corpora at hand.
func TestStoredWholeTextIsComposed(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	trees, err := SiteTrees(filepath.Join(filepath.Dir(file), "..", "data", "site"))
	if err != nil {
		t.Fatal(err)
	}
	corpora := os.Getenv("TZCTX_CORPORA")
	if corpora == "" {
		corpora = filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpora")
	}
	if dir := filepath.Join(corpora, "mcp-docs"); !tier.Exhaustive() {
		t.Logf("corpus mcp-docs: its whole text is checked in %s; the sample site alone is checked here", tier.LongTarget)
	} else if fileExists(filepath.Join(dir, "docs.json")) {
		trees = append(trees[:0:0], trees...)
		for i := range trees {
			if trees[i].Name == "tzdocs" {
				trees[i].Dir = dir
			}
		}
	} else {
		t.Logf("corpus mcp-docs is absent from %s: the sample site alone is checked (set TZCTX_CORPORA)", corpora)
	}
	loaded, err := loadTrees(context.Background(), Options{Trees: trees, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Run(context.Background(), st, Options{Trees: trees, Version: "v"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	composed := 0
	for _, lt := range loaded {
		if !lt.composed {
			continue
		}
		composed++
		full, err := v.Tree(lt.name).Text("full")
		if err != nil || full == nil {
			t.Fatalf("%s: full text %v, %v", lt.name, full, err)
		}
		if string(full.Bytes()) != lt.full {
			t.Fatalf("%s: the stored whole text is not compose's", lt.name)
		}
		m := textmap.Scan(lt.full)
		var bases []uint32
		for p := 0; p < m.Len; p = full.NextBaseAfter(p) {
			bases = append(bases, uint32(p))
		}
		if full.Total() != m.Len || !slices.Equal(bases, m.Bases) {
			t.Fatalf("%s: the stored whole text's places (%d code points, %d places) are not the scan's (%d, %d)", lt.name, full.Total(), len(bases), m.Len, len(m.Bases))
		}
	}
	if composed == 0 {
		t.Fatal("no tree's whole text was composed; the test checks nothing")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
