// Package catalog builds the served contract set's catalog entries from
// the one source (CTX-01): the index schemas/served_context.json, the
// contract documents and guides it names, the enumeration of actions, the
// wire shapes and the skills generated from them. Every text it serves is
// a file of the set or derived from the set; none is written here.
//
// The catalog's documentation entries, and who may see what, are the
// reader's: this package holds the texts every caller shares.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/contracts"
	"github.com/turnzerocloud/tzctx/internal/action/skills"
	"github.com/turnzerocloud/tzctx/schemas"
)

// The media types of catalog entries.
const (
	MimeMarkdown = tzctx.MimeMarkdown
	MimeJSON     = tzctx.MimeJSON
)

// The fixed entries, first in the catalog.
const (
	IDOverview         = "overview"
	IDServiceContracts = "service_contracts"
	IDManifestSchema   = "manifest_schema"
	IDBundle           = "bundle"
)

// ToolReadContext is the tool of every entry this package builds.
const ToolReadContext = "read_context"

// Entry is one catalog entry as list_context answers it; the type
// is the root package's, which the front ends and the reader share.
type Entry = tzctx.CatalogEntry

// Item is an entry with its text.
type Item = tzctx.CatalogItem

// Files are the two folders of the contract set, each as its own file
// system: contracts/ (Markdown) and schemas/ (JSON). Index paths begin
// with the folder's name.
type Files struct {
	Contracts fs.FS
	Schemas   fs.FS
}

// ReadFile reads an index path such as "contracts/overview.md".
func (f Files) ReadFile(p string) ([]byte, error) {
	folder, rest, ok := strings.Cut(path.Clean(p), "/")
	if !ok || rest == "" || !fs.ValidPath(rest) {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	switch folder {
	case "contracts":
		return fs.ReadFile(f.Contracts, rest)
	case "schemas":
		return fs.ReadFile(f.Schemas, rest)
	}
	return nil, fmt.Errorf("%s: not in contracts/ or schemas/: %w", p, fs.ErrNotExist)
}

// Index is the parsed schemas/served_context.json.
type Index struct {
	Product        string   `json:"product"`
	Overview       string   `json:"overview"`
	ManifestSchema string   `json:"manifest_schema"`
	Skills         string   `json:"skills"`
	Sources        []Source `json:"sources"`
	Guides         []Guide  `json:"guides"`
}

// Source is one source row of the index.
type Source struct {
	Subject string `json:"subject"`
	Path    string `json:"path"`
	Title   string `json:"title"`
}

// Guide is one guide row of the index: its subject, file, title, audience
// and the commands it must teach (CTX-06).
type Guide struct {
	Subject  string   `json:"subject"`
	Path     string   `json:"path"`
	Title    string   `json:"title"`
	Audience string   `json:"audience"`
	Commands []string `json:"commands"`
}

// ReadIndex reads and parses the index of files.
func ReadIndex(files Files) (*Index, error) {
	raw, err := files.ReadFile("schemas/" + schemas.IndexFile)
	if err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("schemas/%s: %w", schemas.IndexFile, err)
	}
	return &idx, nil
}

// cleanPath is an index path as the catalog's source IDs name it: "./"
// removed, "/" separators.
func cleanPath(p string) string {
	return path.Clean(strings.ReplaceAll(p, "\\", "/"))
}

// Skill is a generated skill as the catalog serves it.
type Skill struct {
	Name, Title, Markdown string
	Actions               []string
	Parts                 []SkillPart
}

// SkillPart is one part of a paged skill, listed as skill:<name>:<part>.
type SkillPart struct {
	Name, Markdown string
}

// Catalog is the shared part of the catalog: every entry but the
// documentation entries, in catalog order, with its text.
type Catalog struct {
	items []Item
	byID  map[string]int
}

// ErrUnknownAction is in the chain of Build's error where a skill names
// an action the enumeration lacks (CTX-04).
var ErrUnknownAction = errors.New("no such action in the enumeration")

