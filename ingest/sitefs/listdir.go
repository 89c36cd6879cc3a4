package sitefs

import (
	"context"
	"io/fs"
	"sort"
)

// DirEntry is one name in a folder ListDir read: a subfolder or a file.
type DirEntry struct {
	Name  string
	IsDir bool
}

// ListDir returns the names in the folder name (slash-separated, relative
// to the folder; "." for the folder itself), sorted, at most limit of them.
// A symbolic link is listed as what it resolves to where that is inside the
// folder, and left out where it leads outside or nowhere; named pipes,
// devices and sockets are left out. A name that resolves outside the folder
// is refused as ReadFile refuses it.
func (f *Folder) ListDir(ctx context.Context, name string, limit int) ([]DirEntry, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	rel := "."
	if name != "." && name != "" {
		r, err := f.resolve(name)
		if err != nil {
			return nil, false, err
		}
		rel = r
	}
	d, err := f.root.Open(rel)
	if err != nil {
		return nil, false, &Error{Name: name, Err: err, Folder: f.dir}
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil || !fi.IsDir() {
		return nil, false, &Error{Name: name, Err: fs.ErrInvalid, Kind: "not a folder", Folder: f.dir}
	}
	names, err := d.Readdirnames(limit + 1)
	if err != nil && len(names) == 0 {
		return nil, false, nil
	}
	more := len(names) > limit
	if more {
		names = names[:limit]
	}
	sort.Strings(names)
	out := make([]DirEntry, 0, len(names))
	for _, n := range names {
		full := n
		if name != "." && name != "" {
			full = name + "/" + n
		}
		r, err := f.resolve(full)
		if err != nil {
			continue
		}
		st, err := f.root.Stat(r)
		if err != nil {
			continue
		}
		switch {
		case st.IsDir():
			out = append(out, DirEntry{Name: n, IsDir: true})
		case st.Mode().IsRegular():
			out = append(out, DirEntry{Name: n})
		}
	}
	return out, more, nil
}
