// Package store keeps site versions on disk. It alone imports bbolt and
// bleve. Each version is an immutable folder, written in a staging folder
// and renamed into place, holding a bbolt file of pages and texts and a
// bleve index of page n-grams; a pointer file names the active version and
// is replaced atomically.
package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
)

const (
	versionsDir = "versions"
	stagingDir  = "staging"
	activeFile  = "ACTIVE"
	metaFile    = "meta.json"
	dbFile      = "pages.db"
	indexDir    = "index.bleve"
	lockFile    = "lock"
	// sourcesDir holds, for each version built here, a record of the
	// folder each of its trees was read from (NAME.json). It lies outside
	// the version's folder, so it is neither verified nor exported: a
	// folder of the machine that ingested is no part of the version's
	// content, and a build without the record still reads the version.
	sourcesDir = "sources"
)

// ErrNoVersion is returned where the data directory holds no active version.
var ErrNoVersion = errors.New("no active version")

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidName reports whether name can name a version: 1 to 64 letters,
// digits, dots, dashes or underscores, starting with a letter or digit.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("version name %q is not valid; use 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", name)
	}
	return nil
}

// Meta describes one stored version.
type Meta struct {
	// Format is the version folder's layout, FormatVersion when built.
	Format   int        `json:"format"`
	Name     string     `json:"name"`
	Created  time.Time  `json:"created"`
	Digest   string     `json:"digest"`
	Trees    []TreeMeta `json:"trees"`
	Pages    int        `json:"pages"`
	Bytes    int64      `json:"bytes"`
	Headings int        `json:"headings"`
	Skipped  int        `json:"skipped"`
	// Base is the version this one was built on (tzctx ingest --base),
	// "" for a version whose every tree was read from its folder.
	Base string `json:"base,omitempty"`
	// Derivation is the version of the rules by which ingest derived the
	// version's search data from its pages (ingest's derivation version),
	// 0 where not recorded. A built-on ingest takes the base's search data
	// as it is only where the base's rules are its own.
	Derivation int `json:"derivation,omitempty"`
	// Files are the size and SHA-256 of every file of the version folder
	// but meta.json, recorded in meta.json alone (the copy in the bbolt
	// file cannot hold its own checksum).
	Files []FileSum `json:"files,omitempty"`
}

// TreeMeta counts one tree of a version and records how it was read.
// The folder it was read from is recorded apart (Sources), so that an
// exported archive never carries it.
type TreeMeta struct {
	Name     string `json:"name"`
	Pages    int    `json:"pages"`
	Bytes    int64  `json:"bytes"`
	Headings int    `json:"headings"`
	Skipped  int    `json:"skipped"`
	// Format is the format the tree's folder was read as ("mintlify",
	// "mkdocs", …); "" in a version built before it was recorded.
	Format string `json:"format,omitempty"`
	// Read is when the tree's folder was read: for a tree carried from a
	// base, when the base read it.
	Read time.Time `json:"read,omitzero"`
	// Base is the version the tree was carried from as stored, its
	// folder not read; "" for a tree read from its folder.
	Base string `json:"base,omitempty"`
}

// Store is a data directory of versions.
type Store struct {
	dir string

	mu      sync.Mutex // serialises Refresh
	current atomic.Pointer[Version]
	// fault is the version Refresh last refused, nil for none; read
	// without mu, so /healthz never waits for a verification.
	fault atomic.Pointer[fault]
	// warm, where set, derives what readers need of a version before
	// Refresh swaps it in.
	warm atomic.Pointer[WarmFunc]
	// laidOut holds the folders Open created, outermost first, until
	// something relies on them (a Refresh, a stored version): a refused
	// Import removes them, so that it leaves the directory as it was.
	layoutMu sync.Mutex
	laidOut  []string
}

// WarmFunc derives what a reader needs of a version (its titles and
// headings, say), so that no request pays for it. It runs before the
// version is served; its error refuses the version as damaged.
type WarmFunc func(ctx context.Context, v *Version) error

// SetWarm sets what Refresh runs on a version before it swaps it in, and
// runs it on the version served now; nil runs nothing.
func (s *Store) SetWarm(ctx context.Context, f WarmFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		s.warm.Store(nil)
		return nil
	}
	s.warm.Store(&f)
	v, err := s.Acquire()
	if err != nil {
		return nil // nothing served yet
	}
	defer v.Release()
	return f(ctx, v)
}

// OpenExisting opens the data directory dir, which must exist: for
// commands that read or change versions, so that a mistyped directory is
// reported rather than created.
func OpenExisting(dir string) (*Store, error) {
	if fi, err := os.Stat(filepath.Join(dir, versionsDir)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a data directory (it has no %s folder); give --data, or set TZCTX_DATA, to the directory ingest wrote", dir, versionsDir)
	}
	return Open(dir)
}

