package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/source"
)

// addBoundFlags registers on cmd the bounds ingest applies to an
// untrusted folder, into the fields of opts: ingest and check share them.
func addBoundFlags(cmd *cobra.Command, opts *ingest.Options) {
	fs := cmd.Flags()
	fs.Int64Var(&opts.MaxPageBytes, "max-page-bytes", ingest.DefaultMaxPageBytes, "largest page file accepted, in bytes")
	fs.Int64Var(&opts.MaxManifestBytes, "max-manifest-bytes", manifest.DefaultMaxFileBytes, "largest docs.json or $ref file accepted, in bytes")
	fs.Int64Var(&opts.MaxLLMSBytes, "max-llms-bytes", ingest.DefaultMaxLLMSBytes, "largest llms.txt or llms-full.txt accepted, in bytes")
	fs.IntVar(&opts.MaxNavNodes, "max-nav-nodes", manifest.DefaultMaxNodes, "most navigation entries a manifest may expand to after $ref resolution")
	fs.IntVar(&opts.MaxNavDepth, "max-nav-depth", manifest.DefaultMaxDepth, "deepest nesting of objects and arrays the navigation may have")
	fs.IntVar(&opts.MaxLibraryFiles, "max-library-files", ingest.DefaultMaxLibraryFiles, "most files one library entry may hold")
	fs.Int64Var(&opts.MaxLibraryFileBytes, "max-library-file-bytes", ingest.DefaultMaxLibraryFileBytes, "largest library file (and library.json) accepted, in bytes")
	fs.Int64Var(&opts.MaxLibraryBytes, "max-library-bytes", ingest.DefaultMaxLibraryBytes, "most bytes the library's files may hold together")
	fs.IntVar(&opts.MaxLibraryJSONDepth, "max-library-json-depth", ingest.DefaultMaxLibraryJSONDepth, "deepest nesting of a library JSON file")
}

// checkBounds refuses a bound flag that is not positive, naming it.
func checkBounds(opts ingest.Options) error {
	for _, b := range []struct {
		flag string
		n    int64
		unit string
	}{
		{"--max-page-bytes", opts.MaxPageBytes, "bytes"},
		{"--max-manifest-bytes", opts.MaxManifestBytes, "bytes"},
		{"--max-llms-bytes", opts.MaxLLMSBytes, "bytes"},
		{"--max-nav-nodes", int64(opts.MaxNavNodes), "entries"},
		{"--max-nav-depth", int64(opts.MaxNavDepth), "levels"},
		{"--max-library-files", int64(opts.MaxLibraryFiles), "files"},
		{"--max-library-file-bytes", opts.MaxLibraryFileBytes, "bytes"},
		{"--max-library-bytes", opts.MaxLibraryBytes, "bytes"},
		{"--max-library-json-depth", int64(opts.MaxLibraryJSONDepth), "levels"},
	} {
		if b.n <= 0 {
			return fmt.Errorf("%s %d: give a positive number of %s", b.flag, b.n, b.unit)
		}
	}
	return nil
}

// addTreeFlags adds the --tree and --format flags tzctx ingest and tzctx
// check share.
func addTreeFlags(cmd *cobra.Command, trees, formats *[]string) {
	cmd.Flags().StringArrayVar(trees, "tree", nil, "a tree as NAME=DIR, NAME lower-case letters, digits and hyphens (such as cloud or mcp); repeatable")
	cmd.Flags().StringArrayVar(formats, "format", nil, "the folders' documentation format, detected where not given: NAME for every tree or TREE=NAME for one ("+strings.Join(source.Names(), ", ")+"); repeatable")
}
