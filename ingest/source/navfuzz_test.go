package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// fuzzOptions are small bounds, so that a fuzzed file reaches them.
var fuzzOptions = Options{MaxFileBytes: 1 << 16, MaxNodes: 2000, MaxDepth: 16}

// fuzzFolder is a folder a fuzz target rewrites for each input: write
// writes files into it, and dir reads it.
type fuzzFolder struct {
	root string
	dir  *sitefs.Folder
}

func newFuzzFolder(f *testing.F) *fuzzFolder {
	root := f.TempDir()
	dir, err := sitefs.Open(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { dir.Close() })
	return &fuzzFolder{root: root, dir: dir}
}

func (ff *fuzzFolder) write(t *testing.T, files map[string][]byte) *sitefs.Folder {
	for name, body := range files {
		p := filepath.Join(ff.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ff.dir
}

// checkFuzzedTree checks what a reader returned for a fuzzed folder: a
// refusal is a *Error naming the file and the problem; a tree keeps
// within the bounds.
func checkFuzzedTree(t *testing.T, tree *Tree, err error) {
	t.Helper()
	if err != nil {
		var se *Error
		if !errors.As(err, &se) || se.File == "" || se.Problem == "" {
			t.Fatalf("refusal %v (%T) is not a *source.Error naming a file and a problem", err, err)
		}
		return
	}
	if len(tree.Pages)+tree.Skipped > fuzzOptions.MaxNodes {
		t.Fatalf("%d pages and %d skipped entries, over the bound of %d", len(tree.Pages), tree.Skipped, fuzzOptions.MaxNodes)
	}
	// Two entries may give one page path ("README.md" and ".md" are both
	// "index"): ingest refuses that by route, not the reader.
	for _, p := range tree.Pages {
		if p.Path == "" || p.ListedIn == "" {
			t.Fatalf("page %+v has no path or no navigation file", p)
		}
		if len(p.Group) > fuzzOptions.MaxDepth+1 {
			t.Fatalf("page %s under %d groups, over the depth bound of %d", p.Path, len(p.Group), fuzzOptions.MaxDepth)
		}
	}
}

// FuzzMdBookNav reads an mdBook folder of a fuzzed book.toml and
// SUMMARY.md within small bounds: no input crashes the reader or takes it
// past them. The scan that bounds book.toml before the TOML parser reads
// it refuses as invalid only what the parser refuses too, and its bounds
// hold: a file it passes nests no deeper than the depth bound.
func FuzzMdBookNav(f *testing.F) {
	summaries := []string{
		"# Summary\n\n[Intro](README.md)\n\n- [A](a.md)\n  - [B](b/index.md)\n- [Draft]()\n\n# Part\n\n- [C](c.md#x)\n---\n[End](end.md)\n",
		"- [A](a.md)\n- [A again](a.md)\n- [Out](../x.md)\n",
		"<!-- c\n- [x](x.md)\n-->\n- [<a b>](<a b.md> \"t\")\n\t- [t](t.md)\n",
		strings.Repeat("  ", 40) + "- [deep](d.md)\n",
		"- not a link\n- [x](http://e.com)\n- [y](y.txt)\n",
	}
	for i, doc := range tomlSeeds {
		f.Add([]byte(doc), []byte(summaries[i%len(summaries)]))
	}
	ff := newFuzzFolder(f)
	f.Fuzz(func(t *testing.T, bookTOML, summary []byte) {
		if err := scanTOML(context.Background(), "book.toml", bookTOML, fuzzOptions); err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("scan error %v is not a *source.Error", err)
			}
			if !errors.Is(err, manifest.ErrTooDeep) && !errors.Is(err, manifest.ErrTooManyNodes) && !errors.Is(err, sitefs.ErrTooLarge) {
				if _, perr := toml.Decode(string(bookTOML), new(map[string]any)); perr == nil {
					t.Fatalf("the scan refuses TOML the parser reads: %v", err)
				}
			}
		}
		dir := ff.write(t, map[string][]byte{"book.toml": bookTOML, "src/SUMMARY.md": summary, "src/a.md": []byte("# A\n"), "src/README.md": []byte("# R\n")})
		tree, err := MdBook{}.Read(context.Background(), dir, fuzzOptions)
		checkFuzzedTree(t, tree, err)
		if err == nil && !slices.IsSortedFunc(tree.Redirects, compareRedirects) {
			t.Fatalf("redirects not sorted: %v", tree.Redirects)
		}
	})
}

// FuzzMkDocsNav reads an MkDocs folder of a fuzzed mkdocs.yml within
// small bounds: no input (aliases, cycles, deep nesting, tags) crashes the
// reader or takes it past them.
func FuzzMkDocsNav(f *testing.F) {
	for _, s := range []string{
		"site_name: S\nnav:\n  - Home: index.md\n  - Guide:\n    - guide/index.md\n    - A: guide/a.md\n  - Ext: https://e.com\n",
		"site_name: S\ndocs_dir: .\n",
		"nav: &a\n  - index.md\n  - Loop: *a\n",
		"x0: &a0 {\"\": [index.md]}\nx1: &a1 [*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0]\nx2: &a2 [*a1,*a1,*a1,*a1,*a1,*a1,*a1,*a1,*a1,*a1]\nx3: &a3 [*a2,*a2,*a2,*a2,*a2,*a2,*a2,*a2,*a2,*a2]\nnav: *a3\n",
		"m: &m {a: index.md, b: guide/a.md, c: x.md}\nnav: [*m, *m, *m, *m]\n",
		"nav:\n  - " + strings.Repeat("[", 30) + "index.md" + strings.Repeat("]", 30) + "\n",
		"nav:\n  - !ENV X: index.md\n  - !!python/name:x.y\n  - ../out.md\n  - /abs.md\n",
		"INHERIT: base.yml\nnav: [index.md, 12, null, {}, []]\n",
		"docs_dir: ../x\n",
		"nav: [\n",
	} {
		f.Add([]byte(s))
	}
	ff := newFuzzFolder(f)
	f.Fuzz(func(t *testing.T, config []byte) {
		dir := ff.write(t, map[string][]byte{"mkdocs.yml": config, "docs/index.md": []byte("# Home\n"), "docs/guide/index.md": []byte("---\ntitle: Guide\n---\n"), "docs/guide/a.md": []byte("# A\n")})
		tree, err := MkDocs{}.Read(context.Background(), dir, fuzzOptions)
		checkFuzzedTree(t, tree, err)
	})
}
