package sitefs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// TestListDir: the one folder lister lists folders, files and links as
// they are (a link never as a folder, so no walk follows a cycle), leaves
// out a named pipe, refuses a folder reached through a link out of the
// folder and one of more names than the bound, and does so without
// blocking.
func TestListDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "site")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(dir, "guide"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"guide/a.md", "index.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"guide/loop": "..",                                // a cycle back up
		"self":       "self",                              // a link to itself
		"out":        outside,                             // a folder outside
		"out.md":     filepath.Join(outside, "secret.md"), // a file outside
		"inside.md":  "index.md",                          // a file inside
		"nowhere.md": "gone.md",                           // a dangling link
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := sitefs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	list := func(name string) string {
		t.Helper()
		ents, err := f.ListDir(ctx, name, 100)
		if err != nil {
			t.Fatalf("ListDir(%q): %v", name, err)
		}
		var b []string
		for _, e := range ents {
			b = append(b, fmt.Sprintf("%s:%v:%v", e.Name, e.IsDir, e.Link))
		}
		return strings.Join(b, " ")
	}
	if got, want := list("."), "guide:true:false index.md:false:false inside.md:false:true nowhere.md:false:true out:false:true out.md:false:true self:false:true"; got != want {
		t.Errorf("ListDir(.) = %s\nwant        %s", got, want)
	}
	if got, want := list("guide"), "a.md:false:false loop:false:true"; got != want {
		t.Errorf("ListDir(guide) = %s, want %s", got, want)
	}
	// Listing through the cycle is allowed (it stays inside) but never
	// reached by a walk, which descends only into IsDir names.
	if got := list("guide/loop"); !strings.HasPrefix(got, "guide:true:false ") {
		t.Errorf("ListDir(guide/loop) = %s", got)
	}
	if _, err := f.ListDir(ctx, "out", 100); !errors.Is(err, sitefs.ErrOutside) || !strings.Contains(err.Error(), "out is a symbolic link to "+outside) {
		t.Errorf("ListDir through a link out: %v, want ErrOutside naming the link", err)
	}
	if _, err := f.ListDir(ctx, "self", 100); err == nil {
		t.Error("ListDir through a link to itself: no error")
	}
	if _, err := f.ListDir(ctx, "index.md", 100); !errors.Is(err, sitefs.ErrNotRegular) {
		t.Errorf("ListDir of a file: %v, want ErrNotRegular", err)
	}
	_, err = f.ListDir(ctx, ".", 3)
	var e *sitefs.Error
	if !errors.Is(err, sitefs.ErrTooLarge) || !errors.As(err, &e) || e.Limit != 3 || !strings.Contains(err.Error(), "holds more than 3 names") || strings.Contains(err.Error(), "bytes") {
		t.Errorf("ListDir over the bound: %v, want ErrTooLarge with the limit 3, in names, not bytes", err)
	}
	if ents, err := f.ListDir(ctx, "guide", 2); err != nil || len(ents) != 2 {
		t.Errorf("ListDir at the bound: %v %v", ents, err)
	}
}
