package manifest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// corporaDir returns the shared corpora folder, from TZCTX_CORPORA or
// relative to this package, or skips the test when it is absent.
func corporaDir(t *testing.T) string {
	t.Helper()
	tier.Long(t, "needs the real corpora")
	dir := os.Getenv("TZCTX_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("corpora folder %s is absent (set TZCTX_CORPORA to override): "+
			"this test checks the walker against the page counts of the four real "+
			"documentation sets that the corpora README records", dir)
	}
	return dir
}

func TestWalkCorpora(t *testing.T) {
	root := corporaDir(t)
	tests := []struct {
		corpus     string
		pages      int // the corpora README's "pages in the manifest"
		first      string
		last       string
		skipped    int
		duplicates int
		files      []string
	}{
		{
			corpus: "browser-use-docs", pages: 53,
			first: "introduction", last: "cloud",
			files: []string{"docs.json"},
		},
		{
			// "examples" is listed once in each of six versions: the README's 342
			// counts it once, and the five later listings are duplicates.
			corpus: "mcp-docs", pages: 342,
			first: "docs/2026-07-28/getting-started/intro", last: "community/interest-groups/tool-annotations",
			duplicates: 5,
			files:      []string{"docs.json"},
		},
		{
			// Each of the four languages has a "Learn" menu item that is an href link.
			corpus: "mintlify-docs", pages: 984,
			first: "index", last: "zh/api/static-export/overview",
			skipped: 4,
			files:   []string{"docs.json", "fr.json", "es.json", "zh.json"},
		},
		{
			corpus: "powershell-docs", pages: 3077,
			first: "7.6/CimCmdlets/CimCmdlets", last: "module/index",
			files: []string{"docs.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.corpus, func(t *testing.T) {
			site := filepath.Join(root, tt.corpus)
			res, err := manifest.Walk(site)
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if len(res.Pages) != tt.pages {
				t.Errorf("pages = %d, want %d", len(res.Pages), tt.pages)
			}
			if len(res.Pages) > 0 {
				if got := res.Pages[0].Path; got != tt.first {
					t.Errorf("first page = %q, want %q", got, tt.first)
				}
				if got := res.Pages[len(res.Pages)-1].Path; got != tt.last {
					t.Errorf("last page = %q, want %q", got, tt.last)
				}
			}
			if res.Skipped != tt.skipped {
				t.Errorf("skipped = %d, want %d (%+v)", res.Skipped, tt.skipped, res.Skips)
			}
			if res.Duplicates != tt.duplicates {
				t.Errorf("duplicates = %d, want %d (%+v)", res.Duplicates, tt.duplicates, res.Repeats)
			}
			if !reflect.DeepEqual(res.Files, tt.files) {
				t.Errorf("files = %q, want %q", res.Files, tt.files)
			}

			var missing []string
			seen := map[string]bool{}
			for _, p := range res.Pages {
				if seen[p.Path] {
					t.Errorf("page %q listed twice in Pages", p.Path)
				}
				seen[p.Path] = true
				if !exists(filepath.Join(site, p.Path+".mdx")) && !exists(filepath.Join(site, p.Path+".md")) {
					missing = append(missing, p.Path)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%d pages have neither PATH.mdx nor PATH.md: %q", len(missing), missing)
			}

			// Every pointer names, in its file, the string that listed the page.
			docs := map[string]any{}
			for _, p := range append(append([]manifest.Page(nil), res.Pages...), res.Repeats...) {
				doc, ok := docs[p.File]
				if !ok {
					data, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(p.File)))
					if err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(data, &doc); err != nil {
						t.Fatalf("%s: %v", p.File, err)
					}
					docs[p.File] = doc
				}
				v, err := lookup(doc, p.Pointer)
				if err != nil {
					t.Errorf("page %q: %s at %s: %v", p.Path, p.File, p.Pointer, err)
					continue
				}
				if s, _ := v.(string); strings.TrimPrefix(s, "/") != p.Path {
					t.Errorf("page %q: %s at %s holds %v", p.Path, p.File, p.Pointer, v)
				}
			}
		})
	}
}

// TestWalkMintlifyLanguages checks that each language of mintlify-docs lists
// the same number of pages, the English ones in docs.json and the others in
// their $ref files.
func TestWalkMintlifyLanguages(t *testing.T) {
	site := filepath.Join(corporaDir(t), "mintlify-docs")
	res, err := manifest.Walk(site)
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	counts := map[string]int{}
	for _, p := range res.Pages {
		lang := "en"
		if prefix, _, ok := strings.Cut(p.Path, "/"); ok && (prefix == "fr" || prefix == "es" || prefix == "zh") {
			lang = prefix
		}
		wantFile := "docs.json"
		if lang != "en" {
			wantFile = lang + ".json"
		}
		if p.File != wantFile {
			t.Errorf("page %q listed in %s, want %s", p.Path, p.File, wantFile)
		}
		counts[lang]++
	}
	want := map[string]int{"en": 246, "fr": 246, "es": 246, "zh": 246}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("pages per language = %v, want %v", counts, want)
	}
}

func exists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// lookup resolves an RFC 6901 pointer in a decoded JSON document.
func lookup(doc any, pointer string) (any, error) {
	if pointer == "" {
		return doc, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, errorString("pointer does not start with /")
	}
	v := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, errorString("no member " + strconv.Quote(tok))
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, errorString("no element " + strconv.Quote(tok))
			}
			v = c[i]
		default:
			return nil, errorString("cannot step into a scalar at " + strconv.Quote(tok))
		}
	}
	return v, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }
