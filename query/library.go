package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// SubjectLibrary is the record subject of every list_library call, and of
// a read_library_entry call whose entry is unknown: the caller's name is
// never recorded unless it names an entry.
const SubjectLibrary = "library"

// LibraryEntry is one entry of a served version's library catalog.
type LibraryEntry struct {
	Name        string
	Version     string
	Kind        string
	Title       string
	Description string
	// Access is the identity reading the entry requires, as a tree's.
	Access Access
	Digest string
	Files  []LibraryFile
}

// LibraryFile is one file of a library entry.
type LibraryFile struct {
	Path     string
	Size     int64
	MimeType string
	// Text is set where the file is UTF-8 text; a binary file is read as
	// its base64 encoding.
	Text bool
	// Sum is the SHA-256 of the file's bytes, in hex, as the version
	// stores it: a file's reads share its scan while it is unchanged.
	Sum string
}

// Library is a version's library: its entries in catalog order, and the
// bytes of a file by the entry's index and the file's.
type Library interface {
	Entries() []LibraryEntry
	FileBytes(entry, file int) ([]byte, error)
}

// LibraryVersion is a Version that may hold a library; a Version that is
// not one holds none.
type LibraryVersion interface {
	Library() (Library, error)
}

// InstalledRow is one row of a project's vendored-folder manifest, as
// list_library's installed member carries it.
type InstalledRow struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Digest  string `json:"digest"`
}

// LibraryListRequest is a list_library request.
type LibraryListRequest struct {
	Offset    *int            `json:"offset,omitempty"`
	Stamp     *string         `json:"stamp,omitempty"`
	Installed *[]InstalledRow `json:"installed,omitempty"`
}

