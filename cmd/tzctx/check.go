package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/lint"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

// ErrCheckFailed is in the chain of the error tzctx check returns where it
// found an error, or, with --strict, a warning.
var ErrCheckFailed = finding.ErrFailed

func newCheckCmd() *cobra.Command {
	var (
		trees     []string
		formats   []string
		codeNames string
		siteName  string
		contracts string
		strict    bool
		asJSON    bool
		links     string
		rules     string
		lim       ingest.Options
		docsVers  []string
	)
	cmd := &cobra.Command{
		Use:   "check [SITE] [--tree NAME=DIR ...]",
		Short: "Check the contract set, or lint a documentation site without ingesting it",
		Long: `Without a site, check holds this build's contract set to CTX-01 (both ways),
CTX-02, CTX-06 and CTX-08, with --site-name filled into its placeholders; a
placeholder left unfilled is an error. With a SITE folder or --tree NAME=DIR flags, it runs
every check ingest runs, writing nothing, and then lints the documentation:
internal links and #anchors that name no listed page or heading are errors
(--links=warn makes them warnings, --links=off leaves them out), resolved as
the site's generator resolves them; page files the navigation does not list
(other locales and versions aside) are warnings. The house rules (CTX-08)
hold documentation only when asked: --rules ctx-08, or --code-names.
Each finding is printed as FILE:LINE: RULE: MESSAGE. Errors make check exit
non-zero; warnings do too with --strict.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := surface.ReadCodeNames(codeNames)
			if err != nil {
				return err
			}
			level, err := lint.ParseLinks(links)
			if err != nil {
				return fmt.Errorf("--links: %w", err)
			}
			house, err := lint.ParseRules(rules)
			if err != nil {
				return fmt.Errorf("--rules: %w", err)
			}
			// A code-name list is CTX-08's: giving one asks for it.
			house = house || codeNames != ""
			var res finding.Report
			switch {
			case len(args) == 0 && len(trees) == 0:
				if err := schemas.CheckSiteName(siteName); err != nil {
					return fmt.Errorf("--site-name %q: %w", siteName, err)
				}
				files := catalog.Written()
				if contracts != "" {
					files = catalog.Files{Contracts: os.DirFS(filepath.Join(contracts, "contracts")), Schemas: os.DirFS(filepath.Join(contracts, "schemas"))}
				}
				res.Errors = append(res.Errors, catalog.Check(files, catalog.CheckOptions{CodeNames: names, Name: siteName})...)
			default:
				if err := lim.CheckBounds(); err != nil {
					return err
				}
				if err := lim.CheckMintlifySnippets(); err != nil {
					return err
				}
				site := ""
				if len(args) == 1 {
					site = args[0]
				}
				srcs, err := ingest.Sources(site, trees, formats)
				var ie *ingest.Error
				if errors.As(err, &ie) {
					res.Errors = append(res.Errors, lint.IngestFinding(site, err))
					break
				} else if err != nil {
					return err
				}
				if err := ingest.ApplyDocsVersions(srcs, docsVers); err != nil {
					return err
				}
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				opts := lim
				opts.Trees, opts.CodeNames = srcs, names
				if site != "" {
					opts.Library = ingest.SiteLibrary(site)
				}
				r, err := ingest.Check(ctx, opts)
				if err != nil {
					if ctx.Err() != nil {
						return err
					}
					res.Errors = append(res.Errors, lint.IngestFinding(site, err))
					break
				}
				lint.Trees(ctx, &res, site, r, lint.Options{CodeNames: names, Links: level, HouseRules: house})
			}
			return res.Write(cmd.OutOrStdout(), asJSON, strict)
		},
	}
	addTreeFlags(cmd, &trees, &formats)
	cmd.Flags().StringArrayVar(&docsVers, "docs-version", nil, docsVersionUsage)
	cmd.Flags().StringVar(&codeNames, "code-names", "", "file of code names no page may hold, one a line (CTX-08)")
	cmd.Flags().StringVar(&siteName, "site-name", schemas.DefaultSiteName, "the site's public name the contract set is filled with and checked to name (site.name)")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit non-zero on warnings too")
	cmd.Flags().StringVar(&links, "links", string(lint.LinksError), "what a broken internal link or #anchor is: off, warn or error")
	cmd.Flags().StringVar(&rules, "rules", "", "rule sets to add to a documentation lint: ctx-08 (the house rules: repository paths, code names)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"errors":[…],"warnings":[…]} for machines`)
	cmd.Flags().StringVar(&contracts, "contracts", "", "check the contract set in DIR/contracts and DIR/schemas instead of the embedded one")
	_ = cmd.Flags().MarkHidden("contracts")
	addBoundFlags(cmd, &lim)
	addSnippetsFlag(cmd, &lim)
	return cmd
}
