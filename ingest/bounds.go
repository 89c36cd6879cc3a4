package ingest

import (
	"fmt"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
	"github.com/turnzerocloud/tzctx/store"
)

// Bound is one bound ingest applies to an untrusted folder, as tzctx
// ingest and tzctx check take it: its flag (without the dashes), what it
// bounds, its unit, its default and the field of Options it sets (Int64 or
// Int).
type Bound struct {
	Flag, Usage, Unit string
	Default           int64
	Int64             *int64
	Int               *int
}

// Bounds lists the bounds of o, each pointing at its field.
func (o *Options) Bounds() []Bound {
	return []Bound{
		{Flag: "max-page-bytes", Usage: "largest page file accepted, in bytes", Unit: "bytes", Default: DefaultMaxPageBytes, Int64: &o.MaxPageBytes},
		{Flag: "max-manifest-bytes", Usage: "largest docs.json or $ref file accepted, in bytes", Unit: "bytes", Default: manifest.DefaultMaxFileBytes, Int64: &o.MaxManifestBytes},
		{Flag: "max-llms-bytes", Usage: "largest llms.txt or llms-full.txt accepted, in bytes", Unit: "bytes", Default: DefaultMaxLLMSBytes, Int64: &o.MaxLLMSBytes},
		{Flag: "max-nav-nodes", Usage: "most navigation entries a manifest may expand to after $ref resolution", Unit: "entries", Default: manifest.DefaultMaxNodes, Int: &o.MaxNavNodes},
		{Flag: "max-nav-modules", Usage: "most modules a navigation config's relative imports are read from (VitePress, Docusaurus, Starlight), the config aside", Unit: "modules", Default: jslit.DefaultMaxModules, Int: &o.MaxNavModules},
		{Flag: "max-nav-depth", Usage: "deepest nesting of objects and arrays the navigation may have", Unit: "levels", Default: manifest.DefaultMaxDepth, Int: &o.MaxNavDepth},
		{Flag: "max-warnings", Usage: "most warnings of one kind listed for a tree's navigation; the rest are counted in one line", Unit: "warnings", Default: source.DefaultMaxWarnings, Int: &o.MaxWarnings},
		{Flag: "max-path-bytes", Usage: "longest path of a page a navigation names (an llms.txt link's) or of a file a folder walk lists, in bytes", Unit: "bytes", Default: source.DefaultMaxPathBytes, Int: &o.MaxPathBytes},
		{Flag: "max-include-depth", Usage: "deepest nesting of includes (mdBook {{#include}}, VitePress @include, pymdownx.snippets, GitBook {% include %}) a page may have; its own directives are level 1", Unit: "levels", Default: source.DefaultMaxIncludeDepth, Int: &o.MaxIncludeDepth},
		{Flag: "max-include-bytes", Usage: "most bytes one page's includes may pull in, each inclusion counting the whole file it names", Unit: "bytes", Default: source.DefaultMaxIncludeBytes, Int64: &o.MaxIncludeBytes},
		{Flag: "max-version-include-bytes", Usage: "most bytes the includes of every page of a version may pull in together", Unit: "bytes", Default: source.DefaultMaxVersionIncludeBytes, Int64: &o.MaxVersionIncludeBytes},
		{Flag: "max-library-files", Usage: "most files one library entry may hold", Unit: "files", Default: DefaultMaxLibraryFiles, Int: &o.MaxLibraryFiles},
		{Flag: "max-library-file-bytes", Usage: "largest library file (and library.json) accepted, in bytes", Unit: "bytes", Default: DefaultMaxLibraryFileBytes, Int64: &o.MaxLibraryFileBytes},
		{Flag: "max-library-bytes", Usage: "most bytes the library's files may hold together", Unit: "bytes", Default: DefaultMaxLibraryBytes, Int64: &o.MaxLibraryBytes},
		{Flag: "sections-held-bytes", Usage: "most bytes of search_documentation's section postings ingest holds in memory before it writes them to a work file in the staging folder, which the commit merges (ingest only)", Unit: "bytes", Default: store.DefaultSectionsHeld, Int64: &o.SectionsHeld},
		{Flag: "index-workers", Usage: "workers that build the search index's segments at once, each using up to a core and holding 125 pages' n-grams (1 to 64; ingest only)", Unit: "workers", Default: store.DefaultIndexWorkers, Int: &o.IndexWorkers},
		{Flag: "max-library-json-depth", Usage: "deepest nesting of a library JSON file", Unit: "levels", Default: DefaultMaxLibraryJSONDepth, Int: &o.MaxLibraryJSONDepth},
	}
}

// CheckBounds refuses a bound that is not positive, naming its flag.
func (o *Options) CheckBounds() error {
	for _, b := range o.Bounds() {
		n := int64(0)
		if b.Int64 != nil {
			n = *b.Int64
		} else {
			n = int64(*b.Int)
		}
		if n <= 0 {
			return fmt.Errorf("--%s %d: give a positive number of %s", b.Flag, n, b.Unit)
		}
	}
	return nil
}
