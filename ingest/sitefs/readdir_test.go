package sitefs

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// failingDir is an open folder whose listing fails part-way, as a folder
// on a failing disk does: the names read so far come with the error.
type failingDir struct {
	ents []fs.DirEntry
	err  error
}

func (d failingDir) ReadDir(int) ([]fs.DirEntry, error) { return d.ents, d.err }

// TestReadDirPartial: a listing cut short by an error other than the end
// of the folder (EIO) is refused, not taken as the whole folder, whether
// or not names came with it; the end of the folder (an empty folder reads
// as io.EOF) is no fault. No real disk fails on demand, so the open
// folder is the one stand-in.
func TestReadDirPartial(t *testing.T) {
	mem := fstest.MapFS{"a.md": {}, "b.md": {}}
	ents, err := fs.ReadDir(mem, ".")
	if err != nil {
		t.Fatal(err)
	}
	eio := &fs.PathError{Op: "readdirent", Path: "/site/guide", Err: syscall.EIO}
	for _, c := range []struct {
		name string
		dir  failingDir
	}{
		{"names then EIO", failingDir{ents, eio}},
		{"EIO alone", failingDir{nil, eio}},
	} {
		got, err := readDir(c.dir, 10)
		if err == nil || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "only in part") {
			t.Errorf("%s: %d names, %v; want a refusal wrapping EIO", c.name, len(got), err)
			continue
		}
		if le := (&Error{Name: "guide", Err: err, Folder: "/site"}).Error(); !strings.HasPrefix(le, "guide: ") || !strings.Contains(le, "input/output error") {
			t.Errorf("%s: error %q, want it to name the folder and the fault", c.name, le)
		}
	}
	for _, c := range []failingDir{{nil, io.EOF}, {ents, io.EOF}, {ents, nil}} {
		got, err := readDir(c, 10)
		if err != nil || len(got) != len(c.ents) {
			t.Errorf("%d names then %v: %d names, %v; want the names and no fault", len(c.ents), c.err, len(got), err)
		}
	}
}
