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
// so a quote or backslash in the name keeps the file valid. The other
// site placeholders (FillSite) take the contract's trees.
func FillSiteName(text, name string, asJSON bool) string {
	return FillSite(text, Site{Name: name}, asJSON)
}

// Site is what the texts of the contract set say of the site serving
// them: its public name and the documentation trees it serves.
type Site struct {
	// Name is the site's public name; "" means DefaultSiteName.
	Name string
	// Trees are the served trees, in order; nil means the contract's own
	// three, whose texts the contract set holds as written (so a site
	// that serves them says byte for byte what the contract says).
	Trees []SiteTree
}

// SiteTree is one served tree as the texts name it.
type SiteTree struct {
	// Name is the tree's name, the first segment of its routes.
	Name string
	// Title and Description are what the configuration or the tree's
	// generator says of it; either may be empty.
	Title, Description string
	// Route is a page route of the tree the texts give as an example,
	// such as "/mcp/docs/getting-started/"; "" means the tree's home
	// page, "/<name>/".
	Route string
}

// The contract's trees, as the contract set names them where a site
// serves them (Site.Trees nil).
const (
	contractTree = "cloud"
)

// The site placeholders beside SiteNamePlaceholder, each filled by
// FillSite (contracts/choices/served.md#ch-served-texts):
//
//	{{site.name's}}      the name's possessive: "Acme Docs'", "Orbit's"
//	{{site.a_name}}      the name after its article: "an Acme Docs"
//	{{site.tree}}        the first served tree's name: "cloud"
//	{{site.route:REST}}  an example route of the first served tree: the
//	                     contract's "/cloud/REST", else the tree's Route
//	{{site.trees}}       the served trees, each named with its title
//	{{site.tree_folders}} the site folder the operating guide ingests
var sitePlaceholderRE = regexp.MustCompile(`\{\{site\.(name's|a_name|tree|route:[^}\n]*|trees|tree_folders)\}\}`)

// FillSite returns text with every site placeholder filled for site; in a
// JSON file (asJSON), each as the inside of a JSON string. A placeholder
// FillSite does not know stays, for the checks to refuse.
func FillSite(text string, site Site, asJSON bool) string {
	if !strings.Contains(text, "{{site.") {
		return text
	}
	name := site.Name
	if name == "" {
		name = DefaultSiteName
	}
	esc := func(s string) string { return s }
	if asJSON {
		esc = jsonInside
	}
	text = strings.ReplaceAll(text, SiteNamePlaceholder, esc(name))
	return sitePlaceholderRE.ReplaceAllStringFunc(text, func(tok string) string {
		key := tok[len("{{site.") : len(tok)-len("}}")]
		return esc(site.fill(key, name))
	})
}

// jsonInside returns s as the inside of a JSON string.
func jsonInside(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	q := strings.TrimSpace(b.String())
	return q[1 : len(q)-1]
}

// fill is the text of the placeholder key (its name after "site.") for
// the site named name.
func (site Site) fill(key, name string) string {
	switch key {
	case "name's":
		return Possessive(name)
	case "a_name":
		return WithArticle(name)
	case "tree":
		if site.Trees == nil {
			return contractTree
		}
		return site.first().Name
	case "trees":
		if site.Trees == nil {
			return "`cloud` (the " + name + " manual), `blueprint` (Turn Zero\n  Blueprint, readable with its product profile) and `tzdocs` (how the documentation is written)"
		}
		var parts []string
		for _, t := range site.Trees {
			p := "`" + t.Name + "`"
			switch {
			case t.Title != "" && t.Description != "":
				p += " (" + t.Title + ": " + t.Description + ")"
			case t.Title != "":
				p += " (" + t.Title + ")"
			case t.Description != "":
				p += " (" + t.Description + ")"
			}
			parts = append(parts, p)
		}
		return JoinAnd(parts)
	case "tree_folders":
		if site.Trees == nil {
			return "`cloud/`, `blueprint/` and\n`tzdocs/`, each with a Mintlify `docs.json`"
		}
		var parts []string
		for _, t := range site.Trees {
			parts = append(parts, "`"+t.Name+"/`")
		}
		return JoinAnd(parts) + ", each in a format ingest reads"
	}
	rest, _ := strings.CutPrefix(key, "route:")
	if site.Trees == nil {
		return "/" + contractTree + "/" + rest
	}
	t := site.first()
	if t.Route != "" {
		return t.Route
	}
	return "/" + t.Name + "/"
}

// first returns the first served tree, a tree named "docs" where the
// site serves none (a text needs a name to give as an example).
func (site Site) first() SiteTree {
	if len(site.Trees) == 0 {
		return SiteTree{Name: "docs"}
	}
	return site.Trees[0]
}

// JoinAnd joins parts as a sentence lists them: "a", "a and b", "a, b
// and c".
func JoinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Possessive returns name's possessive as English writes it: "Acme
// Docs'" for a name ending in "s", else "Orbit's".
func Possessive(name string) string {
	if strings.HasSuffix(name, "s") || strings.HasSuffix(name, "S") {
		return name + "'"
	}
	return name + "'s"
}

