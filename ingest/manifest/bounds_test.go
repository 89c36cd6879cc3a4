package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// walkGuarded walks dir with opts. A walk that does not end is caught by
// go test's -timeout, never by a clock of its own: no verdict here
// depends on the machine's speed or load; the bound's refusal is what
// each test asserts.
func walkGuarded(t *testing.T, ctx context.Context, dir string, opts manifest.Options) (*manifest.Result, error) {
	t.Helper()
	return manifest.WalkDir(ctx, dir, opts)
}

// fanOut writes ten files of about 200 bytes, each referring ten times to
// the next: 10^10 pages after expansion.
func fanOut(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{"docs.json": `{"navigation":{"pages":[{"$ref":"f1.json"}]}}`}
	for i := 1; i <= 10; i++ {
		var refs []string
		for range 10 {
			if i == 10 {
				refs = append(refs, `"index"`)
			} else {
				refs = append(refs, fmt.Sprintf(`{"$ref":"f%d.json"}`, i+1))
			}
		}
		files[fmt.Sprintf("f%d.json", i)] = `{"group":"g","pages":[` + strings.Join(refs, ",") + `]}`
	}
	return writeSite(t, dir, files)
}

// TestFanOutIsBounded: a fan-out of references stops at the node bound,
// fast, naming the chain of files that led there.
func TestFanOutIsBounded(t *testing.T) {
	dir := fanOut(t)
	start := time.Now()
	_, err := walkGuarded(t, context.Background(), dir, manifest.Options{})
	if !errors.Is(err, manifest.ErrTooManyNodes) {
		t.Fatalf("walk = %v, want ErrTooManyNodes", err)
	}
	t.Logf("refused after %v: %v", time.Since(start), err)
	var me *manifest.Error
	if !errors.As(err, &me) {
		t.Fatalf("%T is not a *manifest.Error", err)
	}
	for _, w := range []string{"more than 1000000 entries", "docs.json → f1.json → f2.json → f3.json", "--max-nav-nodes"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if me.Pointer == "" || !strings.HasPrefix(me.File, "f") {
		t.Errorf("error at %s %q, want a pointer into one of the f*.json files", me.File, me.Pointer)
	}

	// A smaller bound stops sooner; a larger one than needed walks it all.
	_, err = walkGuarded(t, context.Background(), dir, manifest.Options{MaxNodes: 50})
	if !errors.Is(err, manifest.ErrTooManyNodes) || !strings.Contains(err.Error(), "more than 50 entries") {
		t.Errorf("MaxNodes 50: %v", err)
	}
	small := writeSite(t, t.TempDir(), map[string]string{
		"docs.json": `{"navigation":{"pages":[{"$ref":"a.json"},{"$ref":"a.json"}]}}`,
		"a.json":    `["x","y"]`,
	})
	// Visited: the navigation object, the pages array, two ref objects,
	// the referenced array at each, four strings = 10.
	if res, err := walkGuarded(t, context.Background(), small, manifest.Options{MaxNodes: 10}); err != nil || res.Duplicates != 2 {
		t.Errorf("MaxNodes 10 on 10 values: %v, %+v", err, res)
	}
	if _, err := walkGuarded(t, context.Background(), small, manifest.Options{MaxNodes: 9}); !errors.Is(err, manifest.ErrTooManyNodes) {
		t.Errorf("MaxNodes 9 on 10 values: %v", err)
	}
}

// TestWalkStopsOnContext: a walk that would not end for its bound (10^10
// pages, the node bound out of reach) stops when its context ends; one
// that did not look would run until go test's -timeout, so the verdict
// needs no clock of its own.
func TestWalkStopsOnContext(t *testing.T) {
	dir := fanOut(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := walkGuarded(t, ctx, dir, manifest.Options{MaxNodes: 1 << 40})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("walk = %v, want the context's deadline", err)
	}
}

// deepManifest nests n groups, each listing k pages before the next group.
func deepManifest(n, k int) string {
	var b strings.Builder
	b.WriteString(`{"navigation":{"groups":[`)
	for i := range n {
		fmt.Fprintf(&b, `{"group":"g%d","pages":[`, i)
		for j := range k {
			fmt.Fprintf(&b, `"p%d_%d",`, i, j)
		}
	}
	b.WriteString(`"last"`)
	b.WriteString(strings.Repeat("]}", n))
	b.WriteString(`]}}`)
	return b.String()
}

// TestDepthBound: nesting past the depth bound is refused with the pointer
// of the first value too deep; within it, pointers are as before.
func TestDepthBound(t *testing.T) {
	dir := writeSite(t, t.TempDir(), map[string]string{"docs.json": deepManifest(4000, 37)})
	start := time.Now()
	_, err := walkGuarded(t, context.Background(), dir, manifest.Options{})
	if !errors.Is(err, manifest.ErrTooDeep) {
		t.Fatalf("walk = %v, want ErrTooDeep", err)
	}
	t.Logf("refused after %v", time.Since(start))
	for _, w := range []string{"more than 64 objects and arrays deep", "--max-nav-depth"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	var me *manifest.Error
	if errors.As(err, &me) {
		// docs.json's root object stands at depth 0, so the first container
		// past the bound stands at depth 64, 64 tokens below the root.
		if n := strings.Count(me.Pointer, "/"); n != 64 {
			t.Errorf("pointer %q has %d tokens, want 64", me.Pointer, n)
		}
	}

	// Across $ref files the depth adds up.
	refDir := writeSite(t, t.TempDir(), map[string]string{
		"docs.json": `{"navigation":{"groups":[{"group":"a","pages":[{"$ref":"g.json"}]}]}}`,
		"g.json":    `{"group":"b","pages":[{"group":"c","pages":["x"]}]}`,
	})
	// Nine levels of containers: the root, navigation, groups, group a,
	// its pages, the $ref object (g.json's root stands in its place), g's
	// pages, group c and its pages.
	if _, err := walkGuarded(t, context.Background(), refDir, manifest.Options{MaxDepth: 9}); err != nil {
		t.Errorf("nine levels within MaxDepth 9: %v", err)
	}
	_, err = walkGuarded(t, context.Background(), refDir, manifest.Options{MaxDepth: 8})
	if !errors.Is(err, manifest.ErrTooDeep) || !errors.As(err, &me) || me.File != "g.json" || me.Pointer != "/pages/0/pages" {
		t.Errorf("nine levels past MaxDepth 8: %v", err)
	}

	// A deep manifest within a raised bound walks, with the same pointers.
	res, err := walkGuarded(t, context.Background(), writeSite(t, t.TempDir(), map[string]string{"docs.json": deepManifest(100, 2)}), manifest.Options{MaxDepth: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := "/navigation/groups/0" + strings.Repeat("/pages/2", 99) + "/pages/1"
	if p := res.Pages[len(res.Pages)-2]; p.Path != "p99_1" || p.Pointer != want {
		t.Errorf("page %q at %q, want p99_1 at %q", p.Path, p.Pointer, want)
	}
}

// TestManifestFilesThroughSitefs: docs.json and $ref files are read through
// sitefs, so links out of the folder and files that are not regular are
// refused, naming them, without blocking.
func TestManifestFilesThroughSitefs(t *testing.T) {
	outside := writeSite(t, t.TempDir(), map[string]string{"docs.json": `{"navigation":{"pages":["stolen"]}}`, "nav.json": `{"pages":["stolen"]}`})
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		kind  error
		msg   string // the whole message; OUT and DIR stand for the folders
	}{
		{"docs.json links out", func(t *testing.T, dir string) {
			symlink(t, filepath.Join(outside, "docs.json"), filepath.Join(dir, "docs.json"))
		}, sitefs.ErrOutside, "docs.json: docs.json is a symbolic link to OUT/docs.json, outside the folder DIR; copy the file into the documentation folder, or make the link point inside it"},
		{"$ref file links out", func(t *testing.T, dir string) {
			writeSite(t, dir, map[string]string{"docs.json": `{"navigation":{"$ref":"nav.json"}}`})
			symlink(t, filepath.Join(outside, "nav.json"), filepath.Join(dir, "nav.json"))
		}, sitefs.ErrOutside, `docs.json at /navigation/$ref: reference "nav.json" names nav.json, which cannot be read: nav.json is a symbolic link to OUT/nav.json, outside the folder DIR; copy the file into the documentation folder, or make the link point inside it`},
		{"docs.json is a FIFO", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "docs.json"))
		}, sitefs.ErrNotRegular, "docs.json: docs.json is a named pipe (FIFO), not a regular file; make docs.json a regular JSON file"},
		{"$ref file is a FIFO", func(t *testing.T, dir string) {
			writeSite(t, dir, map[string]string{"docs.json": `{"navigation":{"$ref":"nav.json"}}`})
			mkfifo(t, filepath.Join(dir, "nav.json"))
		}, sitefs.ErrNotRegular, `docs.json at /navigation/$ref: reference "nav.json" names nav.json, which cannot be read: nav.json is a named pipe (FIFO), not a regular file; reference a regular JSON file`},
		{"docs.json is /dev/zero", func(t *testing.T, dir string) {
			symlink(t, "/dev/zero", filepath.Join(dir, "docs.json"))
		}, sitefs.ErrOutside, "docs.json: docs.json is a symbolic link to /dev/zero, outside the folder DIR; copy the file into the documentation folder, or make the link point inside it"},
		{"docs.json is a folder", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "docs.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, sitefs.ErrNotRegular, "docs.json: docs.json is a folder, not a regular file; make docs.json a regular JSON file"},
		{"docs.json over the bound", func(t *testing.T, dir string) {
			writeSite(t, dir, map[string]string{"docs.json": `{"navigation":{"pages":["a"]}, "pad": "` + strings.Repeat("x", 100) + `"}`})
		}, sitefs.ErrTooLarge, "docs.json: docs.json is 141 bytes, over the bound of 100 bytes; split the manifest with $ref files, or raise the bound with --max-manifest-bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			_, err := walkGuarded(t, context.Background(), dir, manifest.Options{MaxFileBytes: 100})
			if !errors.Is(err, c.kind) {
				t.Fatalf("walk = %v, want %v", err, c.kind)
			}
			if want := strings.NewReplacer("OUT", outside, "DIR", dir).Replace(c.msg); err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
		})
	}
	// A link inside the folder to a file inside it is followed.
	dir := writeSite(t, t.TempDir(), map[string]string{"real/docs.json": `{"navigation":{"$ref":"nav.json"}}`, "real/nav.json": `{"pages":["a"]}`})
	symlink(t, "real/docs.json", filepath.Join(dir, "docs.json"))
	symlink(t, filepath.Join(dir, "real", "nav.json"), filepath.Join(dir, "nav.json"))
	if res, err := walkGuarded(t, context.Background(), dir, manifest.Options{}); err != nil || len(res.Pages) != 1 {
		t.Errorf("links inside the folder: %v", err)
	}
	// A missing docs.json still matches fs.ErrNotExist.
	if _, err := walkGuarded(t, context.Background(), t.TempDir(), manifest.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing docs.json: %v", err)
	}
}

// TestSiteName: the root manifest's name member is the Result's Name.
func TestSiteName(t *testing.T) {
	dir := writeSite(t, t.TempDir(), map[string]string{"docs.json": `{"name":"Site","navigation":{"pages":["a"]}}`})
	res, err := manifest.Walk(dir)
	if err != nil || res.Name != "Site" {
		t.Errorf("Walk = %+v, %v; want the name Site", res, err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, name string) {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Fatal(err)
	}
}
