package store

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
)

// ArchiveFormat is the layout of the version archives Export writes and
// Import reads: a gzip-compressed tar stream whose first entry is the
// manifest archiveName, then meta.json, then every other file of the
// version in path order.
const ArchiveFormat = 1

const (
	// archiveName is the first entry of an archive: its manifest.
	archiveName = "tzctx-archive.json"
	// maxManifestBytes bounds the manifest Import reads.
	maxManifestBytes = 1 << 20
	// maxMetaBytes bounds a version's meta.json in an archive.
	maxMetaBytes = 16 << 20
	// maxArchiveFile bounds one file an archive may declare, and
	// maxArchiveTotal all of them: a version of the largest corpus is
	// under 100 MiB, so these leave room and still refuse an archive that
	// declares its way to filling a disk.
	maxArchiveFile  = 64 << 30
	maxArchiveTotal = 256 << 30
	// maxArchiveTrailer bounds the bytes of the tar stream read after its
	// last entry: its end marker and any zero padding to a record.
	maxArchiveTrailer = 1 << 20
)

// archiveManifest is the first entry of an archive. Files lists meta.json
// first, then every file meta.json lists, in path order: the entries that
// follow, in the same order.
type archiveManifest struct {
	ArchiveFormat int       `json:"archive_format"`
	Version       string    `json:"version"`
	StoreFormat   int       `json:"store_format"`
	Digest        string    `json:"digest"`
	Files         []FileSum `json:"files"`
}

// DefaultMaxVersionBytes is the default bound on the total size of the
// files of a version an archive brings (ImportOptions.MaxVersionBytes):
// a version of the largest corpus is under 100 MiB, so 4 GiB leaves room
// and still refuses an archive of a few megabytes that unpacks to
// gigabytes.
const DefaultMaxVersionBytes = 4 << 30

// ImportOptions bound what Import accepts.
type ImportOptions struct {
	// MaxVersionBytes bounds the total size of the version's files, as
	// the archive's manifest declares them; an archive declaring more is
	// refused before anything is written. Zero means
	// DefaultMaxVersionBytes.
	MaxVersionBytes int64
}

// ImportResult says what Import did.
type ImportResult struct {
	// Name is the version the archive holds.
	Name string
	// Present is true where a version of that name and digest was stored
	// already, so that nothing was imported.
	Present bool
}

// ErrBadArchive is matched, through errors.Is, by every error with which
// Import refuses an archive as damaged, truncated or not a version
// archive.
var ErrBadArchive = errors.New("bad version archive")

// ArchiveError says why Import refused an archive: which entry, what is
// wrong with it and what to do.
type ArchiveError struct {
	Entry   string // the entry at fault; empty for the archive as a whole
	Problem string
	Fix     string // empty for the usual fix: export the version again
}

func (e *ArchiveError) Error() string {
	var b strings.Builder
	b.WriteString("archive refused: ")
	if e.Entry != "" {
		fmt.Fprintf(&b, "entry %q ", e.Entry)
	} else {
		b.WriteString("the archive ")
	}
	b.WriteString(e.Problem)
	b.WriteString("; nothing was imported: ")
	if e.Fix != "" {
		b.WriteString(e.Fix)
	} else {
		b.WriteString("export the version again ('tzctx export NAME FILE') and import the new file")
	}
	return b.String()
}

// Is makes an *ArchiveError match ErrBadArchive.
func (e *ArchiveError) Is(target error) bool { return target == ErrBadArchive }

func badArchive(entry, format string, a ...any) error {
	return &ArchiveError{Entry: entry, Problem: fmt.Sprintf(format, a...)}
}

// notAnArchive is the fix for a file that is no version archive at all.
const notAnArchive = "give a file that 'tzctx export' wrote"

// ConflictError refuses an archive whose version name is taken by a stored
// version of other content.
type ConflictError struct {
	Version string
	Stored  string // the stored version's digest
	Archive string // the archive's digest
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("version %q is present already with other content (digest %s, the archive's %s); nothing was imported: if the archive's content is wanted, delete the stored version first ('tzctx delete %s'), activating another if it is active", e.Version, short(e.Stored), short(e.Archive), e.Version)
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12] + "…"
	}
	return digest
}

