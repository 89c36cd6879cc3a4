package catalog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

// The rules Check applies.
const (
	RuleMissing   = "ctx-01-missing"   // an index row names a file that does not exist
	RuleUnindexed = "ctx-01-unindexed" // a contract or schema file the index omits
	RuleEncoding  = "ctx-02-encoding"  // a text that is not valid UTF-8, or starts with a BOM
	RuleJSON      = "ctx-02-json"      // a JSON file that does not parse
	RuleGuide     = "ctx-06-guide"     // a guide that does not teach a command the index names
	RuleSurface   = "ctx-08"           // a public-name, code-name or repository-path finding
	// RulePlaceholder is a placeholder left in a text once the site's
	// name is filled in: a misspelt one, which would be served as written.
	RulePlaceholder = "ctx-08-placeholder"
	// RuleSiteName is the default name written out in a text checked
	// under another site name: a hand-kept copy of the name the
	// placeholder should carry.
	RuleSiteName = "ctx-08-site-name"
)

// CheckOptions configure Check.
type CheckOptions struct {
	// CodeNames are names no served text may hold.
	CodeNames []string
	// Extra are generated texts to hold to CTX-08 as well, by name: the
	// skills and the reference pages.
	Extra map[string]string
	// Name is the site's public name: Check fills it into the set's
	// placeholders and holds every text to name it. Empty means
	// schemas.DefaultSiteName.
	Name string
}

// Check holds the contract set of files to CTX-01 in both directions, to
// CTX-02's plain UTF-8 Markdown and JSON, to CTX-06's commands and to
// CTX-08, and returns every problem found, by file.
//
// files may be the set as written or already named: Check fills the
// site's name in (opts.Name) and finds any placeholder left after.
func Check(files Files, opts CheckOptions) []finding.Finding {
	var out []finding.Finding
	if opts.Name == "" {
		opts.Name = schemas.DefaultSiteName
	}
	files = files.Named(opts.Name)
	idx, err := ReadIndex(files)
	if err != nil {
		return []finding.Finding{{File: "schemas/served_context.json", Rule: RuleJSON, Message: err.Error()}}
	}
	named := map[string]bool{}
	name := func(p string) {
		if p != "" {
			named[cleanPath(p)] = true
		}
	}
	name("schemas/served_context.json")
	name(idx.Overview)
	name(idx.ManifestSchema)
	name(idx.Skills)
	for _, s := range idx.Sources {
		name(s.Path)
	}
	for _, g := range idx.Guides {
		name(g.Path)
	}
	// Index to disk.
	var paths []string
	for p := range named {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	allowed := append([]string(nil), paths...)
	for _, p := range paths {
		raw, err := files.ReadFile(p)
		if err != nil {
			out = append(out, finding.Finding{File: p, Rule: RuleMissing, Message: "the index names this file, which does not exist; add it or remove the row from schemas/served_context.json"})
			continue
		}
		out = append(out, checkText(p, raw, true, opts, allowed)...)
	}
	// Disk to index: every Markdown contract and JSON schema is named.
	for _, folder := range []struct {
		name, ext string
		fsys      fs.FS
	}{{"contracts", ".md", files.Contracts}, {"schemas", ".json", files.Schemas}} {
		_ = fs.WalkDir(folder.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, folder.ext) {
				return nil
			}
			full := path.Join(folder.name, p)
			if !named[full] {
				out = append(out, finding.Finding{File: full, Rule: RuleUnindexed, Message: "this file is part of the contract set but the index does not name it, so it is not served; add a row to schemas/served_context.json or remove the file"})
			}
			return nil
		})
	}
	// Guides teach their commands.
	for _, g := range idx.Guides {
		raw, err := files.ReadFile(cleanPath(g.Path))
		if err != nil {
			continue
		}
		for _, c := range g.Commands {
			if !strings.Contains(string(raw), c) {
				out = append(out, finding.Finding{File: cleanPath(g.Path), Rule: RuleGuide, Message: fmt.Sprintf("the index says guide %s teaches %q, which its text never names", g.Subject, c)})
			}
		}
	}
	var extra []string
	for n := range opts.Extra {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	for _, n := range extra {
		out = append(out, checkText(n, []byte(opts.Extra[n]), true, opts, allowed)...)
	}
	return out
}

// checkText holds one served text to CTX-02 and CTX-08.
func checkText(name string, raw []byte, mustName bool, opts CheckOptions, allowed []string) []finding.Finding {
	var out []finding.Finding
	if !utf8.Valid(raw) {
		return []finding.Finding{{File: name, Rule: RuleEncoding, Message: "the file is not valid UTF-8; save it as UTF-8"}}
	}
	if strings.HasPrefix(string(raw), "\ufeff") {
		out = append(out, finding.Finding{File: name, Rule: RuleEncoding, Message: "the file starts with a byte order mark; remove it"})
	}
	if strings.HasSuffix(name, ".json") && !json.Valid(raw) {
		out = append(out, finding.Finding{File: name, Rule: RuleJSON, Message: "the file does not parse as JSON"})
	}
	for i, line := range strings.Split(string(raw), "\n") {
		if tok := schemas.UnfilledPlaceholder(line); tok != "" {
			out = append(out, finding.Finding{File: name, Rule: RulePlaceholder, Line: i + 1, Message: fmt.Sprintf("%s is no placeholder the site's configuration fills, so it would be served as written; write %s for the site's name, or the text itself", tok, schemas.SiteNamePlaceholder)})
		}
		if opts.Name != schemas.DefaultSiteName && strings.Contains(line, schemas.DefaultSiteName) {
			out = append(out, finding.Finding{File: name, Rule: RuleSiteName, Line: i + 1, Message: fmt.Sprintf("the text names %s where the site is %s; write %s, which the site's name fills", schemas.DefaultSiteName, opts.Name, schemas.SiteNamePlaceholder)})
		}
	}
	// A JSON file holds the name as the inside of a JSON string.
	public := schemas.FillSiteName(schemas.SiteNamePlaceholder, opts.Name, strings.HasSuffix(name, ".json"))
	for _, f := range surface.Check(string(raw), surface.Options{MustName: mustName, CodeNames: opts.CodeNames, Allowed: allowed, Name: public}) {
		out = append(out, finding.Finding{File: name, Rule: RuleSurface + "-" + string(f.Rule), Line: f.Line, Message: f.Detail})
	}
	return out
}
