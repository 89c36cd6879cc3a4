package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/leaf/grams"
	"github.com/turnzerocloud/tzctx/store"
)

// reuseSite writes a Mintlify tree of pages (name -> copy) in dir, in
// the order of names, and returns dir.
func reuseSite(t *testing.T, dir string, names []string, pages map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	nav, err := json.Marshal(map[string]any{"navigation": map[string]any{"pages": names}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"docs.json": string(nav)}
	for n, body := range pages {
		files[n+".mdx"] = body
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// postingsOf returns, for each n-gram of words in each field, the pages of
// version name that hold it, as search reads them.
func postingsOf(t *testing.T, st *store.Store, name string, words []string) map[string][]uint64 {
	t.Helper()
	v, err := st.OpenVersion(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	out := map[string][]uint64{}
	for _, w := range words {
		for _, g := range strings.Fields(grams.Of(w)) {
			for _, f := range []string{store.FieldAll, store.FieldTitle, store.FieldHeadings} {
				set := make([]uint64, (v.PageCount()+63)/64)
				if err := v.Postings(context.Background(), f, g, set); err != nil {
					t.Fatal(err)
				}
				out[f+" "+g] = set
			}
		}
	}
	return out
}

// TestIngestBaseReusesCarriedIndex: a built-on ingest takes the carried
// trees' index documents, and those of the unchanged pages of a tree read
// anew (moved in its order or not), from the base rather than deriving
// them (it reports each page reused), and the version answers every
// posting as the same content ingested whole; a base derived by other
// rules is derived anew, and answers the same.
func TestIngestBaseReusesCarriedIndex(t *testing.T) {
	src := t.TempDir()
	page := func(title, words string) string {
		return "---\ntitle: " + title + "\n---\n\n# " + title + "\n\nOf " + words + ".\n\n## Usage " + words + "\n\nUse it.\n"
	}
	alphaOld := reuseSite(t, filepath.Join(src, "old", "alpha"), []string{"a", "b", "c"}, map[string]string{"a": page("Lantern", "harbor light"), "b": page("Compass", "needle"), "c": page("Gone", "anchor")})
	alphaNew := reuseSite(t, filepath.Join(src, "new", "alpha"), []string{"d", "a", "b"}, map[string]string{"a": page("Lantern", "harbor light"), "b": page("Compass", "needle north"), "d": page("Added", "rudder")})
	beta := reuseSite(t, filepath.Join(src, "beta"), []string{"x", "y"}, map[string]string{"x": page("Beta lantern", "keel"), "y": page("Sail", "harbor wind")})
	zulu := reuseSite(t, filepath.Join(src, "zulu"), []string{"z"}, map[string]string{"z": page("Zulu", "lantern wind")})
	words := []string{"lantern", "harbor light", "compass needle north", "anchor", "rudder", "keel", "sail", "wind", "usage", "zulu"}

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	run := func(o Options) *Summary {
		t.Helper()
		sum, err := Run(ctx, st, o)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	all := func(alpha string) []TreeSource {
		return []TreeSource{{Name: "alpha", Dir: alpha}, {Name: "beta", Dir: beta}, {Name: "zulu", Dir: zulu}}
	}
	run(Options{Trees: all(alphaOld), Version: "base"})
	// alpha, before and between the carried trees, changes its count.
	built := run(Options{Trees: []TreeSource{{Name: "alpha", Dir: alphaNew}}, Base: "base", Version: "built"})
	if built.Reused != 4 {
		t.Errorf("built on base: %d pages' index documents reused, want the carried trees' 3 and alpha's unchanged page a", built.Reused)
	}
	run(Options{Trees: all(alphaNew), Version: "whole"})
	want := postingsOf(t, st, "whole", words)
	if got := postingsOf(t, st, "built", words); !mapsEqual(got, want) {
		t.Errorf("built on base answers postings other than the whole ingest's")
	}
	// Carried twice: built on the version built so.
	again := run(Options{DropTrees: []string{"zulu"}, Base: "built", Version: "dropped"})
	if again.Reused != 5 {
		t.Errorf("built on built with zulu dropped: %d pages reused, want alpha's and beta's 5", again.Reused)
	}
	run(Options{Trees: all(alphaNew)[:2], Version: "whole-dropped"})
	if got, want := postingsOf(t, st, "dropped", words), postingsOf(t, st, "whole-dropped", words); !mapsEqual(got, want) {
		t.Errorf("built on built, a tree dropped, answers postings other than the whole ingest's")
	}
	// Other rules: the base's documents are not taken.
	defer func(d int) { derivation = d }(derivation)
	derivation = derivationVersion + 1
	other := run(Options{Trees: []TreeSource{{Name: "alpha", Dir: alphaNew}}, Base: "base", Version: "other-rules"})
	if other.Reused != 0 {
		t.Errorf("built on a base of other rules: %d pages reused, want 0", other.Reused)
	}
	if got := postingsOf(t, st, "other-rules", words); !mapsEqual(got, want) {
		t.Errorf("built on a base of other rules answers postings other than the whole ingest's")
	}
}

func mapsEqual(a, b map[string][]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
