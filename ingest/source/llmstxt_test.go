package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/stepctx"
)

// TestLLMSTxtLinkPathBound: a link whose path is over --max-path-bytes
// (4096 bytes by default) is refused, naming the line, the bound and its
// flag. A 40 KB link of this shape once took 18.7 s, a 100 KB one 117 s.
func TestLLMSTxtLinkPathBound(t *testing.T) {
	dir := folder(t, map[string]string{
		"llms.txt": "# Site\n\n- [x](" + strings.Repeat("a/", 5000) + "b)\n- [Home](index.md)\n",
		"index.md": "# Home\n",
	})
	_, err := LLMSTxt{}.Read(context.Background(), dir, Options{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Read = %v, want an *Error refusing the link", err)
	}
	for _, want := range []string{"llms.txt:3:", "10001 bytes, over the bound of 4096 bytes", "--max-path-bytes"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("error %q does not say %q", e.Error(), want)
		}
	}
}

// TestLLMSTxtLinkWorkIsLinear: a link just under the path bound whose
// every folder names a folder that exists costs work linear in its
// length, counted in bytes allocated: the old search rebuilt and split
// the path once per leading folder dropped, about 200 MB for this 4 KB
// link, where the reader now allocates well under 1 MiB. The page is
// still found by dropping leading folders (a site's base path).
func TestLLMSTxtLinkWorkIsLinear(t *testing.T) {
	dir := folder(t, map[string]string{
		"llms.txt": "# Site\n\n- [B](" + strings.Repeat("a/", 2000) + "b)\n",
		"a/b.md":   "# B\n",
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tree, err := LLMSTxt{}.Read(context.Background(), dir, Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Pages) != 1 || tree.Pages[0].File != "a/b.md" {
		t.Fatalf("pages %+v, want a/b.md", tree.Pages)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading a 4 KB link allocated %d bytes, want under 1 MiB", n)
	}
}

// TestLLMSTxtStopsAtTheNextLink: a stop is seen at the next link of a
// line, not at the next line: a line may hold a million links, each a
// look-up in the folder.
func TestLLMSTxtStopsAtTheNextLink(t *testing.T) {
	dir := folder(t, map[string]string{
		"llms.txt": strings.Repeat("[x](nope) ", 200),
		"index.md": "# Home\n",
	})
	// Checks 1 and 2 are reading the file's, 3 the line's, 4 the first
	// link's.
	ctx := stepctx.New(3)
	_, err := LLMSTxt{}.Read(ctx, dir, Options{})
	if !errors.Is(err, context.Canceled) || ctx.Checks() != 4 {
		t.Fatalf("Read = %v after %d checks, want context.Canceled at check 4 (the first link)", err, ctx.Checks())
	}
}

// TestLLMSTxtLinksCountAsNodes: links count against --max-nav-nodes with
// the lines, so one long line of links is bounded too.
func TestLLMSTxtLinksCountAsNodes(t *testing.T) {
	dir := folder(t, map[string]string{
		"llms.txt": strings.Repeat("[x](index.md) ", 20) + "\n",
		"index.md": "# Home\n",
	})
	_, err := LLMSTxt{}.Read(context.Background(), dir, Options{MaxNodes: 10})
	if err == nil || !strings.Contains(err.Error(), "more than 10 lines and links") || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Fatalf("Read = %v, want the node bound named", err)
	}
}

// TestWalkStopsAtTheNextName: a walk sees a stop at the next name of a
// folder, which may hold up to the node bound's names.
func TestWalkStopsAtTheNextName(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("p%02d.md", i)] = "# P\n"
	}
	dir := folder(t, files)
	// Check 1 is the listing's, check 2 the first name's.
	ctx := stepctx.New(1)
	w := &walker{ctx: ctx, dir: dir, opts: Options{}.withDefaults()}
	_, err := w.walk(".", 0, nil)
	if !errors.Is(err, context.Canceled) || ctx.Checks() != 2 {
		t.Fatalf("walk = %v after %d checks, want context.Canceled at check 2 (the first name)", err, ctx.Checks())
	}
}

// TestWalkPathBound: a walk refuses a path over --max-path-bytes, naming
// it quoted and the flag.
func TestWalkPathBound(t *testing.T) {
	dir := folder(t, map[string]string{"short/" + strings.Repeat("n", 40) + ".md": "# N\n"})
	_, err := Markdown{}.Read(context.Background(), dir, Options{MaxPathBytes: 32})
	if err == nil || !strings.Contains(err.Error(), `"short/nnnn`) || !strings.Contains(err.Error(), "over the bound of 32 bytes") || !strings.Contains(err.Error(), "--max-path-bytes") {
		t.Fatalf("Read = %v, want the path bound named", err)
	}
}

// TestLLMSTxtLinksThroughLinks: matching links against the folder's
// listings finds what sitefs.Folder.Exists finds: a page through a
// symbolic link to a folder inside, a folder's index, a page less a base
// path; a name below a link out of the folder or to nowhere counts as
// present, so that reading it names the link; a file is no folder.
func TestLLMSTxtLinksThroughLinks(t *testing.T) {
	dir := folder(t, map[string]string{
		"llms.txt": "# Site\n\n" +
			"- [A](https://example.com/base/real/a)\n" +
			"- [Via](/linked/b.md)\n" +
			"- [Index](real/sub/)\n" +
			"- [Out](out/x.md)\n" +
			"- [Nowhere](gone/y)\n" +
			"- [File](real/a.md/z)\n",
		"real/a.md":         "# A\n",
		"real/b.md":         "# B\n",
		"real/sub/index.md": "# Sub\n",
	})
	root := dir.Dir()
	for link, target := range map[string]string{"linked": "real", "out": t.TempDir(), "gone": "missing"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := LLMSTxt{}.Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range tree.Pages {
		got = append(got, p.File)
	}
	want := []string{"real/a.md", "linked/b.md", "real/sub/index.md", "out/x.md", "gone/y.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") || tree.Skipped != 1 {
		t.Errorf("files %v, %d skipped; want %v, 1 skipped", got, tree.Skipped, want)
	}
}
