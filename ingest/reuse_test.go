package ingest

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

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

// sectionsOf returns every key and value of version name's section index
// as stored (its table and its terms' table), read from its bbolt file.
func sectionsOf(t *testing.T, data, name string) map[string]string {
	t.Helper()
	db, err := bolt.Open(filepath.Join(data, "versions", name, "pages.db"), 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]string{}
	err = db.View(func(tx *bolt.Tx) error {
		sb := tx.Bucket([]byte("_sections"))
		if sb == nil {
			t.Fatalf("version %s holds no section index", name)
		}
		var walk func(prefix string, b *bolt.Bucket) error
		walk = func(prefix string, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				if v == nil {
					return walk(prefix+string(k)+"/", b.Bucket(k))
				}
				out[prefix+string(k)] = string(v)
				return nil
			})
		}
		return walk("", sb)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIngestBaseReusesSections: a built-on ingest takes the sections of
// the carried trees' pages, and of the unchanged pages of a tree read
// anew (moved in its order or not), from the base's section index rather
// than deriving them, and the section index it stores is byte for byte
// the one the same content ingested whole stores: the records renumbered,
// duplicate sections linked across reused and derived pages, the
// postings merged in section order; with the postings spilled to run
// files too, and built on a built-on version. A page whose included file
// changed, its own file not, is derived anew.
func TestIngestBaseReusesSections(t *testing.T) {
	src := t.TempDir()
	page := func(title, words string) string {
		return "---\ntitle: " + title + "\n---\n\n# " + title + "\n\nOf " + words + ".\n\n## Usage\n\nUse it with care.\n\n## " + words + "\n\nThe " + words + " again.\n"
	}
	alphaOld := reuseSite(t, filepath.Join(src, "old", "alpha"), []string{"a", "b", "c", "e"}, map[string]string{"a": page("Lantern", "harbor light"), "b": page("Compass", "needle"), "c": page("Gone", "anchor"), "e": page("Moved", "tide")})
	alphaNew := reuseSite(t, filepath.Join(src, "new", "alpha"), []string{"e", "d", "a", "b"}, map[string]string{"a": page("Lantern", "harbor light"), "b": page("Compass", "needle north"), "d": page("Added", "rudder"), "e": page("Moved", "tide")})
	beta := reuseSite(t, filepath.Join(src, "beta"), []string{"x", "y"}, map[string]string{"x": page("Beta lantern", "keel"), "y": page("Sail", "harbor wind")})
	zulu := reuseSite(t, filepath.Join(src, "zulu"), []string{"z"}, map[string]string{"z": page("Zulu", "lantern wind")})
	// An mdBook tree whose page includes a file: the file changes, the
	// page's own file does not.
	book := filepath.Join(src, "book")
	writeFile(t, filepath.Join(book, "book.toml"), "[book]\ntitle = \"B\"\n")
	writeFile(t, filepath.Join(book, "src", "SUMMARY.md"), "# Summary\n\n- [A](a.md)\n- [B](b.md)\n")
	writeFile(t, filepath.Join(book, "src", "a.md"), "# Book A\n\n## Part\n\n{{#include part.md}}\n")
	writeFile(t, filepath.Join(book, "src", "b.md"), "# Book B\n\n## Usage\n\nUse it with care.\n")
	writeFile(t, filepath.Join(book, "src", "part.md"), "The lantern part.\n")

	for _, held := range []int64{0, 1} {
		data := t.TempDir()
		st, err := store.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		run := func(o Options) *Summary {
			t.Helper()
			o.SectionsHeld = held
			sum, err := Run(ctx, st, o)
			if err != nil {
				t.Fatal(err)
			}
			return sum
		}
		all := func(alpha string) []TreeSource {
			return []TreeSource{{Name: "alpha", Dir: alpha}, {Name: "beta", Dir: beta}, {Name: "book", Dir: book}, {Name: "zulu", Dir: zulu}}
		}
		writeFile(t, filepath.Join(book, "src", "part.md"), "The lantern part.\n")
		run(Options{Trees: all(alphaOld), Version: "base"})
		writeFile(t, filepath.Join(book, "src", "part.md"), "The harbor part, changed.\n")
		built := run(Options{Trees: []TreeSource{{Name: "alpha", Dir: alphaNew}, {Name: "book", Dir: book}}, Base: "base", Version: "built"})
		// beta's 2 and zulu's 1 carried, alpha's a and e, book's b.
		if built.ReusedSections != 6 {
			t.Errorf("held %d: built on base: %d pages' sections reused, want 6", held, built.ReusedSections)
		}
		run(Options{Trees: all(alphaNew), Version: "whole"})
		want := sectionsOf(t, data, "whole")
		got := sectionsOf(t, data, "built")
		if !maps.Equal(got, want) {
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("held %d: built on base stores section index key %q other than the whole ingest's", held, k)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("held %d: built on base stores section index key %q, which the whole ingest does not", held, k)
				}
			}
		}
		again := run(Options{DropTrees: []string{"zulu"}, Base: "built", Version: "dropped"})
		if again.ReusedSections != 8 {
			t.Errorf("held %d: built on built with zulu dropped: %d pages' sections reused, want alpha's, beta's and book's 8", held, again.ReusedSections)
		}
		run(Options{Trees: all(alphaNew)[:3], Version: "whole-dropped"})
		if !maps.Equal(sectionsOf(t, data, "dropped"), sectionsOf(t, data, "whole-dropped")) {
			t.Errorf("held %d: built on built, a tree dropped, stores a section index other than the whole ingest's", held)
		}
		st.Close()
	}
}
