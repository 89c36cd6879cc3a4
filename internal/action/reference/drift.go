package reference

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrDrift is the error, in the chain of Check's, of a folder whose pages
// differ from the generated ones.
var ErrDrift = errors.New("the committed reference differs from the generated one")

// Drift is one file of a reference folder that differs from what the
// generator gives.
type Drift struct {
	File    string // the file's name in the folder
	Problem string // "stale", "missing" or "extra"
}

// DriftError lists every drifted file of a folder and the command that
// regenerates it.
type DriftError struct {
	Dir     string
	Drifts  []Drift
	Command string // the command that rewrites the folder
}

func (e *DriftError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the reference in %s is not what the contract sources generate:", e.Dir)
	for _, d := range e.Drifts {
		p := filepath.Join(e.Dir, d.File)
		switch d.Problem {
		case "stale":
			fmt.Fprintf(&b, "\n  %s is stale", p)
		case "missing":
			fmt.Fprintf(&b, "\n  %s is missing", p)
		default:
			fmt.Fprintf(&b, "\n  %s is extra: no action of the enumeration generates it", p)
		}
	}
	fmt.Fprintf(&b, "\nregenerate it with: %s", e.Command)
	return b.String()
}

// Is reports whether target is ErrDrift.
func (e *DriftError) Is(target error) bool { return target == ErrDrift }

// Check compares the folder dir with pages: a page whose file differs is
// stale, a page without a file is missing, and any other entry of the
// folder is extra. It returns nil where the folder is what pages give,
// and otherwise a *DriftError naming every drifted file and command, the
// command that rewrites the folder.
func Check(dir string, pages []Page, command string) error {
	var drifts []Drift
	want := map[string]bool{}
	for _, p := range pages {
		want[p.File] = true
		got, err := os.ReadFile(filepath.Join(dir, p.File))
		switch {
		case errors.Is(err, os.ErrNotExist):
			drifts = append(drifts, Drift{File: p.File, Problem: "missing"})
		case err != nil:
			return err
		case !bytes.Equal(got, []byte(p.Markdown)):
			drifts = append(drifts, Drift{File: p.File, Problem: "stale"})
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var extra []string
	for _, e := range ents {
		if !want[e.Name()] {
			extra = append(extra, e.Name())
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		drifts = append(drifts, Drift{File: name, Problem: "extra"})
	}
	if len(drifts) == 0 {
		return nil
	}
	return &DriftError{Dir: dir, Drifts: drifts, Command: command}
}

// Write makes the folder dir what pages give: it writes each page whose
// file differs, through a temporary file renamed into place, and removes
// the Markdown files (.md, .mdx) no page generates, pages of actions the
// enumeration no longer holds. It leaves any other entry, which Check
// then reports as extra. It returns the names of the files it wrote and
// of those it removed.
func Write(dir string, pages []Page) (written, removed []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	for _, p := range pages {
		want[p.File] = true
		path := filepath.Join(dir, p.File)
		if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, []byte(p.Markdown)) {
			continue
		}
		if err := writeAtomic(path, []byte(p.Markdown)); err != nil {
			return written, nil, err
		}
		written = append(written, p.File)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return written, nil, err
	}
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if want[e.Name()] || !e.Type().IsRegular() || (ext != ".md" && ext != ".mdx") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return written, removed, err
		}
		removed = append(removed, e.Name())
	}
	return written, removed, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder, renamed over path, so a reader sees the old file or the new.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