// Build builds the catalog from files, the parsed contract and the
// generated skills. It fails where an index row names a missing file, a
// text is not UTF-8, a JSON file does not parse, or a skill names an
// action the enumeration lacks.
func Build(files Files, c *schemas.Contract, skills []Skill) (*Catalog, error) {
	idx, err := ReadIndex(files)
	if err != nil {
		return nil, err
	}
	read := func(p string) (string, error) {
		raw, err := files.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("the index names %s, which cannot be read: %w", p, err)
		}
		if !utf8.Valid(raw) {
			return "", fmt.Errorf("%s is not valid UTF-8", p)
		}
		if strings.HasSuffix(p, ".json") && !json.Valid(raw) {
			return "", fmt.Errorf("%s does not parse as JSON", p)
		}
		if tok := schemas.UnfilledPlaceholder(string(raw)); tok != "" {
			return "", fmt.Errorf("%s holds %s, a placeholder no site value fills; write %s or the text itself", p, tok, schemas.SiteNamePlaceholder)
		}
		return string(raw), nil
	}
	cat := &Catalog{byID: map[string]int{}}
	add := func(it Item) {
		if _, dup := cat.byID[it.ID]; dup {
			return // the first occurrence keeps its position
		}
		cat.byID[it.ID] = len(cat.items)
		cat.items = append(cat.items, it)
	}

	overview, err := read(idx.Overview)
	if err != nil {
		return nil, err
	}
	manifest, err := read(idx.ManifestSchema)
	if err != nil {
		return nil, err
	}
	var sources, guides []Item
	for _, s := range idx.Sources {
		p := cleanPath(s.Path)
		text, err := read(p)
		if err != nil {
			return nil, err
		}
		sources = append(sources, Item{CatalogEntry: Entry{ID: "source:" + p, Tool: ToolReadContext, Title: s.Title, MimeType: mimeOf(p)}, Text: text})
	}
	for _, g := range idx.Guides {
		text, err := read(cleanPath(g.Path))
		if err != nil {
			return nil, err
		}
		guides = append(guides, Item{CatalogEntry: Entry{ID: "guide:" + g.Subject, Tool: ToolReadContext, Title: g.Title, MimeType: MimeMarkdown}, Text: text})
	}
	enumerated := map[string]bool{}
	for _, e := range c.Enumeration() {
		enumerated[e.Name] = true
	}
	var skillItems []Item
	for _, s := range skills {
		for _, text := range append([]string{s.Title, s.Markdown}, partTexts(s.Parts)...) {
			if tok := schemas.UnfilledPlaceholder(text); tok != "" {
				return nil, fmt.Errorf("skill %s holds %s, a placeholder no site value fills", s.Name, tok)
			}
		}
		for _, a := range s.Actions {
			if !enumerated[a] {
				return nil, fmt.Errorf("skill %s names action %s: %w", s.Name, a, ErrUnknownAction)
			}
		}
		skillItems = append(skillItems, Item{CatalogEntry: Entry{ID: "skill:" + s.Name, Tool: ToolReadContext, Title: s.Title, MimeType: MimeMarkdown}, Text: s.Markdown, Actions: s.Actions})
		for _, p := range s.Parts {
			skillItems = append(skillItems, Item{CatalogEntry: Entry{ID: "skill:" + s.Name + ":" + p.Name, Tool: ToolReadContext, Title: s.Title + ": " + p.Name, MimeType: MimeMarkdown}, Text: p.Markdown, Actions: s.Actions})
		}
	}
	var payloads []Item
	for _, e := range c.Enumeration() {
		text, err := Payload(c, e.Name)
		if err != nil {
			return nil, err
		}
		payloads = append(payloads, Item{CatalogEntry: Entry{ID: "payload:" + e.Name, Tool: ToolReadContext, Title: "Wire shapes of " + e.Name, MimeType: MimeJSON}, Text: text, Actions: []string{e.Name}})
	}
	bundle, err := bundleText(c.Version(), idx.Product, sources, guides)
	if err != nil {
		return nil, err
	}

	add(Item{CatalogEntry: Entry{ID: IDOverview, Tool: ToolReadContext, Title: titleOf(overview, "Overview"), MimeType: MimeMarkdown}, Text: overview})
	add(Item{CatalogEntry: Entry{ID: IDServiceContracts, Tool: ToolReadContext, Title: "Service contracts of " + idx.Product + ", by subject", MimeType: MimeMarkdown}, Text: serviceContracts(idx, sources, guides)})
	add(Item{CatalogEntry: Entry{ID: IDManifestSchema, Tool: ToolReadContext, Title: "The docs.json manifest schema", MimeType: MimeJSON}, Text: manifest})
	add(Item{CatalogEntry: Entry{ID: IDBundle, Tool: ToolReadContext, Title: "The complete source catalog of " + idx.Product, MimeType: MimeJSON}, Text: bundle})
	for _, group := range [][]Item{sources, guides, skillItems, payloads} {
		for _, it := range group {
			add(it)
		}
	}
	return cat, nil
}