// LibraryListEntry is one entry of a list_library answer.
type LibraryListEntry struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Kind        string            `json:"kind"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Files       []LibraryFileInfo `json:"files"`
	Digest      string            `json:"digest"`
	Status      string            `json:"status,omitempty"`
}

// LibraryFileInfo is one file of a list_library entry.
type LibraryFileInfo struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	MimeType string `json:"mime_type"`
}

// LibraryListAnswer is a list_library answer: list_context's paging, the
// entries, and where installed rows were given, those the library does
// not hold.
type LibraryListAnswer struct {
	ContractVersion int                `json:"contract_version"`
	Stamp           string             `json:"stamp"`
	Offset          int                `json:"offset"`
	Total           int                `json:"total"`
	NextOffset      *int               `json:"next_offset"`
	Entries         []LibraryListEntry `json:"entries"`
	Unknown         []InstalledRow     `json:"unknown,omitempty"`
}

// The statuses list_library answers against installed rows.
const (
	StatusAvailable = "available"
	StatusCurrent   = "current"
	StatusOutdated  = "outdated"
)

// visibleLibrary returns the served version's library entries the caller
// of ctx may read, with the version to read their files from, which the
// caller releases; a version with no library answers none.
func (r *Reader) visibleLibrary(ctx context.Context) (Version, Library, []int, error) {
	v, err := r.acquire()
	if err != nil {
		return nil, nil, nil, err
	}
	lv, ok := v.(LibraryVersion)
	if !ok {
		return v, nil, nil, nil
	}
	lib, err := lv.Library()
	if err != nil {
		v.Release()
		return nil, nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served version's library cannot be read; an operator verifies the version")
	}
	if lib == nil {
		return v, nil, nil, nil
	}
	id := tzctx.IdentityFrom(ctx)
	var idx []int
	for i, e := range lib.Entries() {
		if mayRead(e.Access, id) {
			idx = append(idx, i)
		}
	}
	return v, lib, idx, nil
}

// ListLibrary answers list_library: a page of the library catalog this
// caller may read, catalog_entry_limit entries from offset, each entry's
// status against installed where it is given.
func (r *Reader) ListLibrary(ctx context.Context, req LibraryListRequest) (*LibraryListAnswer, string, error) {
	if err := checkPaging(Paging{Offset: req.Offset, Stamp: req.Stamp}); err != nil {
		return nil, SubjectLibrary, err
	}
	v, lib, idx, err := r.visibleLibrary(ctx)
	if err != nil {
		return nil, SubjectLibrary, err
	}
	defer v.Release()
	installed := map[string]InstalledRow{}
	if req.Installed != nil {
		for _, row := range *req.Installed {
			if _, dup := installed[row.Name]; dup {
				return nil, SubjectLibrary, tzctx.Errorf(tzctx.InvalidRequest, "installed lists one name twice; give one row per vendored entry, as the manifest holds")
			}
			installed[row.Name] = row
		}
	}
	entries := make([]LibraryListEntry, 0, len(idx))
	held := map[string]bool{}
	for _, i := range idx {
		e := lib.Entries()[i]
		le := LibraryListEntry{Name: e.Name, Version: e.Version, Kind: e.Kind, Title: e.Title, Description: e.Description, Digest: e.Digest, Files: make([]LibraryFileInfo, 0, len(e.Files))}
		for _, f := range e.Files {
			le.Files = append(le.Files, LibraryFileInfo{Path: f.Path, Size: f.Size, MimeType: f.MimeType})
		}
		if req.Installed != nil {
			row, ok := installed[e.Name]
			switch {
			case !ok:
				le.Status = StatusAvailable
			case row.Version == e.Version && row.Digest == e.Digest:
				le.Status = StatusCurrent
			default:
				le.Status = StatusOutdated
			}
		}
		held[e.Name] = true
		entries = append(entries, le)
	}
	var unknown []InstalledRow
	if req.Installed != nil {
		unknown = []InstalledRow{}
		for _, row := range *req.Installed {
			if !held[row.Name] {
				unknown = append(unknown, row)
			}
		}
	}
	raw, err := json.Marshal(struct {
		E []LibraryListEntry `json:"entries"`
		U []InstalledRow     `json:"unknown"`
	}{entries, unknown})
	if err != nil {
		return nil, SubjectLibrary, err
	}
	stamp := textStamp(string(raw))
	if req.Stamp != nil && *req.Stamp != stamp {
		return nil, SubjectLibrary, tzctx.Errorf(tzctx.ContextChanged, "the stamp does not match the library this connection may see with these installed rows: the library or the rows have changed since; list it again from offset 0 without a stamp")
	}
	off := 0
	if req.Offset != nil {
		off = *req.Offset
	}
	if off > len(entries) {
		return nil, SubjectLibrary, tzctx.Errorf(tzctx.InvalidRequest, "offset %d is past the end of the library, which holds %d entries", off, len(entries))
	}
	end := min(off+r.cfg.Limits.CatalogEntryLimit, len(entries))
	a := &LibraryListAnswer{ContractVersion: 1, Stamp: stamp, Offset: off, Total: len(entries), Entries: entries[off:end], Unknown: unknown}
	if end < len(entries) {
		a.NextOffset = &end
	}
	return a, SubjectLibrary, nil
}

// LibraryReadRequest is a read_library_entry request.
type LibraryReadRequest struct {
	Name string  `json:"name"`
	Path *string `json:"path,omitempty"`
	Paging
}

// LibraryID is the content ID a read_library_entry answer names: the
// entry's file list, or one of its files.
func LibraryID(name, path string) string {
	if path == "" {
		return "library:" + name
	}
	return "library:" + name + ":" + path
}

// ReadLibraryEntry answers read_library_entry: one file of one entry the
// caller may read, or the entry's file list where path is absent, paged
// as read_context pages. The name and path are looked up as keys among
// the served version's entries and files, never resolved on disk.
func (r *Reader) ReadLibraryEntry(ctx context.Context, req LibraryReadRequest) (*Answer, string, error) {
	if err := checkPaging(req.Paging); err != nil {
		return nil, SubjectLibrary, err
	}
	max := r.cfg.Limits.IDMaxLength
	if utf8.RuneCountInString(req.Name) > max || (req.Path != nil && utf8.RuneCountInString(*req.Path) > max) {
		return nil, SubjectLibrary, tzctx.Errorf(tzctx.InvalidRequest, "name and path are each at most %d characters; list_library lists every entry's name and files", max)
	}
	v, lib, idx, err := r.visibleLibrary(ctx)
	if err != nil {
		return nil, SubjectLibrary, err
	}
	defer v.Release()
	notFound := tzctx.Errorf(tzctx.ContextNotFound, "the name names no library entry this connection may read; list_library lists them")
	ei := -1
	if lib != nil {
		for _, i := range idx {
			if lib.Entries()[i].Name == req.Name {
				ei = i
			}
		}
	}
	if ei < 0 {
		return nil, SubjectLibrary, notFound
	}
	e := lib.Entries()[ei]
	if req.Path == nil {
		id := LibraryID(e.Name, "")
		var b strings.Builder
		for _, f := range e.Files {
			fmt.Fprintf(&b, "%s %d %s\n", f.Path, f.Size, f.MimeType)
		}
		a, err := r.answer(read{t: newMemText(b.String()), id: id, mime: "text/plain", action: "read_library_entry", selector: fmt.Sprintf("name %q", e.Name), version: v.Name()}, req.Paging)
		return a, id, err
	}
	fi := -1
	for i, f := range e.Files {
		if f.Path == *req.Path {
			fi = i
		}
	}
	if fi < 0 {
		return nil, LibraryID(e.Name, ""), tzctx.Errorf(tzctx.ContextNotFound, "the path names no file of library entry %s; read the entry without a path for its file list", e.Name)
	}
	f := e.Files[fi]
	id := LibraryID(e.Name, f.Path)
	sc, err := scanLibraryFile(v, lib, ei, fi)
	if err != nil {
		return nil, id, tzctx.Errorf(tzctx.ContextUnavailable, "the file cannot be read from the served version; an operator verifies the version")
	}
	var txt text = sc.text
	if sc.json != nil {
		txt = &libraryJSON{Layout: sc.json.Layout(r.limit(req.Paging)), m: sc.text}
	}
	a, err := r.answer(read{t: txt, id: id, mime: f.MimeType, action: "read_library_entry", selector: fmt.Sprintf("name %q and path %q", e.Name, f.Path), version: v.Name()}, req.Paging)
	return a, id, err
}

// libraryJSON is a library JSON file's text with the member places of
// CTX-07 ¶14 under the read's limit.
type libraryJSON struct {
	textmap.Layout
	m *memText
}

func (j *libraryJSON) Stamp() string               { return j.m.Stamp() }
func (j *libraryJSON) Slice(begin, end int) string { return j.m.Slice(begin, end) }

// TextMembers returns what an MCP text content holds of a list_library
// page (contracts/choices/mcp.md#ch-mcp, "Text content"), in the line form of
// every other answer: one line per entry, `- <name> <version> (<kind>[,
// <status>]): <title> — <description>`, then a line per file, `  -
// <path> (<mime_type>, <size> bytes)`, then the installed rows the
// library does not hold; and as members its digests, offset, total,
// stamp and next_offset.
func (a *LibraryListAnswer) TextMembers() (string, []string) {
	var b strings.Builder
	for _, e := range a.Entries {
		b.WriteString("- " + e.Name + " " + e.Version + " (" + e.Kind)
		if e.Status != "" {
			b.WriteString(", " + e.Status)
		}
		b.WriteString("): " + e.Title)
		if e.Description != "" {
			b.WriteString(" — " + e.Description)
		}
		b.WriteByte('\n')
		for _, f := range e.Files {
			fmt.Fprintf(&b, "  - %s (%s, %d bytes)\n", f.Path, f.MimeType, f.Size)
		}
	}
	if len(a.Entries) == 0 {
		b.WriteString("No library entry on this page.\n")
	}
	if len(a.Unknown) > 0 {
		b.WriteString("\nInstalled rows the library does not hold:\n")
		for _, u := range a.Unknown {
			b.WriteString("- " + u.Name + " " + u.Version + "\n")
		}
	}
	m := make([]string, 0, len(a.Entries)+5)
	for _, e := range a.Entries {
		m = append(m, "digest "+e.Name+": "+e.Digest)
	}
	next := "null (this page ends the library)"
	if a.NextOffset != nil {
		next = strconv.Itoa(*a.NextOffset)
	}
	m = append(m, "offset: "+strconv.Itoa(a.Offset), "total: "+strconv.Itoa(a.Total), "stamp: "+a.Stamp, "next_offset: "+next)
	return b.String(), m
}
