package source

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// folder writes files (slash-separated name to content) into a fresh
// directory and opens it.
func folder(t *testing.T, files map[string]string) *sitefs.Folder {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := sitefs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return dir
}

func TestMintlifyRead(t *testing.T) {
	dir := folder(t, map[string]string{
		"docs.json":       `{"name":"Acme","navigation":{"groups":[{"group":"Start","pages":["index","guides/setup","gone",{"href":"https://example.com"}]}]},"redirects":{"$ref":"redirects.json"}}`,
		"redirects.json":  `[{"source":"/old","destination":"/guides/setup"}]`,
		"index.mdx":       "# Home\n",
		"guides/setup.md": "# Setup\n",
	})
	if got := Detect(dir); got.Format() != "mintlify" {
		t.Fatalf("Detect = %s, want mintlify", got.Format())
	}
	tree, err := Mintlify{}.Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Tree{
		Name:       "Acme",
		Navigation: "docs.json",
		Skipped:    1,
		Skips:      map[SkipKind]int{{"navigation entry", "navigation entries", "a link (href)"}: 1},
		Pages: []Page{
			{Path: "index", File: "index.mdx", ListedIn: "docs.json", Pointer: "/navigation/groups/0/pages/0"},
			{Path: "guides/setup", File: "guides/setup.md", ListedIn: "docs.json", Pointer: "/navigation/groups/0/pages/1"},
			{Path: "gone", Tried: "gone.mdx or gone.md", ListedIn: "docs.json", Pointer: "/navigation/groups/0/pages/2"},
		},
		Redirects: []Redirect{{Source: "/old", Destination: "/guides/setup"}},
	}
	if !reflect.DeepEqual(tree, want) {
		t.Fatalf("Read =\n%+v\nwant\n%+v", tree, want)
	}
}

func TestMintlifyRedirectsStayInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(outside, []byte(`[{"source":"/a","destination":"/b"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"../r.json", outside, "missing.json"} {
		dir := folder(t, map[string]string{
			"docs.json": `{"navigation":{"pages":["index"]},"redirects":{"$ref":"` + ref + `"}}`,
			"index.md":  "# Home\n",
		})
		tree, err := Mintlify{}.Read(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tree.Redirects != nil {
			t.Errorf("$ref %q: redirects %v, want none read", ref, tree.Redirects)
		}
	}
}

func TestDetectWithoutDocsJSON(t *testing.T) {
	// A folder of Markdown without any navigation file is read as one.
	if got := Detect(folder(t, map[string]string{"index.md": "# Home\n"})).Format(); got != "markdown" {
		t.Fatalf("Detect of a folder of Markdown = %s, want markdown", got)
	}
	// A folder with no page at all is recognised by no format.
	dir := folder(t, map[string]string{"notes.txt": "x"})
	s := Detect(dir)
	if s.Recognises(dir) {
		t.Fatalf("%s recognises a folder with no page", s.Format())
	}
	if _, err := s.Read(context.Background(), dir, Options{}); err == nil {
		t.Fatal("Read of a folder without docs.json succeeded")
	}
}
