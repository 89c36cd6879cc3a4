// Package sitefs is the one way ingest reads the files of a documentation
// folder: every page, manifest, $ref file and llms text goes through
// Folder.ReadFile, which reads a file only where its name resolves, after
// symbolic links, to a regular file inside the folder, and reads at most a
// bound of bytes without ever blocking.
//
// A symbolic link inside the folder that resolves inside it is followed,
// whether its target is written relative or absolute. A link that resolves
// outside the folder, a dangling link, and anything that is not a regular
// file (a folder, a named pipe, a device, a socket) are refused with an
// *Error naming the file, and for a link where it points. The decision is
// made on the resolved path; the file is then opened through an os.Root of
// the folder with O_NONBLOCK and checked again on the open handle, so a
// file swapped for a link or a pipe between the check and the open can
// neither escape the folder nor block the read.
package sitefs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/turnzerocloud/tzctx"
)

// ErrOutside, ErrNotRegular and ErrTooLarge are the faults ReadFile
// reports besides fs.ErrNotExist; check them with errors.Is.
var (
	// ErrOutside: the name resolves, after symbolic links, outside the folder.
	ErrOutside = errors.New("resolves outside the folder")
	// ErrNotRegular: the name is a folder, a named pipe, a device or a socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more bytes than the bound.
	ErrTooLarge = errors.New("over the size bound")
)

// maxLinks bounds the symbolic links one name may pass through, as the
// kernel does.
const maxLinks = 40

// Error is a file ReadFile refused.
type Error struct {
	// Name is the file as asked for, slash-separated, relative to the folder.
	Name string
	// Link is the symbolic link at fault, relative to the folder, where a
	// link is (the name itself or one of its parent folders).
	Link string
	// Target is where Link points, as written in the link.
	Target string
	// Resolved is where Link leads after every link is followed, where it
	// differs from Target.
	Resolved string
	// Kind describes what a non-regular file is, e.g. "a named pipe (FIFO)".
	Kind string
	// Size and Limit are the file's size and the bound, for ErrTooLarge.
	Size, Limit int64
	// Err is ErrOutside, ErrNotRegular, ErrTooLarge, fs.ErrNotExist or the
	// system's error.
	Err error
	// Folder is the folder as given to Open.
	Folder string
}

// KindFolder is Error.Kind of a folder ListDir refuses as too large: its
// Limit counts names, not bytes.
const KindFolder = "a folder"

// Error describes the fault in a sentence that names the file and, for a
// link, where it points.
func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrOutside):
		return e.linkText() + ", outside the folder " + e.Folder
	case errors.Is(e.Err, ErrNotRegular):
		if e.Link != "" {
			return fmt.Sprintf("%s, which is %s, not a regular file", e.linkText(), e.Kind)
		}
		return fmt.Sprintf("%s is %s, not a regular file", e.Name, e.Kind)
	case errors.Is(e.Err, ErrTooLarge):
		if e.Kind == KindFolder {
			return fmt.Sprintf("the folder %s holds more than %d names, the bound", e.Name, e.Limit)
		}
		if e.Size > 0 {
			return fmt.Sprintf("%s is %d bytes, over the bound of %d bytes", e.Name, e.Size, e.Limit)
		}
		return fmt.Sprintf("%s is over the bound of %d bytes", e.Name, e.Limit)
	case errors.Is(e.Err, fs.ErrNotExist):
		if e.Link != "" {
			return e.linkText() + ", which does not exist"
		}
		return e.Name + " does not exist"
	}
	return e.Name + ": " + tzctx.FaultText(e.Err)
}

// linkText says which link points where, and through which link the
// name reaches it when the link is a parent folder.
func (e *Error) linkText() string {
	s := e.Link + " is a symbolic link to " + e.Target
	if e.Resolved != "" && e.Resolved != e.Target {
		s += " (" + e.Resolved + ")"
	}
	if e.Link != e.Name {
		s = e.Name + " passes through " + s
	}
	return s
}

// Unwrap returns the kind of fault.
func (e *Error) Unwrap() error { return e.Err }

// Folder reads the files of one folder.
type Folder struct {
	dir  string // as given
	real string // dir with every symbolic link resolved
	root *os.Root
}

// Open opens dir for reading. dir itself may be a symbolic link; the
// folder it resolves to is the boundary.
func Open(dir string) (*Folder, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Folder{dir: dir, real: real, root: root}, nil
}

// Dir returns the folder as given to Open.
func (f *Folder) Dir() string { return f.dir }

