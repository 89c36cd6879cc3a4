package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// corpusDir returns the folder of a shared corpus, skipping the test,
// with the reason, where it is absent (testkit.Corpora cannot serve here:
// testkit imports ingest).
func corpusDir(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	corpora := os.Getenv("TZCTX_CORPORA")
	if corpora == "" {
		corpora = filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpora")
	}
	dir := filepath.Join(corpora, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus %s is absent from %s: the test needs it (set TZCTX_CORPORA)", name, corpora)
	}
	return dir
}

// TestRustBookIncludes ingests the Rust book (mdBook): no {{# directive
// is left in any served page, an anchored include serves the anchor's
// lines of its listing file without the ANCHOR markers, and a ranged one
// the range's lines.
func TestRustBookIncludes(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t, "rust-book")
	trees, err := loadTrees(context.Background(), Options{Trees: []TreeSource{{Name: "book", Dir: dir}}, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, p := range trees[0].pages {
		pages[p.file] = p.copy
		if i := strings.Index(p.copy, "{{#"); i >= 0 {
			t.Errorf("%s still serves a directive: %q", p.file, p.copy[i:min(len(p.copy), i+80)])
		}
	}
	t.Logf("rust-book: %d directives expanded, warnings %q", trees[0].expanded, trees[0].warnings)
	read := func(name string) []string {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}

	// Anchored: {{#rustdoc_include …/listing-02-01/src/main.rs:print}}.
	lines := read("listings/ch02-guessing-game-tutorial/listing-02-01/src/main.rs")
	var anchor []string
	in := false
	for _, l := range lines {
		switch {
		case strings.TrimSpace(l) == "// ANCHOR: print":
			in = true
		case strings.TrimSpace(l) == "// ANCHOR_END: print":
			in = false
		case in:
			anchor = append(anchor, l)
		}
	}
	if len(anchor) == 0 {
		t.Fatal("the listing has no print anchor: the corpus changed")
	}
	want := "```rust,ignore\n" + strings.Join(anchor, "\n") + "\n```"
	page := pages["src/ch02-00-guessing-game-tutorial.md"]
	if !strings.Contains(page, want) {
		t.Errorf("the guessing game page does not serve the print anchor's lines %q", want)
	}
	if strings.Contains(page, "ANCHOR") {
		t.Error("the guessing game page serves an ANCHOR marker")
	}
	if strings.Contains(page, "\n# ") && strings.Contains(page, "\n# fn main") {
		t.Error("the guessing game page serves hidden lines")
	}

	// Ranged: {{#include …/listing-05-11/output.txt:9:10}} is lines 9-10.
	out := read("listings/ch05-using-structs-to-structure-related-data/listing-05-11/output.txt")
	want = "```text\n" + strings.Join(out[8:10], "\n") + "\n```"
	if !strings.Contains(pages["src/ch05-02-example-structs.md"], want) {
		t.Errorf("the example structs page does not serve lines 9-10 of output.txt, %q", want)
	}
}