// partTexts returns the texts of a skill's parts.
func partTexts(parts []SkillPart) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Markdown)
	}
	return out
}

// Items returns the catalog's entries in catalog order.
func (c *Catalog) Items() []Item { return append([]Item(nil), c.items...) }

// Item returns the entry with exactly the ID id.
func (c *Catalog) Item(id string) (Item, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Item{}, false
	}
	return c.items[i], true
}

// mimeOf is the media type of an indexed file.
func mimeOf(p string) string {
	if strings.HasSuffix(p, ".json") {
		return MimeJSON
	}
	return MimeMarkdown
}

// titleOf returns a Markdown text's first "# " heading, or fallback.
func titleOf(md, fallback string) string {
	for _, line := range strings.Split(md, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return fallback
}

// marshal writes v as JSON with two-space indentation and no HTML
// escaping, so the text reads back as written and the JSON line rules
// have lines to work with.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Written returns the contract set embedded in this build as written: its
// texts hold schemas.SiteNamePlaceholder where they name the site.
func Written() Files { return Files{Contracts: contracts.FS, Schemas: schemas.FS} }

// Named returns f with name filled in as the site's public name
// (schemas.Named), in both folders.
func (f Files) Named(name string) Files { return f.Site(schemas.Site{Name: name}) }

// Site returns f with every site placeholder filled for site
// (schemas.NamedSite), in both folders: its name, and the trees it serves
// where they are not the contract's.
func (f Files) Site(site schemas.Site) Files {
	return Files{Contracts: schemas.NamedSite(f.Contracts, site), Schemas: schemas.NamedSite(f.Schemas, site)}
}

// Embedded returns the contract set embedded in this build under the
// default site name, as a server without configuration serves it.
func Embedded() Files { return Written().Named(schemas.DefaultSiteName) }

// Load builds the catalog of this build's embedded contract set under the
// default site name, with the skills generated from it.
func Load() (*Catalog, error) { return LoadNamed(schemas.DefaultSiteName) }

// LoadNamed builds the catalog of this build's embedded contract set with
// name as the site's public name, with the skills generated from it.
func LoadNamed(name string) (*Catalog, error) { return LoadSite(schemas.Site{Name: name}) }

// LoadSite builds the catalog of this build's embedded contract set with
// every site placeholder filled for site (its name, and the trees it
// serves where they are not the contract's), with the skills generated
// from it.
func LoadSite(site schemas.Site) (*Catalog, error) {
	c, err := schemas.LoadSite(site)
	if err != nil {
		return nil, err
	}
	return BuildSite(site, c)
}

// BuildSite builds the catalog of this build's embedded contract set with
// every site placeholder filled for site, from c, the contract set parsed
// for the same site, with the skills generated from it. Unlike LoadSite
// it keeps nothing: a server whose served trees follow the served version
// holds the catalog of the version served, not one per site ever served.
func BuildSite(site schemas.Site, c *schemas.Contract) (*Catalog, error) {
	generated, err := skills.Generate(c)
	if err != nil {
		return nil, err
	}
	var sk []Skill
	for _, s := range generated {
		item := Skill{Name: s.Name, Title: s.Title, Markdown: s.Markdown, Actions: s.Actions}
		for _, p := range s.Parts {
			item.Parts = append(item.Parts, SkillPart{Name: p.Name, Markdown: p.Markdown})
		}
		sk = append(sk, item)
	}
	return Build(Written().Site(site), c, sk)
}
