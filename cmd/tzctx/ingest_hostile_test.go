package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// goodTree is a small valid tree folder the hostile cases start from.
var goodTree = map[string]string{
	"docs.json": `{"name":"T","navigation":{"pages":["index","a"]}}`,
	"index.mdx": "# Home\n",
	"a.mdx":     "# A\n",
}

func mustSymlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestIngestRefusesHostileFolders feeds tree folders an operator did not
// write: links out of the folder, files that are not regular, files over
// their bounds, two paths naming one route, control bytes. Each ingest
// must fail naming the file (and the link's target, the flag that raises a
// bound), and leave no version. None of these cases can block or grow
// without bound, so they run in process; those that could, on a
// regression, run as subprocesses in TestIngestStopsAndBounds.
func TestIngestRefusesHostileFolders(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteFiles(t, outside, map[string]string{
		"docs.json":      `{"navigation":{"pages":["index","a"]}}`,
		"nav.json":       `{"pages":["index","a"]}`,
		"llms.txt":       "# Elsewhere\n",
		"guides/x.mdx":   "# X\n",
		"tree/docs.json": `{"navigation":{"pages":["index"]}}`,
		"tree/index.mdx": "# Home\n",
	})
	cases := []struct {
		name  string
		site  bool // ingest the site folder holding tzdocs/ instead of --tree
		files map[string]string
		setup func(t *testing.T, tree string)
		flags []string
		want  []string // in the error; OUT stands for the outside folder, TREE for the tree folder
	}{
		{name: "page links to /etc/passwd",
			files: map[string]string{"docs.json": `{"navigation":{"pages":["index","passwd"]}}`},
			setup: func(t *testing.T, tree string) { mustSymlink(t, "/etc/passwd", filepath.Join(tree, "passwd.md")) },
			want:  []string{"TREE/passwd.md", "/navigation/pages/1", "passwd.md is a symbolic link to /etc/passwd, outside the folder TREE"}},
		{name: "folder links out",
			files: map[string]string{"docs.json": `{"navigation":{"pages":["index","guides/x"]}}`},
			setup: func(t *testing.T, tree string) {
				mustSymlink(t, filepath.Join(outside, "guides"), filepath.Join(tree, "guides"))
			},
			want: []string{"guides/x.mdx passes through guides is a symbolic link to OUT/guides, outside the folder TREE"}},
		{name: "docs.json links out",
			setup: func(t *testing.T, tree string) {
				os.Remove(filepath.Join(tree, "docs.json"))
				mustSymlink(t, filepath.Join(outside, "docs.json"), filepath.Join(tree, "docs.json"))
			},
			want: []string{"TREE/docs.json: docs.json is a symbolic link to OUT/docs.json, outside the folder TREE"}},
		{name: "$ref file links out",
			files: map[string]string{"docs.json": `{"navigation":{"$ref":"nav.json"}}`},
			setup: func(t *testing.T, tree string) {
				mustSymlink(t, filepath.Join(outside, "nav.json"), filepath.Join(tree, "nav.json"))
			},
			want: []string{"TREE/docs.json at /navigation/$ref", "nav.json is a symbolic link to OUT/nav.json, outside the folder TREE"}},
		{name: "llms.txt links out",
			setup: func(t *testing.T, tree string) {
				mustSymlink(t, filepath.Join(outside, "llms.txt"), filepath.Join(tree, "llms.txt"))
			},
			want: []string{"TREE/llms.txt", "llms.txt is a symbolic link to OUT/llms.txt, outside the folder TREE"}},
		{name: "llms-full.txt links out",
			setup: func(t *testing.T, tree string) {
				mustSymlink(t, filepath.Join(outside, "llms.txt"), filepath.Join(tree, "llms-full.txt"))
			},
			want: []string{"llms-full.txt is a symbolic link to OUT/llms.txt, outside the folder TREE"}},
		{name: "page is /dev/null",
			files: map[string]string{"docs.json": `{"navigation":{"pages":["index","null"]}}`},
			setup: func(t *testing.T, tree string) { mustSymlink(t, "/dev/null", filepath.Join(tree, "null.md")) },
			want:  []string{"null.md is a symbolic link to /dev/null, outside the folder TREE"}},
		{name: "dangling page link",
			setup: func(t *testing.T, tree string) {
				os.Remove(filepath.Join(tree, "a.mdx"))
				mustSymlink(t, "nowhere.mdx", filepath.Join(tree, "a.mdx"))
			},
			want: []string{"a.mdx is a symbolic link to nowhere.mdx, which does not exist"}},
		{name: "page is a folder",
			files: map[string]string{"docs.json": `{"navigation":{"pages":["index","x"]}}`},
			setup: func(t *testing.T, tree string) {
				if err := os.Mkdir(filepath.Join(tree, "x.md"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"TREE/x.md", "x.md is a folder, not a regular file"}},
		{name: "two paths name one route",
			files: map[string]string{
				"docs.json":        `{"navigation":{"pages":["index","a","guides",{"group":"G","pages":["guides/index"]}]}}`,
				"guides.mdx":       "# Guides, the page\n\nfirst words\n",
				"guides/index.mdx": "# Guides, the index\n\nsecond words\n",
			},
			want: []string{`page paths "guides" (docs.json at /navigation/pages/2) and "guides/index" (docs.json at /navigation/pages/3/pages/0) both name the route /tzdocs/guides/`}},
		{name: "NUL in a page",
			files: map[string]string{"a.mdx": "# A\nok\nbad\x00byte\n"},
			want:  []string{"TREE/a.mdx", "control character U+0000 at line 3, column 4", "UTF-16"}},
		{name: "escape in a page",
			files: map[string]string{"a.mdx": "# A\n\né\x1b[31mred\n"},
			want:  []string{"TREE/a.mdx", "control character U+001B at line 3, column 2"}},
		{name: "NUL in llms.txt",
			files: map[string]string{"llms.txt": "# T\n\x00\n"},
			want:  []string{"TREE/llms.txt", "control character U+0000 at line 2, column 1"}},
		{name: "docs.json over its bound", flags: []string{"--max-manifest-bytes", "40"},
			want: []string{"TREE/docs.json", "over the bound of 40 bytes", "--max-manifest-bytes"}},
		{name: "$ref file over its bound", flags: []string{"--max-manifest-bytes", "60"},
			files: map[string]string{"docs.json": `{"navigation":{"$ref":"nav.json"}}`, "nav.json": `{"pages":["index","a"],"pad":"` + strings.Repeat("x", 60) + `"}`},
			want:  []string{"TREE/docs.json at /navigation/$ref", "nav.json is 92 bytes, over the bound of 60 bytes", "--max-manifest-bytes"}},
		{name: "llms.txt over its bound", flags: []string{"--max-llms-bytes", "10"},
			files: map[string]string{"llms.txt": "# A longer index than ten bytes\n"},
			want:  []string{"TREE/llms.txt", "over the bound of 10 bytes", "--max-llms-bytes"}},
		{name: "llms-full.txt over its bound", flags: []string{"--max-llms-bytes", "10"},
			files: map[string]string{"llms-full.txt": "# A longer text than ten bytes\n"},
			want:  []string{"TREE/llms-full.txt", "over the bound of 10 bytes", "--max-llms-bytes"}},
		{name: "navigation over the node bound", flags: []string{"--max-nav-nodes", "2"},
			want: []string{"TREE/docs.json at /navigation/pages/0", "more than 2 entries", "--max-nav-nodes"}},
		{name: "navigation over the depth bound", flags: []string{"--max-nav-depth", "3"},
			files: map[string]string{"docs.json": `{"navigation":{"groups":[{"group":"g","pages":["index","a"]}]}}`},
			want:  []string{"TREE/docs.json at /navigation/groups/0", "more than 3 objects and arrays deep", "--max-nav-depth"}},
		{name: "site tree folder links out", site: true,
			setup: func(t *testing.T, tree string) {
				os.RemoveAll(tree)
				mustSymlink(t, filepath.Join(outside, "tree"), tree)
			},
			want: []string{"tree folder tzdocs is a symbolic link to OUT/tree, outside the site folder", "--tree tzdocs=OUT/tree"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			site := t.TempDir()
			tree := filepath.Join(site, "tzdocs")
			testkit.WriteFiles(t, tree, goodTree)
			testkit.WriteFiles(t, tree, c.files)
			if c.setup != nil {
				c.setup(t, tree)
			}
			args := []string{"ingest", "--tree", "tzdocs=" + tree}
			if c.site {
				args = []string{"ingest", site}
			}
			data := t.TempDir()
			r := runCLI(t, data, append(args, c.flags...)...)
			if r.err == nil {
				t.Fatalf("ingest succeeded; want a refusal\n%s", r.stdout)
			}
			for _, w := range c.want {
				w = strings.NewReplacer("OUT", outside, "TREE", tree).Replace(w)
				if !strings.Contains(r.err.Error(), w) {
					t.Errorf("error\n  %s\ndoes not say\n  %s", r.err, w)
				}
			}
			if v := dirNames(t, filepath.Join(data, "versions")); len(v) != 0 {
				t.Errorf("a refused ingest left versions %v", v)
			}
			if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
				t.Errorf("a refused ingest left staging %v", left)
			}
		})
	}
}

// TestIngestFollowsLinksInside: links that stay inside the tree folder
// (relative or absolute, to a page or a folder), a site's tree folder
// linked to a folder inside the site, and a --tree folder given through a
// link are followed, and the pages serve the files they lead to.
func TestIngestFollowsLinksInside(t *testing.T) {
	site := t.TempDir()
	tree := filepath.Join(site, ".shared", "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docs.json":     `{"navigation":{"$ref":"nav/main.json"}}`,
		"real/nav.json": `{"pages":["index","rel","abs","dir/b"]}`,
		"index.mdx":     "# Home\n",
		"pages/a.mdx":   "# A by a link\n",
		"pages/b.mdx":   "# B through a linked folder\n",
		"real/llms.txt": "# Linked index\n\n- [Home](/tzdocs/)\n",
	})
	mustSymlink(t, "../real/nav.json", filepath.Join(tree, "nav", "main.json"))
	mustSymlink(t, "pages/a.mdx", filepath.Join(tree, "rel.md"))
	mustSymlink(t, filepath.Join(tree, "pages", "a.mdx"), filepath.Join(tree, "abs.md"))
	mustSymlink(t, "pages", filepath.Join(tree, "dir"))
	mustSymlink(t, "real/llms.txt", filepath.Join(tree, "llms.txt"))
	mustSymlink(t, ".shared/tzdocs", filepath.Join(site, "tzdocs"))

	for _, args := range [][]string{
		{"ingest", site},
		{"ingest", "--tree", "tzdocs=" + filepath.Join(site, "tzdocs")},
	} {
		data := t.TempDir()
		mustCLI(t, data, append(args, "--version", "v")...)
		st, err := store.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Activate(t.Context(), "v"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		v, err := st.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		tr := v.Tree("tzdocs")
		read := func(key string) string {
			x, err := tr.Text(key)
			if err != nil || x == nil {
				t.Fatalf("%v: no text %s (%v)", args, key, err)
			}
			return x.Slice(0, x.Total())
		}
		for key, want := range map[string]string{
			"/tzdocs/rel/":   "# A by a link\n",
			"/tzdocs/abs/":   "# A by a link\n",
			"/tzdocs/dir/b/": "# B through a linked folder\n",
			"index":          "# Linked index\n\n- [Home](/tzdocs/)\n",
		} {
			if got := read(key); got != want {
				t.Errorf("%v: %s = %q, want %q", args, key, got, want)
			}
		}
		v.Release()
		st.Close()
	}
}
