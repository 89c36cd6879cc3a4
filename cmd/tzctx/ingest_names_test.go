package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// TestIngestSkipsUnreadableNames: a page file or folder whose name holds
// a control character or a byte that is not UTF-8 is left out, with a
// warning naming it quoted, whether a folder walk or an llms.txt link
// found it; the served index and outline hold no such character, and
// every route they list reads. Such names once reached the index
// ("[ctl](/t/ctl\u001b[31mred/)", a route broken over two lines) or
// listed a route that answered 503.
func TestIngestSkipsUnreadableNames(t *testing.T) {
	site := t.TempDir()
	walked := filepath.Join(site, "walked")
	testkit.WriteFiles(t, walked, map[string]string{
		"index.md":           "# Home\n",
		"ok.md":              "# Ok\n\nfine\n",
		"ctl\x1b[31mred.md":  "# Ctl\n",
		"new\nline.md":       "# New line\n",
		"bad\xff\xfe.md":     "# Bad\n",
		"dir\x07/x.md":       "# X\n",
		"dir\x07/y.md":       "# Y\n",
		"good/tab\there.md":  "# Tab\n",
		"good/del\x7fend.md": "# Del\n",
	})
	linked := filepath.Join(site, "linked")
	testkit.WriteFiles(t, linked, map[string]string{
		"llms.txt":          "# Linked\n\n- [Ok](ok.md)\n- [Ctl](ctl%1B%5B31mred.md)\n",
		"ok.md":             "# Ok\n",
		"ctl\x1b[31mred.md": "# Ctl\n",
	})
	data := t.TempDir()
	r := mustCLI(t, data, "ingest", "--tree", "cloud="+walked, "--tree", "tzdocs="+linked, "--version", "v", "--activate")
	for _, want := range []string{`"ctl\x1b[31mred.md"`, `"new\nline.md"`, `"bad\xff\xfe.md"`, `"dir\a"`, `"good/tab\there.md"`, `"good/del\x7fend.md"`, "tree tzdocs: llms.txt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the warnings do not name %s:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, `"dir\a"`); n != 1 {
		t.Errorf("the folder is named in %d warnings, want 1:\n%s", n, r.stderr)
	}
	srv := startServer(t, data, testConfig(0))
	routes := 0
	for _, tree := range []string{"cloud", "tzdocs"} {
		for _, part := range []string{"index", "outline"} {
			text := mustRead(t, srv.base, map[string]any{"tree": tree, "part": part}).Text
			if !utf8.ValidString(text) {
				t.Errorf("tree %s's %s is not UTF-8:\n%q", tree, part, text)
			}
			for _, c := range text {
				if unicode.IsControl(c) && c != '\n' {
					t.Errorf("tree %s's %s holds %U:\n%q", tree, part, c, text)
					break
				}
			}
			if tree != "cloud" {
				continue // llms.txt's links are the operator's, served as written
			}
			for _, line := range strings.Split(text, "\n") {
				for _, target := range ingest.LinkTargets(line) {
					routes++
					mustRead(t, srv.base, map[string]any{"tree": tree, "page": strings.Trim(target, "<>")})
				}
			}
		}
	}
	// Every route the version lists reads.
	st, err := store.OpenExisting(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	for tree, want := range map[string]int{"cloud": 2, "tzdocs": 1} {
		pages := v.Tree(tree).Pages
		if len(pages) != want {
			t.Errorf("tree %s lists %d pages, want %d: %+v", tree, len(pages), want, pages)
		}
		for _, p := range pages {
			routes++
			mustRead(t, srv.base, map[string]any{"tree": tree, "page": p.Route})
		}
	}
	if routes < 7 {
		t.Errorf("%d routes read, want the 2 pages of cloud twice (index and outline) and every listed page", routes)
	}
}
