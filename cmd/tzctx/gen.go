package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/action/reference"
	"github.com/turnzerocloud/tzctx/schemas"
)

func newGenCmd() *cobra.Command {
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate the served forms of the contract sources",
		Args:  cobra.NoArgs,
	}
	gen.AddCommand(newGenReferenceCmd())
	return gen
}

func newGenReferenceCmd() *cobra.Command {
	var check, write bool
	var siteName, treesFlag string
	cmd := &cobra.Command{
		Use:   "reference [--check | --write] DIR",
		Short: "Write, or check, the human reference: one Markdown page per action",
		Long: `Reference generates the human reference of the served-context actions (CTX-03):
one page per action of the enumeration, DIR/<action>.md, rendered from the
embedded contract sources, with the build metadata of this build's default
dispatcher: whether it registers the action.

The sample site keeps the pages in data/site/cloud/reference/actions, where
the cloud tree's manifest lists them.

  --write (the default) rewrites every page that differs, through a temporary
          file renamed into place, and removes the .md and .mdx files no
          action generates. It leaves any other entry of DIR, which --check
          then reports.
  --check writes nothing. It exits non-zero naming every stale, missing or
          extra file of DIR and the command that rewrites it; the tests run
          it against the committed pages.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if check && write {
				return errors.New("--check and --write exclude each other: give one")
			}
			dir := args[0]
			if err := schemas.CheckSiteName(siteName); err != nil {
				return fmt.Errorf("--site-name %q: %w", siteName, err)
			}
			trees, err := referenceTrees(treesFlag)
			if err != nil {
				return err
			}
			names, err := plane.Registered()
			if err != nil {
				return err
			}
			pages, err := reference.Generate(schemas.NamedSite(schemas.FS, schemas.Site{Name: siteName, Trees: trees}), names)
			if err != nil {
				return err
			}
			if check {
				named := ""
				if siteName != schemas.DefaultSiteName {
					named = fmt.Sprintf(" --site-name %q", siteName)
				}
				if trees != nil {
					named += " --trees " + treesFlag
				}
				command := fmt.Sprintf("tzctx gen reference%s --write %s (from a checkout: go run ./cmd/tzctx gen reference%s --write %s)", named, dir, named, dir)
				if err := reference.Check(dir, pages, command); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s is up to date: %d pages\n", dir, len(pages))
				return nil
			}
			written, removed, err := reference.Write(dir, pages)
			for _, f := range written {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", filepath.Join(dir, f))
			}
			for _, f := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s: no action generates it\n", filepath.Join(dir, f))
			}
			if err != nil {
				return err
			}
			if len(written)+len(removed) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s is up to date: %d pages\n", dir, len(pages))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "check DIR against the generated pages and write nothing")
	cmd.Flags().BoolVar(&write, "write", false, "rewrite DIR's pages (the default)")
	cmd.Flags().StringVar(&siteName, "site-name", schemas.DefaultSiteName, "the site's public name the pages name, as the configuration's site.name")
	cmd.Flags().StringVar(&treesFlag, "trees", strings.Join(tzctx.DefaultTrees, ","), "the trees the pages name, comma-separated in the order served, as the configuration's trees lists them")
	return cmd
}

// referenceTrees reads gen reference's --trees: tree names separated by
// commas, each valid (tzctx.CheckTreeName) and given once, at most
// tzctx.MaxTrees of them. The contract's three in their order are the
// contract's texts as written (nil), as a server serving them says.
func referenceTrees(flag string) ([]schemas.SiteTree, error) {
	var names []string
	for _, n := range strings.Split(flag, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("--trees %q: a tree name is empty; give tree names separated by commas, such as --trees redux,vite", flag)
		case tzctx.CheckTreeName(n) != nil:
			return nil, fmt.Errorf("--trees %q: %w", flag, tzctx.CheckTreeName(n))
		case slices.Contains(names, n):
			return nil, fmt.Errorf("--trees %q: %q is given twice; give each tree once", flag, n)
		}
		names = append(names, n)
	}
	if len(names) > tzctx.MaxTrees {
		return nil, fmt.Errorf("--trees: lists %d trees, more than the bound of %d", len(names), tzctx.MaxTrees)
	}
	if slices.Equal(names, tzctx.DefaultTrees) {
		return nil, nil
	}
	trees := make([]schemas.SiteTree, len(names))
	for i, n := range names {
		trees[i] = schemas.SiteTree{Name: n}
	}
	return trees, nil
}
