package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/store"
)

// LibraryFolder is the name of a site folder's library folder, beside its
// tree folders; no tree is named so.
const LibraryFolder = "library"

// LibraryCatalog is the library catalog's file name in the library folder.
const LibraryCatalog = "library.json"

// The library's default bounds (Options' MaxLibrary members).
const (
	DefaultMaxLibraryFiles     = 1000
	DefaultMaxLibraryFileBytes = 1 << 20
	DefaultMaxLibraryBytes     = 64 << 20
	DefaultMaxLibraryJSONDepth = 64
	// maxLibraryEntries bounds the rows of library.json and the names of
	// the library folder; maxLibraryDirDepth the folders of an entry.
	maxLibraryEntries  = 1000
	maxLibraryDirDepth = 16
	maxLibraryField    = 1000
)

// libraryNameRE is the grammar of an entry's name: a skill name's.
var libraryNameRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// semverRE is a semantic version (semver.org 2.0.0).
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// ErrLibrary is in the chain of every refusal of a library.
var ErrLibrary = errors.New("the library is refused")

// SiteLibrary returns the library folder of a site folder, "" where it
// holds none.
func SiteLibrary(site string) string {
	p := filepath.Join(site, LibraryFolder)
	if fi, err := os.Lstat(p); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
		return p
	}
	return ""
}

// libraryRow is one row of library.json as written.
type libraryRow struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Access      string `json:"access,omitempty"`
}

// libraryFile is one file read for the library, held until it is stored.
type libraryFile struct {
	store.LibraryFile
	data []byte
}

type libraryEntry struct {
	store.LibraryEntry
	files []libraryFile
}

func (o *Options) libraryBounds() {
	if o.MaxLibraryFiles <= 0 {
		o.MaxLibraryFiles = DefaultMaxLibraryFiles
	}
	if o.MaxLibraryFileBytes <= 0 {
		o.MaxLibraryFileBytes = DefaultMaxLibraryFileBytes
	}
	if o.MaxLibraryBytes <= 0 {
		o.MaxLibraryBytes = DefaultMaxLibraryBytes
	}
	if o.MaxLibraryJSONDepth <= 0 {
		o.MaxLibraryJSONDepth = DefaultMaxLibraryJSONDepth
	}
}

func libErr(file string, line int, problem, fix string, err error) *Error {
	if err == nil {
		err = ErrLibrary
	} else {
		err = fmt.Errorf("%w: %w", ErrLibrary, err)
	}
	if line > 0 {
		problem = fmt.Sprintf("line %d: %s", line, problem)
	}
	return &Error{File: file, Line: line, Problem: problem, Fix: fix, Err: err}
}

// readLibrary reads and checks the library folder dir: its catalog, both
// ways against its folders, every file through sitefs within the
// bounds, and every text file against CTX-08.
func readLibrary(ctx context.Context, dir string, opts Options) ([]libraryEntry, error) {
	opts.libraryBounds()
	f, err := sitefs.Open(dir)
	if err != nil {
		return nil, libErr(dir, 0, "cannot open the library folder: "+err.Error(), "name a folder holding library.json and a folder per entry", err)
	}
	defer f.Close()
	catFile := filepath.Join(dir, LibraryCatalog)
	raw, err := f.ReadFile(ctx, LibraryCatalog, opts.MaxLibraryFileBytes)
	if err != nil {
		return nil, libErr(catFile, 0, "cannot read the library catalog: "+err.Error(), "add library.json, a JSON array of rows {name, version, kind, title, description}", err)
	}
	if d := jsonDepth(raw, opts.MaxLibraryJSONDepth); d > opts.MaxLibraryJSONDepth {
		return nil, libErr(catFile, 0, fmt.Sprintf("the catalog nests deeper than %d levels", opts.MaxLibraryJSONDepth), "write library.json as an array of flat rows", nil)
	}
	var rows []libraryRow
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return nil, libErr(catFile, 0, "the catalog is not a JSON array of rows: "+err.Error(), "each row holds name, version, kind, title, description and optionally access", nil)
	}
	if len(rows) > maxLibraryEntries {
		return nil, libErr(catFile, 0, fmt.Sprintf("the catalog holds %d rows, over the bound of %d", len(rows), maxLibraryEntries), "split the library", nil)
	}
	names, err := f.ListDir(ctx, ".", maxLibraryEntries+1)
	if err != nil {
		return nil, libErr(dir, 0, "cannot list the library folder: "+err.Error(), "", err)
	}
	folders := map[string]bool{}
	for _, n := range names {
		if n.Name == LibraryCatalog || strings.HasPrefix(n.Name, ".") {
			continue
		}
		if !n.IsDir {
			return nil, libErr(filepath.Join(dir, n.Name), 0, "the library folder holds something other than library.json and entry folders (a file or a symbolic link)", "move it into an entry's folder, or remove it", nil)
		}
		folders[n.Name] = true
	}
	seen := map[string]bool{}
	var out []libraryEntry
	var total int64
	for i, r := range rows {
		where := fmt.Sprintf("%s (row %d, name %q)", catFile, i+1, r.Name)
		if !libraryNameRE.MatchString(r.Name) || len(r.Name) > 64 {
			return nil, libErr(where, 0, "the name is not an entry name: lower-case letters and digits in hyphen-separated words, at most 64 characters, never a path", "name the entry as its folder under library/ is named", nil)
		}
		if seen[r.Name] {
			return nil, libErr(where, 0, "the catalog lists this name twice", "list each entry once", nil)
		}
		seen[r.Name] = true
		if !semverRE.MatchString(r.Version) {
			return nil, libErr(where, 0, fmt.Sprintf("version %q is not a semantic version", r.Version), "write MAJOR.MINOR.PATCH, such as 1.2.0", nil)
		}
		for _, fld := range []struct{ n, v string }{{"kind", r.Kind}, {"title", r.Title}, {"description", r.Description}} {
			if strings.TrimSpace(fld.v) == "" || utf8.RuneCountInString(fld.v) > maxLibraryField || strings.ContainsAny(fld.v, "\n\r") {
				return nil, libErr(where, 0, fmt.Sprintf("%s is empty, spans lines or is longer than %d characters", fld.n, maxLibraryField), "give it on one line", nil)
			}
		}
		if r.Access != "" && !validAccess(r.Access) {
			return nil, libErr(where, 0, fmt.Sprintf("access %q is not anonymous, signed_in or product_profile:<name>", r.Access), "give a tree's access value", nil)
		}
		if !folders[r.Name] {
			return nil, libErr(where, 0, "the row names no folder library/"+r.Name+"/", "add the entry's folder, or remove the row", nil)
		}
		e, err := readLibraryEntry(ctx, f, r, opts, &total)
		if err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	var extra []string
	for n := range folders {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, libErr(filepath.Join(dir, extra[0]), 0, "the folder has no row in library.json, so it would be unserved", "add its row to library.json, or remove the folder", nil)
	}
	return out, nil
}