// Close releases the folder.
func (f *Folder) Close() error { return f.root.Close() }

// Exists reports whether name is present in the folder in any form: a
// file, a folder, a link (dangling or not) or anything else. A name one
// of whose parent folders is a link out of the folder counts as present,
// so that ReadFile reports the link.
func (f *Folder) Exists(name string) bool {
	_, err := f.resolve(name)
	if err == nil {
		return true
	}
	var e *Error
	return !errors.As(err, &e) || e.Link != "" || !errors.Is(err, fs.ErrNotExist)
}

// ReadFile reads the file name (slash-separated, relative to the folder),
// which must resolve to a regular file inside the folder of at most limit
// bytes. Every refusal is an *Error; a missing file matches fs.ErrNotExist.
func (f *Folder) ReadFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Error, error) {
		e := &Error{Name: name, Err: err, Folder: f.dir}
		return e, e
	}
	// Check the resolved file before opening it, so that a named pipe or
	// a device is never opened.
	fi, err := f.root.Stat(rel)
	if err != nil {
		_, err = fail(err)
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, f.notRegular(name, fi.Mode())
	}
	if fi.Size() > limit {
		e, err := fail(ErrTooLarge)
		e.Size, e.Limit = fi.Size(), limit
		return nil, err
	}
	// O_NONBLOCK: a pipe swapped in since the check opens without waiting
	// for a writer, and the handle's own mode refuses it below.
	file, err := f.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		_, err = fail(err)
		return nil, err
	}
	defer file.Close()
	if fi, err = file.Stat(); err != nil {
		_, err = fail(err)
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, f.notRegular(name, fi.Mode())
	}
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), limit)) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(file, limit+1)); err != nil {
		_, err = fail(err)
		return nil, err
	}
	if int64(buf.Len()) > limit {
		e, err := fail(ErrTooLarge)
		e.Limit = limit
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (f *Folder) notRegular(name string, m fs.FileMode) error {
	e := &Error{Name: name, Kind: Describe(m), Err: ErrNotRegular, Folder: f.dir}
	// Name the link that led there, if one did.
	if l, t := f.lastLink(name); l != "" {
		e.Link, e.Target = l, t
	}
	return e
}

// lastLink returns the last symbolic link on name's way and its target.
func (f *Folder) lastLink(name string) (link, target string) {
	cur := f.real
	parts := strings.Split(name, "/")
	for i, p := range parts {
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if err != nil {
			return link, target
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(next)
			link, target = strings.Join(parts[:i+1], "/"), t
			if r, err := filepath.EvalSymlinks(next); err == nil {
				next = r
			}
		}
		cur = next
	}
	return link, target
}

// Describe names the kind of a file mode with its article.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// resolve follows the symbolic links of name, one path element at a time
// from the folder's resolved path, and returns the resolved path relative
// to the folder. A link that resolves outside the folder, or that does not
// resolve, is an *Error naming the link and its target.
func (f *Folder) resolve(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return "", &Error{Name: name, Err: fs.ErrInvalid, Folder: f.dir}
	}
	cur := f.real
	parts := strings.Split(name, "/")
	links := 0
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			return "", &Error{Name: name, Err: fs.ErrInvalid, Folder: f.dir}
		}
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				err = fs.ErrNotExist
			}
			return "", &Error{Name: name, Err: err, Folder: f.dir}
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return "", &Error{Name: name, Err: syscall.ELOOP, Folder: f.dir}
			}
			link := strings.Join(parts[:i+1], "/")
			target, _ := os.Readlink(next)
			r, err := filepath.EvalSymlinks(next)
			if err != nil {
				e := &Error{Name: name, Link: link, Target: target, Err: err, Folder: f.dir}
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
					e.Err = fs.ErrNotExist
					if lexical := lexicalTarget(next, target); !inside(f.real, lexical) {
						e.Resolved, e.Err = lexical, ErrOutside
					}
				}
				return "", e
			}
			if !inside(f.real, r) {
				return "", &Error{Name: name, Link: link, Target: target, Resolved: r, Err: ErrOutside, Folder: f.dir}
			}
			next = r
		}
		cur = next
	}
	rel, err := filepath.Rel(f.real, cur)
	if err != nil || !inside(f.real, cur) {
		return "", &Error{Name: name, Err: ErrOutside, Folder: f.dir}
	}
	return rel, nil
}

// lexicalTarget is where a link at path points, without following links.
func lexicalTarget(path, target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(filepath.Dir(path), target)
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