// Export writes the named version to w as one archive (see ArchiveFormat).
// It verifies the version in full first and refuses a damaged one, naming
// it (errors.Is(err, ErrDamaged)); each file is hashed again as it is
// written, so the archive holds the bytes that were verified. The archive
// of a version is the same bytes at every export.
func (s *Store) Export(ctx context.Context, name string, w io.Writer) error {
	if _, err := s.Lookup(name); err != nil {
		return err
	}
	if err := s.Verify(ctx, name); err != nil {
		return fmt.Errorf("not exported: %w", err)
	}
	if err := s.export(ctx, name, w); err != nil {
		return fmt.Errorf("export version %q: %w", name, err)
	}
	return nil
}

func (s *Store) export(ctx context.Context, name string, w io.Writer) error {
	dir := s.versionDir(name)
	raw, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return err
	}
	if len(raw) > maxMetaBytes {
		return fmt.Errorf("%s is %d bytes, over the archive's bound of %d", metaFile, len(raw), maxMetaBytes)
	}
	var m Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	files := slices.Clone(m.Files)
	slices.SortFunc(files, func(a, b FileSum) int { return strings.Compare(a.Path, b.Path) })
	man := archiveManifest{
		ArchiveFormat: ArchiveFormat,
		Version:       m.Name,
		StoreFormat:   m.Format,
		Digest:        m.Digest,
		Files:         append([]FileSum{{Path: metaFile, Size: int64(len(raw)), SHA256: hex.EncodeToString(sum[:])}}, files...),
	}
	mb, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	zw, err := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	// Every header is the same but for name and size, so an archive
	// depends on the version alone.
	mtime := m.Created.UTC().Truncate(time.Second)
	header := func(p string, size int64) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Size: size, Mode: 0o644, ModTime: mtime})
	}
	if err := header(archiveName, int64(len(mb))); err != nil {
		return err
	}
	if _, err := tw.Write(mb); err != nil {
		return err
	}
	if err := header(metaFile, int64(len(raw))); err != nil {
		return err
	}
	if _, err := tw.Write(raw); err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for _, f := range files {
		if err := exportFile(ctx, tw, header, dir, name, f, buf); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// exportFile writes file f of the version folder dir as the next entry of
// tw, with the header header writes, checking its size and SHA-256 against f.
func exportFile(ctx context.Context, tw *tar.Writer, header func(string, int64) error, dir, name string, f FileSum, buf []byte) error {
	damaged := func(format string, a ...any) error {
		return &DamagedError{Version: name, File: f.Path, Problem: fmt.Sprintf(format, a...)}
	}
	in, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
	if err != nil {
		return damaged("cannot be read (%v)", tzctx.FaultText(err))
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return damaged("cannot be read (%v)", tzctx.FaultText(err))
	}
	if !fi.Mode().IsRegular() {
		return damaged("is not a regular file")
	}
	if fi.Size() != f.Size {
		return damaged("is %d bytes, but %d were recorded at ingest", fi.Size(), f.Size)
	}
	if err := header(f.Path, f.Size); err != nil {
		return err
	}
	h := sha256.New()
	src := &ctxReader{ctx: ctx, r: io.LimitReader(in, f.Size)}
	n, err := io.CopyBuffer(io.MultiWriter(tw, h), src, buf)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if src.err != nil {
			return damaged("cannot be read (%v)", tzctx.FaultText(src.err))
		}
		return err
	}
	if n != f.Size {
		return damaged("is %d bytes, but %d were recorded at ingest", n, f.Size)
	}
	if hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return damaged("its SHA-256 differs from the checksum recorded at ingest")
	}
	return nil
}

// ctxReader reads r until ctx is done, and keeps the first error r
// returned other than io.EOF, so that a caller can tell a fault of r from
// a fault of the reader or writer wrapped around it.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// stoppable returns a reader of r whose Read returns ctx's error as soon as
// ctx is done, even while a Read of r is blocked on a stalled pipe, so that
// a cancelled import stops at once and cleans up; a blocked Read of r is
// abandoned. done releases the reader.
func stoppable(ctx context.Context, r io.Reader) (_ io.Reader, done func()) {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	stop := context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	return pr, func() {
		stop()
		pr.Close()
	}
}

// Import reads an archive that Export wrote and stores the version it
// holds, as a build does: the files are written, and hashed as they are,
// in a staging folder, synced, verified as a server verifies a version
// before it serves it, and renamed into place. A damaged, truncated or
// hostile archive is refused with an *ArchiveError (errors.Is(err,
// ErrBadArchive)) and leaves nothing behind; no file is written beyond
// the size the manifest declares for it, and the declared sizes are
// bounded: their total by opts.MaxVersionBytes, checked before anything
// is written. A version of the same name and digest already stored makes
// the import a no-op (Present); one of the same name and another digest
// is refused with a *ConflictError. Import does not activate the version.
func (s *Store) Import(ctx context.Context, r io.Reader, opts ImportOptions) (res ImportResult, err error) {
	// A refused import into a directory this Store laid out leaves it as
	// it was: the folders Open or this import created go too.
	if err := s.layOut(); err != nil {
		return res, err
	}
	defer func() {
		if err != nil {
			s.undoLayout()
		} else {
			s.keepLayout()
		}
	}()
	defer recovered(&err)
	s.cleanStaging()
	sr, done := stoppable(ctx, r)
	defer done()
	src := &ctxReader{ctx: ctx, r: sr}
	// A byte reader, so that gzip reads no byte past its stream.
	br := bufio.NewReaderSize(src, 1<<20)
	// fault turns an error of reading the archive into what it means.
	fault := func(entry string, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case src.err != nil:
			return fmt.Errorf("read archive: %w", src.err)
		}
		return readFault(entry, err)
	}
	magic, err := br.Peek(2)
	switch {
	case len(magic) == 0 && err == io.EOF:
		return res, &ArchiveError{Problem: "is empty", Fix: notAnArchive}
	case len(magic) < 2 && err != io.EOF:
		return res, fault("", err)
	case !bytes.Equal(magic, []byte{0x1f, 0x8b}):
		return res, &ArchiveError{Problem: "is not gzip-compressed", Fix: notAnArchive}
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return res, fault("", err)
	}
	zr.Multistream(false)
	tr := tar.NewReader(zr)
	man, err := readManifest(tr, fault)
	if err != nil {
		return res, err
	}
	res.Name = man.Version
	if res.Present, err = s.present(ctx, man.Version, man.Digest); res.Present || err != nil {
		return res, err
	}
	if err := man.checkTotal(opts.MaxVersionBytes); err != nil {
		return res, err
	}
	if err := s.checkRoom(man); err != nil {
		return res, err
	}
	dir, lock, err := s.newStaging("import")
	if err != nil {
		return res, err
	}
	// Removed on every way out but the rename, a panic's included.
	renamed := false
	defer func() {
		if !renamed {
			os.RemoveAll(dir)
		}
		lock.Close()
	}()
	if err := receive(ctx, dir, tr, man, fault); err != nil {
		return res, err
	}
	// The stream ends where the tar stream does, and whole: gzip's
	// checksum of the data is read at its end.
	pad := &zeros{}
	n, err := io.Copy(pad, io.LimitReader(zr, maxArchiveTrailer+1))
	if err != nil {
		return res, fault("", err)
	}
	if n > maxArchiveTrailer || pad.other {
		return res, badArchive("", "holds data after the end of its tar stream")
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return res, fault("", err)
		}
		return res, badArchive("", "holds data after its gzip stream")
	}
	if err := syncTree(ctx, dir); err != nil {
		return res, err
	}
	killpoint.Reach("import.unpacked")
	v, err := openVersion(ctx, dir, man.Version)
	if err != nil {
		var de *DamagedError
		if ctx.Err() == nil && errors.As(err, &de) {
			return res, badArchive(de.File, "holds a version that does not open: %s", de.Problem)
		}
		return res, err
	}
	// The checksums prove the files are the publisher's, not that the
	// publisher built them right: every text and its place table are
	// checked once here, so that no read of an imported version can trip
	// over one.
	err = v.checkTexts(ctx)
	v.Release()
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, badArchive(textsFile, "%v", err)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	// Another import may have stored the name meanwhile.
	if res.Present, err = s.present(ctx, man.Version, man.Digest); res.Present || err != nil {
		return res, err
	}
	final := s.versionDir(man.Version)
	// A record of folders left by a version of this name built here
	// and deleted is not this version's: an imported one has none.
	if err := s.putSources(man.Version, nil); err != nil {
		return res, err
	}
	if err := os.Rename(dir, final); err != nil {
		return res, fmt.Errorf("import version %q: %w", man.Version, err)
	}
	renamed = true
	killpoint.Reach("import.renamed")
	syncDir(filepath.Dir(final))
	os.Remove(filepath.Join(final, lockFile))
	return res, nil
}

// zeros is a writer that notes whether any byte written to it is not zero.
type zeros struct{ other bool }

func (z *zeros) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != 0 {
			z.other = true
			break
		}
	}
	return len(p), nil
}

// readFault says what an error of reading an archive's gzip or tar stream
// means.
func readFault(entry string, err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && entry == "":
		return badArchive("", "ends early: it is truncated")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badArchive(entry, "ends early: the archive is truncated")
	case errors.Is(err, gzip.ErrChecksum):
		return badArchive(entry, "fails its gzip checksum: the archive is damaged")
	case errors.Is(err, gzip.ErrHeader):
		return badArchive(entry, "holds a damaged gzip header")
	case errors.As(err, &ce):
		return badArchive(entry, "holds a damaged gzip stream (%v)", err)
	case errors.Is(err, tar.ErrHeader), errors.Is(err, tar.ErrFieldTooLong):
		return badArchive(entry, "holds a damaged tar stream (%v)", err)
	}
	return badArchive(entry, "cannot be read (%v)", err)
}

// readManifest reads and checks an archive's first entry.
func readManifest(tr *tar.Reader, fault func(string, error) error) (archiveManifest, error) {
	var man archiveManifest
	hdr, err := next(tr)
	if err == io.EOF {
		return man, &ArchiveError{Problem: "holds no entries", Fix: notAnArchive}
	}
	if err != nil {
		return man, fault("", err)
	}
	if hdr.Name != archiveName {
		return man, &ArchiveError{Entry: hdr.Name, Problem: fmt.Sprintf("comes first, where %s must: this is not a tzctx version archive", archiveName), Fix: notAnArchive}
	}
	if err := entryType(hdr); err != nil {
		return man, err
	}
	if hdr.Size > maxManifestBytes {
		return man, badArchive(archiveName, "is %d bytes, over the bound of %d", hdr.Size, maxManifestBytes)
	}
	raw, err := io.ReadAll(io.LimitReader(tr, maxManifestBytes))
	if err != nil {
		return man, fault(archiveName, err)
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		return man, badArchive(archiveName, "is not a valid manifest (%v)", err)
	}
	return man, man.check()
}

// check checks a manifest before anything is written.
func (man *archiveManifest) check() error {
	bad := func(format string, a ...any) error { return badArchive(archiveName, format, a...) }
	switch {
	case man.ArchiveFormat == 0:
		return &ArchiveError{Entry: archiveName, Problem: "names no archive_format", Fix: notAnArchive}
	case man.ArchiveFormat > ArchiveFormat:
		return &ArchiveError{Entry: archiveName, Problem: fmt.Sprintf("is of archive format %d, newer than this build's %d", man.ArchiveFormat, ArchiveFormat), Fix: "import it with a newer tzctx (upgrade this one)"}
	case man.ArchiveFormat != ArchiveFormat:
		return bad("is of archive format %d, which no tzctx writes", man.ArchiveFormat)
	case man.StoreFormat > FormatVersion:
		return &ArchiveError{Entry: archiveName, Problem: fmt.Sprintf("holds a version of store format %d, newer than this build's %d", man.StoreFormat, FormatVersion), Fix: "import it with a newer tzctx (upgrade this one)"}
	case man.StoreFormat < OldestFormat:
		return &ArchiveError{Entry: archiveName, Problem: fmt.Sprintf("holds a version of store format %d, which this build does not serve (it serves %d to %d)", man.StoreFormat, OldestFormat, FormatVersion), Fix: "ingest the site again with this tzctx, or export the version from a tzctx that serves this format"}
	case ValidName(man.Version) != nil:
		return bad("names version %q, which is no valid version name", man.Version)
	case man.Digest == "":
		return bad("names no digest")
	case len(man.Files) == 0 || man.Files[0].Path != metaFile:
		return bad("does not list %s first", metaFile)
	}
	var total int64
	files := map[string]bool{}
	for i, f := range man.Files {
		if err := checkArchivePath(f.Path); err != nil {
			return bad("lists %q, %v", f.Path, err)
		}
		if (i > 0 && f.Path == metaFile) || f.Path == lockFile || f.Path == archiveName {
			return bad("lists %q, which no version holds", f.Path)
		}
		if files[f.Path] {
			return bad("lists %q twice", f.Path)
		}
		if i > 1 && f.Path <= man.Files[i-1].Path {
			return bad("does not list its files in path order (%q comes after %q)", f.Path, man.Files[i-1].Path)
		}
		files[f.Path] = true
		limit := int64(maxArchiveFile)
		if f.Path == metaFile {
			limit = maxMetaBytes
		}
		if f.Size < 0 || f.Size > limit {
			return bad("gives %q a size of %d bytes, outside the bound of 0 to %d", f.Path, f.Size, limit)
		}
		if total += f.Size; total > maxArchiveTotal {
			return bad("declares over %d bytes of files", maxArchiveTotal)
		}
		if len(f.SHA256) != 2*sha256.Size || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
			return bad("gives %q a SHA-256 that is not 64 lower-case hex digits", f.Path)
		}
	}
	// No file may be the folder of another.
	for p := range files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if files[d] {
				return bad("lists %q both as a file and as the folder of %q", d, p)
			}
		}
	}
	return nil
}

// total returns the total size of the files the manifest lists.
func (man *archiveManifest) total() int64 {
	var total int64
	for _, f := range man.Files {
		total += f.Size
	}
	return total
}

// checkTotal refuses a manifest whose files total over bound bytes (0:
// DefaultMaxVersionBytes), naming the total, the bound and the setting
// that raises it.
func (man *archiveManifest) checkTotal(bound int64) error {
	if bound <= 0 {
		bound = DefaultMaxVersionBytes
	}
	if total := man.total(); total > bound {
		return &ArchiveError{
			Entry:   archiveName,
			Problem: fmt.Sprintf("declares version %q of %d bytes of files, over the bound of %d bytes on a version's size", man.Version, total, bound),
			Fix:     fmt.Sprintf("if the version is meant to be that large, raise max_version_bytes in the configuration (tzctx import --config FILE, or the following server's) to %d or more and import again", total),
		}
	}
	return nil
}

// checkArchivePath refuses a path that does not name a file inside a
// version folder in one way only: relative, slash-separated, clean, no
// "..".
func checkArchivePath(p string) error {
	if !filepath.IsLocal(p) || path.Clean(p) != p || strings.ContainsAny(p, "\\\x00") {
		return errors.New("which is not a clean relative path inside a version folder")
	}
	return nil
}

// entryType refuses an entry that is not a regular file.
func entryType(hdr *tar.Header) error {
	var what string
	switch hdr.Typeflag {
	case tar.TypeReg:
		return nil
	case tar.TypeSymlink:
		what = fmt.Sprintf("is a symbolic link (to %q)", hdr.Linkname)
	case tar.TypeLink:
		what = fmt.Sprintf("is a hard link (to %q)", hdr.Linkname)
	case tar.TypeDir:
		what = "is a folder"
	default:
		what = fmt.Sprintf("is of tar type %q", hdr.Typeflag)
	}
	return badArchive(hdr.Name, "%s; an archive holds regular files alone", what)
}

// receive writes the entries of tr that follow the manifest to the staging
// folder dir, each checked against the manifest as it comes, and checks
// that no entry follows them.
func receive(ctx context.Context, dir string, tr *tar.Reader, man archiveManifest, fault func(string, error) error) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	listed := map[string]bool{archiveName: true}
	for _, f := range man.Files {
		listed[f.Path] = true
	}
	seen := map[string]bool{archiveName: true}
	buf := make([]byte, 1<<20)
	for i, f := range man.Files {
		hdr, err := next(tr)
		if err == io.EOF {
			return badArchive("", "ends before %q, which its manifest lists: the archive is truncated", f.Path)
		}
		if err != nil {
			return fault("", err)
		}
		if err := entryType(hdr); err != nil {
			return err
		}
		if hdr.Name != f.Path {
			switch {
			case checkArchivePath(hdr.Name) != nil:
				return badArchive(hdr.Name, "is not a clean relative path inside a version folder")
			case seen[hdr.Name]:
				return badArchive(hdr.Name, "comes twice")
			case listed[hdr.Name]:
				return badArchive(f.Path, "is missing where the manifest lists it (%q comes there instead)", hdr.Name)
			}
			return badArchive(hdr.Name, "is not listed in the archive's manifest")
		}
		seen[f.Path] = true
		if hdr.Size != f.Size {
			return badArchive(f.Path, "is %d bytes in its tar header, but the manifest says %d", hdr.Size, f.Size)
		}
		if err := receiveFile(ctx, root, tr, f, buf, fault); err != nil {
			return err
		}
		if i == 0 {
			// meta.json, first, must describe what the manifest does,
			// before the rest is written.
			if err := checkMeta(root, man); err != nil {
				return err
			}
		}
	}
	hdr, err := next(tr)
	if err == nil {
		if seen[hdr.Name] {
			return badArchive(hdr.Name, "comes twice")
		}
		return badArchive(hdr.Name, "is not listed in the archive's manifest")
	}
	if err != io.EOF {
		return fault("", err)
	}
	return nil
}

