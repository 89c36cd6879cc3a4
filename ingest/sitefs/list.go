package sitefs

import (
	"context"
	"io/fs"
	"sort"
)

// ReadDir lists the folder name (slash-separated, relative to the folder;
// "." for the folder itself), sorted by name, reading at most limit
// entries. The name must resolve, after symbolic links, to a folder inside
// the folder; a refusal is an *Error as ReadFile's. The entries are
// described as they are, not followed: a symbolic link is listed as one,
// and reading through it is ReadFile's or a further ReadDir's to refuse.
func (f *Folder) ReadDir(ctx context.Context, name string, limit int) ([]fs.DirEntry, error) {
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
	ents, err := d.ReadDir(limit + 1)
	if err != nil && len(ents) == 0 && limit > 0 {
		// An empty folder reads as io.EOF.
		ents = nil
	}
	if len(ents) > limit {
		return nil, &Error{Name: name, Err: ErrTooLarge, Limit: int64(limit), Folder: f.dir}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}
