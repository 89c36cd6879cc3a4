package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// keyLibrary is the meta bucket's key of a version's library catalog.
var keyLibrary = []byte("library")

// libraryKey is the memo key of a version's decoded library catalog.
type libraryKey struct{}

// LibraryEntry is one row of a version's library catalog as ingest
// checked it, with where each of its files lies.
type LibraryEntry struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Access is the identity reading the entry requires, as a tree's
	// access setting; "" is anonymous.
	Access string `json:"access,omitempty"`
	// Digest is the SHA-256, in lower-case hex, of the entry's content:
	// each file's path, a zero byte, its size in decimal, a zero byte and
	// its bytes, in path order.
	Digest string        `json:"digest"`
	Files  []LibraryFile `json:"files"`
}

// LibraryFile is one file of a library entry.
type LibraryFile struct {
	// Path is the file's slash-separated path inside the entry's folder.
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	MimeType string `json:"mime_type"`
	// Text is set where the file is UTF-8 text, served as text; a binary
	// file (an image, a font) is listed but not read as text.
	Text bool `json:"text"`
	// Sum is the SHA-256 of the file's bytes, in hex.
	Sum string `json:"sum"`
	Off uint64 `json:"off"`
}

// PutLibraryFile stores the bytes of one library file and returns where
// they lie, for the file's row.
func (b *Builder) PutLibraryFile(data []byte) (off uint64, err error) {
	if b.span != nil {
		return 0, errors.New("a library file cannot be stored inside a span")
	}
	r, err := b.texts.write(data)
	return r.off, err
}

// PutLibrary records the version's library catalog, its files stored
// already by PutLibraryFile. An empty catalog records nothing.
func (b *Builder) PutLibrary(entries []LibraryEntry) error {
	if len(entries) == 0 {
		b.library = nil
		return nil
	}
	raw, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	b.library = raw
	return nil
}

// Library returns the version's library catalog in catalog order, none
// where the version holds no library. It is decoded and checked once per
// version; the caller does not change it.
func (v *Version) Library() ([]LibraryEntry, error) {
	got, err := v.Memo(libraryKey{}, func() (any, error) {
		raw := v.tx.Bucket(bucketMeta).Get(keyLibrary)
		if raw == nil {
			return []LibraryEntry(nil), nil
		}
		var out []LibraryEntry
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("the library catalog is unreadable: %w", err)
		}
		for _, e := range out {
			for _, f := range e.Files {
				if _, ok := (ref{off: f.Off, n: uint64(f.Size)}).slice(v.texts); !ok || f.Size < 0 {
					return nil, fmt.Errorf("file %s of library entry %s lies outside %s", f.Path, e.Name, textsFile)
				}
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return got.([]LibraryEntry), nil
}

// LibraryBytes returns the bytes of f, a file of the version's library,
// read in place; the caller must not modify them.
func (v *Version) LibraryBytes(f LibraryFile) ([]byte, error) {
	b, ok := (ref{off: f.Off, n: uint64(f.Size)}).slice(v.texts)
	if !ok {
		return nil, errCorrupt
	}
	return b, nil
}

// checkLibrary checks every library file's bytes against its sum.
func (v *Version) checkLibrary() error {
	entries, err := v.Library()
	if err != nil {
		return err
	}
	for _, e := range entries {
		for _, f := range e.Files {
			b, err := v.LibraryBytes(f)
			if err != nil {
				return fmt.Errorf("file %s of library entry %s %v", f.Path, e.Name, err)
			}
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != f.Sum {
				return fmt.Errorf("file %s of library entry %s does not match its checksum", f.Path, e.Name)
			}
		}
	}
	return nil
}