// next returns the next header of tr. A name that tar deems insecure is
// returned with no error, for the caller to refuse by name.
func next(tr *tar.Reader) (*tar.Header, error) {
	hdr, err := tr.Next()
	if hdr != nil && errors.Is(err, tar.ErrInsecurePath) {
		err = nil
	}
	return hdr, err
}

// receiveFile writes the current entry of tr to f.Path under root, and
// checks that it is f.Size bytes with f's SHA-256.
func receiveFile(ctx context.Context, root *os.Root, tr *tar.Reader, f FileSum, buf []byte, fault func(string, error) error) error {
	if d := path.Dir(f.Path); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	out, err := root.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	defer out.Close()
	h := sha256.New()
	in := &ctxReader{ctx: ctx, r: io.LimitReader(tr, f.Size)}
	n, err := io.CopyBuffer(io.MultiWriter(out, h), in, buf)
	if err != nil {
		if in.err != nil || ctx.Err() != nil {
			return fault(f.Path, err)
		}
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	if n != f.Size {
		return badArchive(f.Path, "ends after %d of its %d bytes: the archive is truncated", n, f.Size)
	}
	if hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return badArchive(f.Path, "has another SHA-256 than the manifest gives it: the archive is damaged")
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return nil
}

// checkMeta checks that the meta.json written under root describes the
// version the manifest does, with the same files.
func checkMeta(root *os.Root, man archiveManifest) error {
	raw, err := root.ReadFile(metaFile)
	if err != nil {
		return err
	}
	bad := func(format string, a ...any) error { return badArchive(metaFile, format, a...) }
	var m Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return bad("is not valid JSON (%v)", err)
	}
	switch {
	case m.Name != man.Version:
		return bad("names version %q, but the manifest names %q", m.Name, man.Version)
	case m.Digest != man.Digest:
		return bad("gives digest %s, but the manifest gives %s", short(m.Digest), short(man.Digest))
	case m.Format != man.StoreFormat:
		return bad("is of store format %d, but the manifest says %d", m.Format, man.StoreFormat)
	}
	want := man.Files[1:]
	got := slices.Clone(m.Files)
	slices.SortFunc(got, func(a, b FileSum) int { return strings.Compare(a.Path, b.Path) })
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return bad("does not list %q, which the manifest does", want[i].Path)
		case i >= len(want) || got[i].Path < want[i].Path:
			return bad("lists %q, which the manifest does not", got[i].Path)
		case got[i].Path > want[i].Path:
			return bad("does not list %q, which the manifest does", want[i].Path)
		case got[i] != want[i]:
			return bad("gives %q another size or SHA-256 than the manifest", got[i].Path)
		}
	}
	return nil
}

// present reports whether the version name with the given digest is
// stored already and sound. A stored version of that name with another
// digest is a *ConflictError; one that is damaged, or a folder of that
// name that is no version, is an error too.
func (s *Store) present(ctx context.Context, name, digest string) (bool, error) {
	dir := s.versionDir(name)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	m, err := s.Lookup(name)
	if errors.Is(err, ErrDamaged) {
		return false, fmt.Errorf("not imported: %w", err)
	}
	if err != nil {
		return false, fmt.Errorf("not imported: %s is there, but holds no version (it has no %s: a copy in progress, or one left behind); remove it and import again", dir, metaFile)
	}
	if m.Digest != digest {
		return false, &ConflictError{Version: name, Stored: m.Digest, Archive: digest}
	}
	if err := s.Verify(ctx, name); err != nil {
		if errors.Is(err, ErrDamaged) {
			return false, fmt.Errorf("version %q is present already with the archive's content, but damaged, so nothing was imported: delete it ('tzctx delete %s') and import again: %w", name, name, err)
		}
		return false, err
	}
	return true, nil
}

// checkRoom refuses an archive whose declared files do not fit in the
// space left in the data directory.
func (s *Store) checkRoom(man archiveManifest) error {
	total := man.total()
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Join(s.dir, stagingDir), &st); err != nil {
		return nil // the writes will tell
	}
	if free := int64(st.Bavail) * int64(st.Bsize); total > free {
		return fmt.Errorf("version %q is %d bytes, but %s has %d bytes free; nothing was imported: free space and import again", man.Version, total, s.dir, free)
	}
	return nil
}
