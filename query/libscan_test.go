package query

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/schemas"
)

// changedVersions serves the store's version with its library as change
// makes it.
type changedVersions struct {
	Versions
	change func(Library) Library
}

func (c changedVersions) Acquire() (Version, error) {
	v, err := c.Versions.Acquire()
	if err != nil {
		return nil, err
	}
	return changedVersion{v, c.change}, nil
}

type changedVersion struct {
	Version
	change func(Library) Library
}

func (v changedVersion) Library() (Library, error) {
	l, err := v.Version.(LibraryVersion).Library()
	if l == nil || err != nil {
		return l, err
	}
	return v.change(l), nil
}

// countedLibrary counts the reads of its files' bytes: a scan of a file
// reads its bytes once.
type countedLibrary struct {
	Library
	reads *atomic.Int64
}

func (c countedLibrary) FileBytes(entry, file int) ([]byte, error) {
	c.reads.Add(1)
	return c.Library.FileBytes(entry, file)
}

// changedFile is a library one of whose files (the first entry's first)
// holds other bytes, under another sum.
type changedFile struct {
	Library
	entries  []LibraryEntry
	contents []byte
}

func (c changedFile) Entries() []LibraryEntry { return c.entries }

func (c changedFile) FileBytes(entry, file int) ([]byte, error) {
	if entry == 0 && file == 0 {
		return c.contents, nil
	}
	return c.Library.FileBytes(entry, file)
}

// libraryFixture is a reader over the sample library as change makes it,
// and a read that pages a file at a limit to its end.
func libraryFixture(t *testing.T, change func(Library) Library) (*Reader, *LibraryListAnswer, func(name, path string, limit int) string) {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(Config{Limits: c.Limits()}, changedVersions{FromStore(testkit.SampleStore(t)), change})
	ctx := context.Background()
	list, _, err := r.ListLibrary(ctx, LibraryListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(name, path string, limit int) string {
		t.Helper()
		var text string
		off, stamp := 0, ""
		for {
			p := Paging{Limit: &limit}
			if off > 0 {
				p.Offset, p.Stamp = &off, &stamp
			}
			a, _, err := r.ReadLibraryEntry(ctx, LibraryReadRequest{Name: name, Path: &path, Paging: p})
			if err != nil {
				t.Fatalf("%s/%s at limit %d offset %d: %v", name, path, limit, off, err)
			}
			text += a.Text
			stamp = a.Stamp
			if a.NextOffset == nil {
				return text
			}
			off = *a.NextOffset
		}
	}
	return r, list, read
}

// TestLibraryFileScannedOnce: the reads of a library file, whole or
// paged at any limit, share one scan of it (its stamp, its places, its
// JSON members): its bytes are read, and scanned, once, not once per
// chunk (issue 34).
func TestLibraryFileScannedOnce(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	_, list, read := libraryFixture(t, func(l Library) Library { return countedLibrary{l, &reads} })
	files, jsons, chunks := 0, 0, 0
	for _, e := range list.Entries {
		for _, f := range e.Files {
			files++
			if f.MimeType == "application/json" {
				jsons++
			}
			for _, limit := range []int{16000, 64, 100, 257} {
				read(e.Name, f.Path, limit)
				chunks++
			}
		}
	}
	if files == 0 || jsons == 0 {
		t.Fatalf("the sample library has %d files, %d of them JSON; want both", files, jsons)
	}
	if n := reads.Load(); n != int64(files) {
		t.Errorf("%d reads of %d files (at least %d chunks) scanned %d times, want once per file", chunks, files, chunks, n)
	}
}

// TestChangedLibraryFileScannedAgain: a file whose text changed (another
// sum) is scanned again and read as its new text; the others keep their
// scans.
func TestChangedLibraryFileScannedAgain(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	changed := false
	_, list, read := libraryFixture(t, func(l Library) Library {
		if changed {
			entries := slices.Clone(l.Entries())
			e := entries[0]
			e.Files = slices.Clone(e.Files)
			e.Files[0].Sum = "changed"
			entries[0] = e
			l = changedFile{Library: l, entries: entries, contents: []byte("changed text\n")}
		}
		return countedLibrary{l, &reads}
	})
	files := 0
	for _, e := range list.Entries {
		for _, f := range e.Files {
			files++
			read(e.Name, f.Path, 100)
		}
	}
	changed = true
	name, path := list.Entries[0].Name, list.Entries[0].Files[0].Path
	if got := read(name, path, 64); got != "changed text\n" {
		t.Errorf("the changed file reads %q, want its new text", got)
	}
	for _, e := range list.Entries {
		for _, f := range e.Files {
			read(e.Name, f.Path, 100)
		}
	}
	if n := reads.Load(); n != int64(files)+1 {
		t.Errorf("%d files, one changed, were scanned %d times in all, want %d (each once, the changed one again)", files, n, files+1)
	}
}