func validAccess(a string) bool {
	return a == "anonymous" || a == "signed_in" || (strings.HasPrefix(a, "product_profile:") && len(a) > len("product_profile:"))
}

// readLibraryEntry reads the files of one entry's folder.
func readLibraryEntry(ctx context.Context, f *sitefs.Folder, r libraryRow, opts Options, total *int64) (*libraryEntry, error) {
	e := &libraryEntry{LibraryEntry: store.LibraryEntry{Name: r.Name, Version: r.Version, Kind: r.Kind, Title: r.Title, Description: r.Description, Access: r.Access}}
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if depth > maxLibraryDirDepth {
			return libErr(filepath.Join(f.Dir(), dir), 0, fmt.Sprintf("the entry's folders nest deeper than %d levels", maxLibraryDirDepth), "flatten the entry", nil)
		}
		ents, err := f.ListDir(ctx, dir, opts.MaxLibraryFiles-len(e.files))
		if err != nil {
			if errors.Is(err, sitefs.ErrTooLarge) {
				return libErr(filepath.Join(f.Dir(), dir), 0, fmt.Sprintf("entry %s holds more than %d files (--max-library-files)", r.Name, opts.MaxLibraryFiles), "split the entry, or raise --max-library-files", err)
			}
			return libErr(filepath.Join(f.Dir(), dir), 0, err.Error(), "", err)
		}
		for _, d := range ents {
			p := path.Join(dir, d.Name)
			if d.IsDir {
				if err := walk(p, depth+1); err != nil {
					return err
				}
				continue
			}
			if len(e.files) >= opts.MaxLibraryFiles {
				return libErr(filepath.Join(f.Dir(), dir), 0, fmt.Sprintf("entry %s holds more than %d files (--max-library-files)", r.Name, opts.MaxLibraryFiles), "split the entry, or raise --max-library-files", sitefs.ErrTooLarge)
			}
			data, err := f.ReadFile(ctx, p, opts.MaxLibraryFileBytes)
			if err != nil {
				fix := ""
				if errors.Is(err, sitefs.ErrTooLarge) {
					fix = "raise --max-library-file-bytes, or leave the file out"
				}
				return libErr(filepath.Join(f.Dir(), p), 0, err.Error(), fix, err)
			}
			*total += int64(len(data))
			if *total > opts.MaxLibraryBytes {
				return libErr(filepath.Join(f.Dir(), p), 0, fmt.Sprintf("the library's files reach more than %d bytes (--max-library-bytes)", opts.MaxLibraryBytes), "raise --max-library-bytes, or publish less", sitefs.ErrTooLarge)
			}
			rel := strings.TrimPrefix(p, r.Name+"/")
			lf := libraryFile{LibraryFile: store.LibraryFile{Path: rel, Size: int64(len(data))}, data: data}
			lf.Text = isText(rel, data)
			lf.MimeType = mimeOf(rel, lf.Text)
			if err := checkLibraryText(filepath.Join(f.Dir(), p), rel, lf, e, opts); err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lf.Sum = hex.EncodeToString(sum[:])
			e.files = append(e.files, lf)
		}
		return nil
	}
	if err := walk(r.Name, 1); err != nil {
		return nil, err
	}
	if len(e.files) == 0 {
		return nil, libErr(filepath.Join(f.Dir(), r.Name), 0, "the entry's folder holds no file", "add the entry's files, or remove its row and folder", nil)
	}
	sort.Slice(e.files, func(i, j int) bool { return e.files[i].Path < e.files[j].Path })
	h := sha256.New()
	for _, lf := range e.files {
		h.Write([]byte(lf.Path))
		h.Write([]byte{0})
		h.Write([]byte(strconv.FormatInt(lf.Size, 10)))
		h.Write([]byte{0})
		h.Write(lf.data)
	}
	e.Digest = hex.EncodeToString(h.Sum(nil))
	return e, nil
}

