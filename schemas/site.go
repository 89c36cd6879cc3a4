package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// SiteNamePlaceholder stands, in the texts of the contract set (the
// documents of contracts/ and the JSON files of schemas/), for the site's
// public name. Named fills it when the set is read, so the set keeps one
// copy of every text whatever name a server is configured with. The
// braces and the dot keep it from ever being real prose.
const SiteNamePlaceholder = "{{site.name}}"

// DefaultSiteName is the public name a server serves without
// configuration: the contract's.
// (surface.ProductName, the CTX-08 check's default, is the same name; a
// test holds them equal, as schemas imports no package of the module.)
const DefaultSiteName = "Turn Zero Cloud"

// SiteNameMaxLength bounds a configured site name, in code points.
const SiteNameMaxLength = 100

// placeholderRE finds what looks like a site placeholder: the one Named
// fills and misspellings of it, which Named leaves and the checks refuse.
var placeholderRE = regexp.MustCompile(`\{\{\s*site\.[^}\n]*\}\}`)

// UnfilledPlaceholder returns the first placeholder-like token of text,
// "" where it holds none: in a filled text, a placeholder Named does not
// know, which would be served as written.
func UnfilledPlaceholder(text string) string {
	return placeholderRE.FindString(text)
}

// CheckSiteName returns an error saying what is wrong with name as a
// site's public name: empty or blank, holding a character CheckOneLine
// refuses (a line break, a control, bidirectional control or zero-width
// character), or longer than SiteNameMaxLength code points.
func CheckSiteName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return errors.New("it is not valid UTF-8")
	case strings.TrimSpace(name) == "":
		return errors.New("it is empty; give the name readers know the documentation by, such as \"Acme Docs\"")
	case strings.TrimSpace(name) != name:
		return errors.New("it starts or ends with white space; remove it")
	}
	if err := CheckOneLine(name); err != nil {
		return fmt.Errorf("it %w", err)
	}
	switch {
	case utf8.RuneCountInString(name) > SiteNameMaxLength:
		return fmt.Errorf("it is %d characters long; shorten it to at most %d", utf8.RuneCountInString(name), SiteNameMaxLength)
	case strings.Contains(name, "{{"):
		return errors.New("it holds \"{{\", which the contract set's placeholders use; remove it")
	}
	return nil
}

// FillSiteName returns text with every SiteNamePlaceholder replaced by
// name; in a JSON file (asJSON), by name as the inside of a JSON string,
// so a quote or backslash in the name keeps the file valid.
func FillSiteName(text, name string, asJSON bool) string {
	if !strings.Contains(text, SiteNamePlaceholder) {
		return text
	}
	if asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(name) // a string always encodes
		s := strings.TrimSpace(b.String())
		name = s[1 : len(s)-1]
	}
	return strings.ReplaceAll(text, SiteNamePlaceholder, name)
}

// Named returns fsys with the site's name filled into every file read
// through it (FillSiteName; a ".json" file as JSON). Folders and the
// names of files are fsys's own.
func Named(fsys fs.FS, name string) fs.FS { return namedFS{fsys: fsys, name: name} }

type namedFS struct {
	fsys fs.FS
	name string
}

func (n namedFS) Open(name string) (fs.File, error) {
	f, err := n.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		return f, err
	}
	raw, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		return nil, err
	}
	text := FillSiteName(string(raw), n.name, strings.HasSuffix(name, ".json"))
	return &filledFile{Reader: strings.NewReader(text), info: filledInfo{FileInfo: info, size: int64(len(text))}}, nil
}

func (n namedFS) ReadFile(name string) ([]byte, error) {
	f, err := n.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(f)
}

func (n namedFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(n.fsys, name) }

// filledFile is a file read through Named: its filled text.
type filledFile struct {
	*strings.Reader
	info filledInfo
}

func (f *filledFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *filledFile) Close() error               { return nil }

// filledInfo is a file's information with the filled text's size.
type filledInfo struct {
	fs.FileInfo
	size int64
}

func (i filledInfo) Size() int64 { return i.size }

// named holds the contract parsed under each site name asked for: a
// server asks for one, tests for a few.
var named sync.Map // site name → func() (*Contract, error)

// LoadNamed returns the embedded contract set with name filled in as the
// site's public name, parsed once per name. The name must pass
// CheckSiteName.
func LoadNamed(name string) (*Contract, error) {
	if err := CheckSiteName(name); err != nil {
		return nil, fmt.Errorf("site name %q: %w", name, err)
	}
	f, _ := named.LoadOrStore(name, sync.OnceValues(func() (*Contract, error) { return Parse(Named(FS, name)) }))
	return f.(func() (*Contract, error))()
}
