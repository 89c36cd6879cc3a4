package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/source"
)

// addBoundFlags registers on cmd the bounds ingest applies to an
// untrusted folder (ingest.Options.Bounds), into the fields of opts:
// ingest and check share them.
func addBoundFlags(cmd *cobra.Command, opts *ingest.Options) {
	for _, b := range opts.Bounds() {
		if b.Int != nil {
			cmd.Flags().IntVar(b.Int, b.Flag, int(b.Default), b.Usage)
		} else {
			cmd.Flags().Int64Var(b.Int64, b.Flag, b.Default, b.Usage)
		}
	}
}

// addTreeFlags adds the --tree and --format flags tzctx ingest and tzctx
// check share.
func addTreeFlags(cmd *cobra.Command, trees, formats *[]string) {
	cmd.Flags().StringArrayVar(trees, "tree", nil, "a tree as NAME=DIR, NAME lower-case letters, digits and hyphens (such as cloud or mcp); repeatable")
	cmd.Flags().StringArrayVar(formats, "format", nil, "the folders' documentation format, detected where not given: NAME for every tree or TREE=NAME for one ("+strings.Join(source.Names(), ", ")+"); repeatable")
}

// docsVersionUsage is the help of --docs-version, which tzctx ingest and
// tzctx check share.
const docsVersionUsage = "the version of a versioned Docusaurus site to read: NAME as its versions.json lists it, or current for its docs folder; NAME for every tree or TREE=NAME for one (default: the version the site serves, its lastVersion, else the first of versions.json); repeatable"

// addSnippetsFlag adds the --mintlify-snippets flag tzctx ingest and tzctx
// check share, into opts.
func addSnippetsFlag(cmd *cobra.Command, opts *ingest.Options) {
	cmd.Flags().StringVar(&opts.MintlifySnippets, "mintlify-snippets", ingest.MintlifySnippetsKeep, "a Mintlify page's snippets: keep serves their imports and tags as written; expand serves the text Mintlify renders in their place (a snippet's content with the props passed, an imported string constant's value)")
}