// binaryExt are the extensions of files served as files, never as text.
var binaryExt = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".ico": "image/x-icon", ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip", ".wasm": "application/wasm",
}

// textExt are the media types of text files by extension.
var textExt = map[string]string{
	".md": "text/markdown", ".mdx": "text/markdown", ".json": "application/json", ".txt": "text/plain",
	".ts": "text/typescript", ".mts": "text/typescript", ".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript",
	".yaml": "application/yaml", ".yml": "application/yaml", ".csv": "text/csv", ".html": "text/html", ".css": "text/css",
	".go": "text/x-go", ".py": "text/x-python", ".sql": "application/sql", ".toml": "application/toml", ".svg": "image/svg+xml",
}

// isText reports whether a library file is text: not of a binary kind by
// its extension, valid UTF-8 and free of NUL bytes.
func isText(name string, data []byte) bool {
	if _, bin := binaryExt[strings.ToLower(path.Ext(name))]; bin {
		return false
	}
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

func mimeOf(name string, text bool) string {
	ext := strings.ToLower(path.Ext(name))
	if m, ok := binaryExt[ext]; ok {
		return m
	}
	if !text {
		return "application/octet-stream"
	}
	if m, ok := textExt[ext]; ok {
		return m
	}
	return "text/plain"
}

// checkLibraryText holds one file of an entry to CTX-08: a file a text
// extension names is text, a JSON file nests within the bound, and its
// text names no code name and holds no repository path outside a
// document's Sources section.
func checkLibraryText(file, rel string, lf libraryFile, e *libraryEntry, opts Options) error {
	ext := strings.ToLower(path.Ext(rel))
	if !lf.Text {
		if _, want := textExt[ext]; want {
			return libErr(file, 0, "the file's extension names a text file, but its bytes are not UTF-8 text", "save it as UTF-8, or give it the extension of its binary kind", nil)
		}
		return nil
	}
	if ext == ".json" {
		if d := jsonDepth(lf.data, opts.MaxLibraryJSONDepth); d > opts.MaxLibraryJSONDepth {
			return libErr(file, 0, fmt.Sprintf("the JSON nests deeper than %d levels (--max-library-json-depth)", opts.MaxLibraryJSONDepth), "flatten the file, or raise --max-library-json-depth", nil)
		}
	}
	text := string(lf.data)
	if ext == ".md" || ext == ".mdx" {
		text = blankSources(text)
	}
	allowed := []string{e.Name, LibraryFolder + "/" + e.Name}
	for _, f := range surface.Check(text, surface.Options{CodeNames: opts.CodeNames, Allowed: allowed}) {
		return libErr(file, f.Line, fmt.Sprintf("ctx-08-%s: %s", f.Rule, f.Detail), "a served library file names the product by its public name, no code name, and no repository path (CTX-08)", nil)
	}
	return nil
}

// blankSources blanks a Markdown document's Sources section, exempt from
// the no-path rule as history (CTX-08 ¶4), keeping its lines so findings
// name the right line.
func blankSources(text string) string {
	lines := strings.Split(text, "\n")
	in, depth := false, 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			d := len(t) - len(strings.TrimLeft(t, "#"))
			title := strings.TrimSpace(t[d:])
			switch {
			case strings.EqualFold(title, "sources"):
				in, depth = true, d
				continue
			case in && d <= depth:
				in = false
			}
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// jsonDepth returns the deepest nesting of brackets and braces outside
// strings in raw, counting no further than bound+1, in one pass.
func jsonDepth(raw []byte, bound int) int {
	depth, deepest, inStr, esc := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > bound {
					return deepest
				}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// putLibrary stores the library's files and catalog in the version being
// built and adds them to its content digest.
func putLibrary(b *store.Builder, lib []libraryEntry, digest *digester) error {
	if len(lib) == 0 {
		return nil
	}
	digest.w("library")
	rows := make([]store.LibraryEntry, 0, len(lib))
	for _, e := range lib {
		for _, s := range []string{e.Name, e.Version, e.Kind, e.Title, e.Description, e.Access, e.Digest} {
			digest.w(s)
		}
		row := e.LibraryEntry
		row.Files = nil
		for _, lf := range e.files {
			off, err := b.PutLibraryFile(lf.data)
			if err != nil {
				return err
			}
			f := lf.LibraryFile
			f.Off = off
			row.Files = append(row.Files, f)
		}
		rows = append(rows, row)
	}
	return b.PutLibrary(rows)
}
