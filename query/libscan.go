package query

import (
	"encoding/base64"
	"strings"

	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// libraryScan is what every read of one library file shares: its text
// with its stamp and plain places, and where it is a JSON text, its
// parse, which each read lays out under its own limit
// (textmap.ParsedJSON). Finding them is O(n) in the file; a read that
// finds them again for every chunk pays that for every chunk.
type libraryScan struct {
	text *memText
	json *textmap.ParsedJSON // nil where the file is no valid JSON text
}

// libraryScanKey keys a file's scan in its version's memo: the entry,
// the file and the file's sum, so a changed text is scanned again.
type libraryScanKey struct {
	entry, path, sum string
}

// scanLibraryFile returns the scan of file fi of entry ei of lib, the served
// library of v, scanning it on the first read of the file in v (v.Memo):
// the scans live and die with the version, so they hold at most the
// served versions' library files, once each.
func scanLibraryFile(v Version, lib Library, ei, fi int) (*libraryScan, error) {
	e := lib.Entries()[ei]
	f := e.Files[fi]
	got, err := v.Memo(libraryScanKey{e.Name, f.Path, f.Sum}, func(Version) (any, error) {
		raw, err := lib.FileBytes(ei, fi)
		if err != nil {
			return nil, err
		}
		s := base64.StdEncoding.EncodeToString(raw)
		if f.Text {
			s = string(raw)
		}
		sc := &libraryScan{text: newMemText(s)}
		if f.Text && strings.HasSuffix(f.Path, ".json") {
			if p, ok := textmap.ParseJSON(s); ok {
				sc.json = p
			}
		}
		return sc, nil
	})
	if err != nil {
		return nil, err
	}
	return got.(*libraryScan), nil
}
