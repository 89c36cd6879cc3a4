package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/turnzerocloud/tzctx"
)

// FormatVersion is the layout of a version folder that this build writes
// and serves: 2 added the per-file checksums of meta.json; 3 moved the
// texts out of bbolt into flat files, each page's text shared with the
// composed whole text, and dropped the lower-cased copy of pages whose
// only case is ASCII; 4 names each search index document by its page's
// tree and route (routeDocID) instead of its ordinal across the version,
// so that a version built on another takes in the base's documents. A
// tzctx that serves format 3 alone refuses a format 4 version as newer
// than it serves, naming the upgrade, rather than reading its documents'
// names as damage.
const FormatVersion = 4

// OldestFormat is the oldest layout this build serves: a format 3
// version's documents, named by ordinal, are read as they were.
const OldestFormat = 3

// FileSum is the size and SHA-256 of one file of a version, recorded in
// its meta.json when the version is built.
type FileSum struct {
	Path   string `json:"path"` // slash-separated, relative to the version folder
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ErrDamaged is matched, through errors.Is, by every error that reports a
// version as damaged.
var ErrDamaged = errors.New("version is damaged")

// DamagedError says which version is damaged, which of its files and how.
type DamagedError struct {
	Version string
	File    string // relative to the version folder; empty for the whole folder
	Problem string
}

func (e *DamagedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %q is damaged: ", e.Version)
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	b.WriteString(e.Problem)
	b.WriteString("; activate another version ('tzctx activate OTHER'), or delete this one ('tzctx delete NAME') and ingest the site again")
	return b.String()
}

// Is makes a *DamagedError match ErrDamaged.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// checksums records the size and SHA-256 of every file below dir but the
// lock and meta.json, in path order.
func checksums(ctx context.Context, dir string) ([]FileSum, error) {
	var out []FileSum
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if rel == metaFile || rel == lockFile {
			return nil
		}
		size, sum, err := hashFile(ctx, p)
		if err != nil {
			return err
		}
		out = append(out, FileSum{Path: rel, Size: size, SHA256: sum})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// hashFile returns the size and hex SHA-256 of a regular file.
func hashFile(ctx context.Context, p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	if !fi.Mode().IsRegular() {
		return 0, "", fmt.Errorf("%s is not a regular file", p)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, "", err
		}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks the named version as a server does before it serves it:
// every file's size and SHA-256 against meta.json, then its files opened
// and read through. A fault is a *DamagedError (errors.Is(err,
// ErrDamaged)); a cancelled ctx returns ctx's error.
func (s *Store) Verify(ctx context.Context, name string) error {
	v, err := s.OpenVersion(ctx, name)
	if err != nil {
		return err
	}
	v.Release()
	return nil
}

// verifyDir checks the version folder dir, which must hold version name,
// and returns its metadata: meta.json, the list of files and their sizes,
// then every file's SHA-256.
func verifyDir(ctx context.Context, dir, name string) (Meta, error) {
	damaged := func(file, format string, a ...any) (Meta, error) {
		return Meta{}, &DamagedError{Version: name, File: file, Problem: fmt.Sprintf(format, a...)}
	}
	m, err := readMeta(dir)
	if err != nil {
		return damaged(metaFile, "cannot be read (%v)", tzctx.FaultText(err))
	}
	if m.Name != name {
		return damaged(metaFile, "names version %q, not the folder's name", m.Name)
	}
	if m.Format < OldestFormat {
		return damaged(metaFile, "is of format %d, which an older tzctx built; this build serves formats %d to %d: ingest the site again", m.Format, OldestFormat, FormatVersion)
	}
	if m.Format > FormatVersion {
		return damaged(metaFile, "is of format %d, newer than this build's %d; upgrade tzctx", m.Format, FormatVersion)
	}
	listed := map[string]FileSum{}
	for _, f := range m.Files {
		listed[f.Path] = f
	}
	for _, f := range []string{dbFile, textsFile, auxFile} {
		if _, ok := listed[f]; !ok {
			return damaged(metaFile, "lists no %s", f)
		}
	}
	// Every file on disk is listed, and every listed file is on disk with
	// its size.
	seen := map[string]bool{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if rel == metaFile || rel == lockFile {
			return nil
		}
		f, ok := listed[rel]
		if !ok {
			return &DamagedError{Version: name, File: rel, Problem: "is not among the files recorded at ingest"}
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return &DamagedError{Version: name, File: rel, Problem: "is not a regular file"}
		}
		if fi.Size() != f.Size {
			return &DamagedError{Version: name, File: rel, Problem: fmt.Sprintf("is %d bytes, but %d were recorded at ingest", fi.Size(), f.Size)}
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		var de *DamagedError
		if errors.As(err, &de) {
			return Meta{}, de
		}
		return damaged("", "cannot be read (%v)", tzctx.FaultText(err))
	}
	for _, f := range m.Files {
		if !seen[f.Path] {
			return damaged(f.Path, "is missing")
		}
	}
	for _, f := range m.Files {
		_, sum, err := hashFile(ctx, filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			if ctx.Err() != nil {
				return Meta{}, ctx.Err()
			}
			return damaged(f.Path, "cannot be read (%v)", tzctx.FaultText(err))
		}
		if sum != f.SHA256 {
			return damaged(f.Path, "its SHA-256 differs from the checksum recorded at ingest")
		}
	}
	return m, nil
}

// PanicError is a panic recovered in the store, reported as an error.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	// A runtime error's text names indexes and types, never data; any
	// other value is named by its type alone, so no caller's words can
	// travel in it.
	if re, ok := e.Value.(interface{ RuntimeError() }); ok {
		if err, ok := re.(error); ok {
			return "internal fault: " + err.Error()
		}
	}
	return fmt.Sprintf("internal fault: panic of type %T", e.Value)
}

// recovered turns a panic into *err; use as defer recovered(&err).
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = &PanicError{Value: r, Stack: debug.Stack()}
	}
}
