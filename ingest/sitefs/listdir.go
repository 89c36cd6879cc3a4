package sitefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

// DirEntry is one name in a folder ListDir read.
type DirEntry struct {
	Name string
	// IsDir: the name is a folder itself, not a symbolic link to one.
	IsDir bool
	// Link: the name is a symbolic link, listed as it is, not followed.
	Link bool
}

// ListDir lists the folder name (slash-separated, relative to the folder;
// "." for the folder itself), sorted by name: its folders, regular files
// and symbolic links, at most limit names. The name must resolve, after
// symbolic links, to a folder inside the folder; a refusal is an *Error as
// ReadFile's, and a folder of more than limit names is refused with
// ErrTooLarge rather than cut at an arbitrary name.
//
// A symbolic link is listed as a link and never as a folder, so a walk
// that descends only into IsDir names cannot follow a link cycle; reading
// through a link is ReadFile's (or a further ListDir's) to allow or refuse,
// by name, where it leads outside the folder or nowhere. Named pipes,
// devices and sockets are left out: they are never a page.
func (f *Folder) ListDir(ctx context.Context, name string, limit int) ([]DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel := "."
	if name != "." && name != "" {
		r, err := f.resolve(name)
		if err != nil {
			return nil, err
		}
		rel = r
	}
	fi, err := f.root.Stat(rel)
	if err != nil {
		return nil, &Error{Name: name, Err: err, Folder: f.dir}
	}
	if !fi.IsDir() {
		return nil, &Error{Name: name, Kind: Describe(fi.Mode()), Err: ErrNotRegular, Folder: f.dir}
	}
	d, err := f.root.Open(rel)
	if err != nil {
		return nil, &Error{Name: name, Err: err, Folder: f.dir}
	}
	defer d.Close()
	limit = max(limit, 0)
	ents, err := readDir(d, limit+1)
	if err != nil {
		return nil, &Error{Name: name, Err: err, Folder: f.dir}
	}
	if len(ents) > limit {
		return nil, &Error{Name: name, Kind: KindFolder, Err: ErrTooLarge, Limit: int64(limit), Folder: f.dir}
	}
	out := make([]DirEntry, 0, len(ents))
	for _, e := range ents {
		switch t := e.Type(); {
		case t.IsDir():
			out = append(out, DirEntry{Name: e.Name(), IsDir: true})
		case t.IsRegular():
			out = append(out, DirEntry{Name: e.Name()})
		case t&fs.ModeSymlink != 0:
			out = append(out, DirEntry{Name: e.Name(), Link: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// dirReader is what readDir needs of an open folder.
type dirReader interface {
	ReadDir(n int) ([]fs.DirEntry, error)
}

// readDir reads at most n names of the open folder d. The end of the
// folder (io.EOF, which is how an empty folder reads) is no fault; any
// other error is returned even where some names came with it, so that a
// folder the system could read only in part (EIO on a failing disk) is
// refused rather than taken as complete.
func readDir(d dirReader, n int) ([]fs.DirEntry, error) {
	ents, err := d.ReadDir(n)
	if err != nil && !errors.Is(err, io.EOF) {
		// The path is the caller's to name; the fault is the system's.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("the folder was listed only in part (%d names read, then %w): check the disk and the folder's permissions, and ingest again", len(ents), err)
	}
	return ents, nil
}