// WithArticle returns name after its indefinite article: "an" before a
// name that starts with a vowel letter ("an Acme Docs", "an Orbit"),
// else "a" ("a Turn Zero Cloud").
func WithArticle(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// Named returns fsys with the site's name filled into every file read
// through it (FillSiteName; a ".json" file as JSON). Folders and the
// names of files are fsys's own.
func Named(fsys fs.FS, name string) fs.FS { return namedFS{fsys: fsys, site: Site{Name: name}} }

// NamedSite returns fsys with every site placeholder filled for site in
// every file read through it (FillSite; a ".json" file as JSON).
func NamedSite(fsys fs.FS, site Site) fs.FS { return namedFS{fsys: fsys, site: site} }

type namedFS struct {
	fsys fs.FS
	site Site
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
	text := FillSite(string(raw), n.site, strings.HasSuffix(name, ".json"))
	if strings.HasSuffix(name, ".json") && n.site.Trees != nil {
		text = withSiteTreeEnums(text, n.site)
	}
	return &filledFile{Reader: strings.NewReader(text), info: filledInfo{FileInfo: info, size: int64(len(text))}}, nil
}

// contractEnumRE finds, in a JSON schema file as written, an enumeration
// of the contract's trees, one a line.
var contractEnumRE = regexp.MustCompile(`"cloud",(\s+)"blueprint",\s+"tzdocs"`)

// withSiteTreeEnums returns a JSON schema file's text with every
// enumeration of the contract's trees listing the site's served trees
// instead, one a line as written.
func withSiteTreeEnums(text string, site Site) string {
	return contractEnumRE.ReplaceAllStringFunc(text, func(m string) string {
		sep := contractEnumRE.FindStringSubmatch(m)[1]
		names := make([]string, 0, len(site.Trees))
		for _, t := range site.Trees {
			names = append(names, `"`+jsonInside(t.Name)+`"`)
		}
		return strings.Join(names, ","+sep)
	})
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

// named holds the contract parsed under each site asked for: a server
// asks for one, tests for a few.
var named sync.Map // site key → func() (*Contract, error)

// LoadNamed returns the embedded contract set with name filled in as the
// site's public name, parsed once per name. The name must pass
// CheckSiteName.
func LoadNamed(name string) (*Contract, error) { return LoadSite(Site{Name: name}) }

// LoadSite returns the embedded contract set with every site placeholder
// filled for site (NamedSite), parsed once per site. The name must pass
// CheckSiteName.
func LoadSite(site Site) (*Contract, error) {
	if site.Name == "" {
		site.Name = DefaultSiteName
	}
	if err := CheckSiteName(site.Name); err != nil {
		return nil, fmt.Errorf("site name %q: %w", site.Name, err)
	}
	key, _ := json.Marshal(site)
	f, _ := named.LoadOrStore(string(key), sync.OnceValues(func() (*Contract, error) { return Parse(NamedSite(FS, site)) }))
	return f.(func() (*Contract, error))()
}

// ParseSite returns the embedded contract set with every site placeholder
// filled for site, as LoadSite does, parsed afresh and kept nowhere: for
// a server whose served trees follow the served version, which holds the
// set of the version it serves rather than one per site it ever served.
// The name must pass CheckSiteName.
func ParseSite(site Site) (*Contract, error) {
	if site.Name == "" {
		site.Name = DefaultSiteName
	}
	if err := CheckSiteName(site.Name); err != nil {
		return nil, fmt.Errorf("site name %q: %w", site.Name, err)
	}
	return Parse(NamedSite(FS, site))
}

// NeutralSiteName is the public name of a site that configures none and
// serves several trees other than the contract's (NameOf): a name that,
// like a product's, reads right alone at a sentence's start ("Docs Server
// serves this documentation"), after its article ("a Docs Server library
// entry"), in its possessive ("Docs Server's served context") and before
// a noun ("Search Docs Server documentation"), and claims no one's
// product.
const NeutralSiteName = "Docs Server"

// NameOf returns the public name of a site that configures none, serving
// trees as the texts name them (Site.Trees): the contract's name,
// DefaultSiteName, for the contract's own trees (nil); the title of its
// one tree (its name where it has none), cleaned to one line of at most
// SiteNameMaxLength code points; else NeutralSiteName, also where that
// title is no name CheckSiteName takes.
func NameOf(trees []SiteTree) string {
	switch {
	case trees == nil:
		return DefaultSiteName
	case len(trees) != 1:
		return NeutralSiteName
	}
	name := trees[0].Title
	if name == "" {
		name = trees[0].Name
	}
	name = CleanOneLine(name, SiteNameMaxLength)
	if CheckSiteName(name) != nil {
		return NeutralSiteName
	}
	return name
}