// Open opens (creating where needed) the data directory dir. It opens no
// version; call Refresh to load the active one.
func Open(dir string) (*Store, error) {
	s := &Store{dir: dir}
	if err := s.layOut(); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenDeferred opens the data directory dir as Open does, but creates
// nothing yet: the first Builder lays out the directory and its folders,
// and its Abort removes again those it created. So an ingest that fails,
// is stopped, or crashes before its build begins (in a reader, say)
// leaves no folder behind. dir, where it exists, must be a folder; what
// a killed build left in its staging folder is removed at once, so the
// next run clears it even where it fails before it builds.
func OpenDeferred(dir string) (*Store, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open data directory: %s is not a folder", dir)
	}
	s := &Store{dir: dir}
	s.cleanStaging()
	return s, nil
}

// layOut creates the data directory and its versions/ and staging/
// folders where missing, and keeps the folders it created for undoLayout.
func (s *Store) layOut() error {
	created, err := s.makeLayout()
	if err != nil {
		return err
	}
	s.layoutMu.Lock()
	s.laidOut = append(s.laidOut, created...)
	s.layoutMu.Unlock()
	return nil
}

// makeLayout creates the data directory and its versions/ and staging/
// folders where missing, and returns the folders it created, outermost
// first.
func (s *Store) makeLayout() ([]string, error) {
	var created []string
	for _, d := range []string{s.dir, filepath.Join(s.dir, versionsDir), filepath.Join(s.dir, stagingDir)} {
		created = append(created, missingFolders(d)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			removeEmpty(created)
			return nil, fmt.Errorf("open data directory: %w", err)
		}
	}
	return created, nil
}

// removeEmpty removes the folders made, innermost first, where they are
// still empty: a folder something else filled stays.
func removeEmpty(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		_ = os.Remove(made[i])
	}
}

// missingFolders returns the folders MkdirAll(d) would create, outermost
// first.
func missingFolders(d string) []string {
	var out []string
	for d = filepath.Clean(d); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		out = append([]string{d}, out...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// keepLayout marks the folders Open created as relied on: they stay.
func (s *Store) keepLayout() {
	s.layoutMu.Lock()
	s.laidOut = nil
	s.layoutMu.Unlock()
}

// undoLayout removes the folders Open created, innermost first, where
// nothing has relied on them and they are still empty.
func (s *Store) undoLayout() {
	s.layoutMu.Lock()
	defer s.layoutMu.Unlock()
	removeEmpty(s.laidOut)
	s.laidOut = nil
}

// Dir returns the data directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) versionDir(name string) string {
	return filepath.Join(s.dir, versionsDir, name)
}

// List returns the stored versions, oldest first.
func (s *Store) List() ([]Meta, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, versionsDir))
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	var out []Meta
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		m, err := readMeta(s.versionDir(e.Name()))
		if err != nil {
			continue // damaged: Unreadable names it
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Lookup returns the metadata of the named version.
func (s *Store) Lookup(name string) (Meta, error) {
	if err := ValidName(name); err != nil {
		return Meta{}, err
	}
	m, err := readMeta(s.versionDir(name))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			// Versions are renamed into place whole, meta.json with them,
			// so a folder whose meta.json is there but does not read is
			// damaged. One without meta.json (a copy in progress) is no
			// version yet.
			return Meta{}, &DamagedError{Version: name, File: metaFile, Problem: fmt.Sprintf("cannot be read (%v)", tzctx.FaultText(err))}
		}
		return Meta{}, fmt.Errorf("no version %q in %s; %s; 'tzctx versions' lists them", name, s.dir, s.storedNames())
	}
	return m, nil
}

// storedNames says which versions are stored, oldest first, for an error
// that names none of them.
func (s *Store) storedNames() string {
	ms, err := s.List()
	if err != nil || len(ms) == 0 {
		return "no version is stored"
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return "the stored versions are " + strings.Join(names, ", ")
}

// Unreadable returns the names of the version folders whose meta.json is
// there but does not read: damaged versions that List cannot describe.
func (s *Store) Unreadable() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, versionsDir))
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := readMeta(s.versionDir(e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// FindDigest returns the name of a stored version with the given content
// digest, or "".
func (s *Store) FindDigest(digest string) string {
	ms, _ := s.List()
	for _, m := range ms {
		if m.Digest == digest {
			return m.Name
		}
	}
	return ""
}

func readMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return m, err
	}
	err = json.Unmarshal(b, &m)
	return m, err
}

