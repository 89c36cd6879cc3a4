package sitefs_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// readGuarded calls ReadFile in a goroutine and fails the test if it has
// not returned within a few seconds: a read that blocks is a regression,
// and must not hang the test binary.
func readGuarded(t *testing.T, f *sitefs.Folder, name string, limit int64) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		d, err := f.ReadFile(context.Background(), name, limit)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("ReadFile(%q) still blocks after 5 s", name)
		return nil, nil
	}
}

func TestReadFile(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "site")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub"), filepath.Join(dir, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "a.md"), "page a")
	write(filepath.Join(dir, "real", "b.md"), "page b")
	write(filepath.Join(outside, "secret.md"), "secret")
	link("a.md", "rel.md")
	link(filepath.Join(dir, "a.md"), "abs.md")
	link("../site/a.md", "outback.md")
	link("real", "linked")
	link("/etc/passwd", "passwd.md")
	link(outside, "out")
	link("nowhere.md", "dangling.md")
	link("/dev/zero", "zero.md")
	link("/dev/null", "null.md")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("fifo.md", "tofifo.md")
	if err := os.Mkdir(filepath.Join(dir, "folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}

	f, err := sitefs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	for name, want := range map[string]string{
		"a.md": "page a", "rel.md": "page a", "abs.md": "page a", "outback.md": "page a",
		"linked/b.md": "page b", "real/b.md": "page b",
	} {
		data, err := readGuarded(t, f, name, 100)
		if err != nil || string(data) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, data, err, want)
		}
	}

	cases := []struct {
		name string
		kind error
		msg  string // the whole message; DIR and OUT stand for the folders
	}{
		{"passwd.md", sitefs.ErrOutside, "passwd.md is a symbolic link to /etc/passwd, outside the folder DIR"},
		{"out/secret.md", sitefs.ErrOutside, "out/secret.md passes through out is a symbolic link to OUT, outside the folder DIR"},
		{"zero.md", sitefs.ErrOutside, "zero.md is a symbolic link to /dev/zero, outside the folder DIR"},
		{"null.md", sitefs.ErrOutside, "null.md is a symbolic link to /dev/null, outside the folder DIR"},
		{"dangling.md", fs.ErrNotExist, "dangling.md is a symbolic link to nowhere.md, which does not exist"},
		{"fifo.md", sitefs.ErrNotRegular, "fifo.md is a named pipe (FIFO), not a regular file"},
		{"tofifo.md", sitefs.ErrNotRegular, "tofifo.md is a symbolic link to fifo.md, which is a named pipe (FIFO), not a regular file"},
		{"folder.md", sitefs.ErrNotRegular, "folder.md is a folder, not a regular file"},
		{"missing.md", fs.ErrNotExist, "missing.md does not exist"},
		{"a.md/x", fs.ErrNotExist, "a.md/x does not exist"},
	}
	for _, c := range cases {
		_, err := readGuarded(t, f, c.name, 100)
		if !errors.Is(err, c.kind) {
			t.Errorf("ReadFile(%q) = %v; want %v", c.name, err, c.kind)
			continue
		}
		var se *sitefs.Error
		if !errors.As(err, &se) {
			t.Errorf("ReadFile(%q): %T is not a *sitefs.Error", c.name, err)
			continue
		}
		want := strings.NewReplacer("DIR", dir, "OUT", outside).Replace(c.msg)
		if se.Error() != want {
			t.Errorf("ReadFile(%q):\n got %s\nwant %s", c.name, se, want)
		}
	}

	// The bound: a file of the bound's size reads, one byte more is refused.
	if _, err := readGuarded(t, f, "a.md", 6); err != nil {
		t.Errorf("a file at the bound: %v", err)
	}
	_, err = readGuarded(t, f, "a.md", 5)
	var se *sitefs.Error
	if !errors.Is(err, sitefs.ErrTooLarge) || !errors.As(err, &se) || se.Size != 6 || se.Limit != 5 || se.Error() != "a.md is 6 bytes, over the bound of 5 bytes" {
		t.Errorf("a file over the bound: %v (%+v)", err, se)
	}

	// A cancelled context reads nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.ReadFile(ctx, "a.md", 100); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with a cancelled context = %v", err)
	}

	// Exists says whether ReadFile has anything to report on.
	for name, want := range map[string]bool{"a.md": true, "passwd.md": true, "dangling.md": true, "fifo.md": true, "out/x.md": true, "missing.md": false, "sub/missing.md": false} {
		if got := f.Exists(name); got != want {
			t.Errorf("Exists(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestOpenThroughLink: the folder given may itself be a link; the folder it
// leads to is the boundary.
func TestOpenThroughLink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "a.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	f, err := sitefs.Open(filepath.Join(base, "link"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, err := readGuarded(t, f, "a.md", 10); err != nil || string(data) != "a" {
		t.Errorf("ReadFile through a linked folder = %q, %v", data, err)
	}
}
