package ingest_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
)

// TestWarningFlood: a navigation listing one page again and again gives
// the first warnings of the kind and one line counting the rest (a
// SUMMARY.md of 1,000,000 duplicates wrote 152 MB of warnings), for every
// reader, as ingest and tzctx check collect them; --max-warnings sets
// how many.
func TestWarningFlood(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"book.toml":      "[book]\ntitle = \"B\"\n",
		"src/SUMMARY.md": "# S\n\n" + strings.Repeat("- [A](a.md)\n", 500),
		"src/a.md":       "# A\n",
	}
	for name, body := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), body)
	}
	for _, c := range []struct {
		max, want int
	}{{0, 20}, {3, 3}} {
		r, err := ingest.Check(context.Background(), ingest.Options{Trees: []ingest.TreeSource{{Name: "t", Dir: dir}}, MaxWarnings: c.max})
		if err != nil {
			t.Fatal(err)
		}
		ws := r.Trees[0].Warnings
		if len(ws) != c.want+1 {
			t.Fatalf("--max-warnings %d: %d warnings, want %d and a line counting the rest", c.max, len(ws), c.want)
		}
		last := ws[c.want]
		if !strings.Contains(last, "SUMMARY.md: "+strconv.Itoa(499-c.want)+" more warnings like the one above are left out") || !strings.Contains(last, "--max-warnings") {
			t.Errorf("--max-warnings %d: the last line is %q", c.max, last)
		}
	}
}