// ActiveName returns the name the pointer file names, or "" where none.
func (s *Store) ActiveName() (string, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, activeFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read active version pointer: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Activate makes the named version active by atomically replacing the
// pointer file, after verifying the version in full and reading it
// through as a server would: a damaged version is refused (ErrDamaged) and
// the pointer stays as it was. A running server picks the new version up
// on its next Refresh.
func (s *Store) Activate(ctx context.Context, name string) error {
	return s.ActivateAfter(ctx, name, nil)
}

// ActivateAfter is Activate that, once the named version is verified and
// opened, runs before on it (to describe what the switch changes, say)
// before the pointer is replaced; an error of before leaves the pointer
// as it was. The version is verified once, and before's version is
// released when ActivateAfter returns. A nil before runs nothing.
func (s *Store) ActivateAfter(ctx context.Context, name string, before func(v *Version) error) error {
	if _, err := s.Lookup(name); err != nil {
		return err
	}
	v, err := openVersion(ctx, s.versionDir(name), name)
	if err != nil {
		return fmt.Errorf("not activated: %w", err)
	}
	if before != nil {
		err = before(v)
	}
	v.Release()
	if err != nil {
		return err
	}
	killpoint.Reach("activate.verified")
	return writeFileAtomic(filepath.Join(s.dir, activeFile), []byte(name+"\n"))
}

// OpenVersion verifies the named stored version in full, as a server does
// before it serves it, and opens it, served or not, with a reference the
// caller must Release. A fault is a *DamagedError; a name that names no
// stored version gets an error listing the stored ones.
func (s *Store) OpenVersion(ctx context.Context, name string) (*Version, error) {
	if _, err := s.Lookup(name); err != nil {
		return nil, err
	}
	return openVersion(ctx, s.versionDir(name), name)
}

// Delete removes a stored version; it refuses the active one.
func (s *Store) Delete(name string) error {
	if _, err := s.Lookup(name); err != nil {
		return err
	}
	active, err := s.ActiveName()
	if err != nil {
		return err
	}
	if active == name {
		return fmt.Errorf("version %q is active; activate another version first, then delete it", name)
	}
	// Rename out of versions/ first so the version disappears at once,
	// then remove the files.
	gone := filepath.Join(s.dir, stagingDir, "deleted-"+name+fmt.Sprint(time.Now().UnixNano()))
	if err := os.Rename(s.versionDir(name), gone); err != nil {
		return fmt.Errorf("delete version %q: %w", name, err)
	}
	syncDir(filepath.Join(s.dir, versionsDir))
	os.Remove(s.sourcesPath(name))
	return os.RemoveAll(gone)
}

// Size returns the bytes a version's folder takes on disk.
func (s *Store) Size(name string) int64 {
	var n int64
	_ = filepath.Walk(s.versionDir(name), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// Refresh loads the version the pointer names, if it is not the one
// served. The version is verified in full (every file's SHA-256) and read
// through before it is swapped in; one that fails is refused, and the
// version served before, if any, goes on being served. Reads in flight
// finish on the version they started with; the old version closes when
// its last reader releases it. It reports whether the served version
// changed. A refused version is not opened again until its meta.json's
// size or time or the pointer changes, or Recheck is called, as SIGHUP
// does after a repair in place; meanwhile Refresh returns the same error
// at no cost.
//
// ctx bounds the verification: a Refresh cancelled meanwhile returns ctx's
// error, remembers no fault, and leaves the served version as it was.
func (s *Store) Refresh(ctx context.Context) (changed bool, err error) {
	s.keepLayout()
	s.mu.Lock()
	defer s.mu.Unlock()
	defer recovered(&err)
	name, err := s.ActiveName()
	if err != nil {
		return false, err
	}
	if name == "" {
		s.fault.Store(nil)
		return false, nil
	}
	if err := ValidName(name); err != nil {
		f := &fault{key: "name:" + name, err: fmt.Errorf("the pointer %s names no valid version (%v); run 'tzctx activate NAME'", filepath.Join(s.dir, activeFile), err)}
		s.fault.Store(f)
		return false, f.err
	}
	dir := s.versionDir(name)
	key := folderKey(dir)
	// A name can be reused (delete, then ingest other content under it),
	// so a version is the same only if its metadata is.
	cur := s.current.Load()
	if cur != nil && cur.meta.Name == name {
		m, err := readMeta(dir)
		if err == nil && m.Digest == cur.meta.Digest && m.Created.Equal(cur.meta.Created) {
			s.fault.Store(nil)
			return false, nil
		}
	}
	if f := s.fault.Load(); f != nil && f.key == key {
		return false, f.err
	}
	v, err := openVersion(ctx, dir, name)
	if err == nil {
		if w := s.warm.Load(); w != nil {
			if werr := warmVersion(ctx, *w, v); werr != nil {
				v.closeQuietly()
				v, err = nil, werr
			}
		}
	}
	if err != nil && ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		f := &fault{key: key, err: fmt.Errorf("refused version %q: %w", name, err)}
		s.fault.Store(f)
		return false, f.err
	}
	s.fault.Store(nil)
	old := s.current.Swap(v)
	if old != nil {
		old.Release()
	}
	return true, nil
}

// Recheck forgets the version last refused, so the next Refresh tries it
// again (after the operator repaired it in place, say).
func (s *Store) Recheck() {
	s.fault.Store(nil)
}

// fault is a version Refresh refused: the state of its folder then, and
// why.
type fault struct {
	key string
	err error
}

// folderKey identifies the state of a version folder cheaply: its name and
// its meta.json's size and modification time.
func folderKey(dir string) string {
	fi, err := os.Stat(filepath.Join(dir, metaFile))
	if err != nil {
		return dir + ":" + tzctx.FaultText(err)
	}
	return fmt.Sprintf("%s:%d:%d", dir, fi.Size(), fi.ModTime().UnixNano())
}

// Health is what a server reports of its store.
type Health struct {
	// Serving names the version served, "" for none.
	Serving string
	// Active names the version the pointer names, "" for none.
	Active string
	// Fault says why the active version is not served, nil where it is.
	Fault error
}

// Health reports the served version and any fault of the active one. It
// never waits for a Refresh in progress.
func (s *Store) Health() Health {
	var h Health
	if v := s.current.Load(); v != nil {
		h.Serving = v.meta.Name
	}
	h.Active, _ = s.ActiveName()
	if f := s.fault.Load(); f != nil {
		h.Fault = f.err
	}
	return h
}

// Serving returns Health's Serving and Fault without reading the active
// pointer from disk, for what answers every probe and scrape.
func (s *Store) Serving() (name string, fault error) {
	if v := s.current.Load(); v != nil {
		name = v.meta.Name
	}
	if f := s.fault.Load(); f != nil {
		fault = f.err
	}
	return name, fault
}

// Acquire returns the served version with a reference the caller must
// Release, or ErrNoVersion.
func (s *Store) Acquire() (*Version, error) {
	for {
		v := s.current.Load()
		if v == nil {
			return nil, ErrNoVersion
		}
		if v.tryRef() {
			return v, nil
		}
		// v was swapped out and closed between Load and tryRef; retry.
	}
}

// Close releases the served version.
func (s *Store) Close() error {
	if v := s.current.Swap(nil); v != nil {
		v.Release()
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path, syncs it
// and renames it over path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// newStaging creates a fresh folder prefix-RANDOM under staging/ and its
// lock file, locked with flock until the caller closes the file: while it
// is held, cleanStaging leaves the folder alone; once its holder is gone,
// killed or not, the next cleanStaging removes it.
func (s *Store) newStaging(prefix string) (string, *os.File, error) {
	for try := 0; ; try++ {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		dir := filepath.Join(s.dir, stagingDir, prefix+"-"+hex.EncodeToString(rnd[:]))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("create staging folder: %w", err)
		}
		lock, err := os.Create(filepath.Join(dir, lockFile))
		if errors.Is(err, fs.ErrNotExist) && try < 3 {
			// Another store's cleanStaging took the folder while it was
			// empty, before its lock was made: make another.
			continue
		}
		if err == nil {
			if err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
				lock.Close()
			}
		}
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("create staging folder: %w", err)
		}
		return dir, lock, nil
	}
}

// cleanStaging removes staging folders that no live builder holds locked:
// what an interrupted ingest left behind.
func (s *Store) cleanStaging() {
	root := filepath.Join(s.dir, stagingDir)
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if !e.IsDir() {
			os.Remove(p)
			continue
		}
		f, err := os.OpenFile(filepath.Join(p, lockFile), os.O_RDWR, 0)
		if err != nil {
			// A builder creates its folder, then its lock. An empty
			// folder is one killed between the two, or one a live builder
			// is about to lock, which then makes another (newStaging): it
			// goes now, so that the next run leaves staging empty. A
			// folder holding files but no lock gets a minute.
			if inner, err := os.ReadDir(p); err == nil && len(inner) == 0 {
				os.Remove(p)
			} else if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
				os.RemoveAll(p)
			}
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(p)
		}
		f.Close()
	}
}

// warmVersion runs w on v, a panic of its included, as an open's fault.
func warmVersion(ctx context.Context, w WarmFunc, v *Version) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &DamagedError{Version: v.Name(), Problem: (&PanicError{Value: r}).Error() + " while warming it"}
		}
	}()
	if err := w(ctx, v); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &DamagedError{Version: v.Name(), Problem: "reading it before serving it: " + err.Error()}
	}
	return nil
}
