package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/store"
)

func newIngestCmd(g *globals) *cobra.Command {
	var (
		trees    []string
		formats  []string
		docsVers []string
		version  string
		activate bool
		lim      ingest.Options
		library  string
		codeFile string
		baseName string
		drops    []string
	)
	cmd := &cobra.Command{
		Use:   "ingest [SITE] [--tree NAME=DIR ...]",
		Short: "Ingest a site folder, or tree folders, as a new immutable version",
		Long: `Ingest reads a site folder holding tree folders (such as cloud/, blueprint/ and
tzdocs/, or any other valid tree name), or separate documentation folders given
as --tree NAME=DIR, checks every page,
and stores the result as a new immutable version. Nothing is visible until the
version is complete; --activate then makes it the served version.

With --base VERSION (--base active for the served one) the new version is
built on a stored one: it holds the base's other trees as the base stores
them, their folders never read again, and the trees given read anew;
--drop-tree NAME leaves one of the base's trees out. The library is the
base's unless --library is given.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			site := ""
			if len(args) == 1 {
				site = args[0]
			}
			var srcs []ingest.TreeSource
			// A version built on another may only leave trees out of it.
			if site != "" || len(trees) > 0 || baseName == "" {
				var err error
				if srcs, err = ingest.Sources(site, trees, formats); err != nil {
					return err
				}
			}
			if err := ingest.ApplyDocsVersions(srcs, docsVers); err != nil {
				return err
			}
			if err := lim.CheckBounds(); err != nil {
				return err
			}
			if err := lim.CheckMintlifySnippets(); err != nil {
				return err
			}
			// Nothing is created before the build begins, and a failed
			// build removes the folders it created: a failed or stopped
			// ingest leaves no folder behind.
			st, err := store.OpenDeferred(g.dataDir())
			if err != nil {
				return diskFault(g.dataDir(), "nothing was stored", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := lim
			opts.Trees, opts.Version = srcs, version
			opts.Library = library
			opts.Base, opts.DropTrees = baseName, drops
			if opts.Library == "" && site != "" {
				opts.Library = ingest.SiteLibrary(site)
			}
			if opts.CodeNames, err = surface.ReadCodeNames(codeFile); err != nil {
				return err
			}
			sum, err := runIngest(ctx, st, opts, cmd.ErrOrStderr())
			if err != nil {
				return diskFault(g.dataDir(), "nothing was stored", err)
			}
			sum.Write(cmd.OutOrStdout())
			for _, w := range sum.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			if activate {
				// It says what activate says: what changes against the
				// served version, and which served trees disappear.
				err := st.ActivateAfter(ctx, sum.Version, func(v *store.Version) error {
					return summarizeActivation(ctx, st, v, cmd.OutOrStdout())
				})
				if err != nil {
					return diskFault(g.dataDir(), "version "+sum.Version+" is stored, not activated", err)
				}
				killpoint.Reach("ingest.activated")
				fmt.Fprintf(cmd.OutOrStdout(), "activated %s\n", sum.Version)
			}
			return nil
		},
	}
	addTreeFlags(cmd, &trees, &formats)
	cmd.Flags().StringArrayVar(&docsVers, "docs-version", nil, docsVersionUsage)
	cmd.Flags().StringVar(&version, "version", "", "version name (default: date and content digest)")
	cmd.Flags().BoolVar(&activate, "activate", false, "make the new version the served one")
	addBoundFlags(cmd, &lim)
	addSnippetsFlag(cmd, &lim)
	cmd.Flags().StringVar(&library, "library", "", "the library folder to publish (library.json and a folder per entry); default: the site folder's library/")
	cmd.Flags().StringVar(&baseName, "base", "", "build on this stored version ('active' for the served one): its other trees are kept as stored, the trees given read anew")
	cmd.Flags().StringArrayVar(&drops, "drop-tree", nil, "with --base, leave the base's tree NAME out of the new version (repeatable)")
	cmd.Flags().StringVar(&codeFile, "code-names", "", "a file of code names, one a line, that no library file may hold")
	return cmd
}

// runIngest runs an ingest with a progress bar on a terminal and plain log
// lines otherwise.
func runIngest(ctx context.Context, st *store.Store, opts ingest.Options, w io.Writer) (*ingest.Summary, error) {
	f, isFile := w.(*os.File)
	if isFile && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		opts.Progress = func(p ingest.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions(p.TotalPages,
					progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("ingest"),
					progressbar.OptionShowCount(),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish())
			}
			_ = bar.Set(p.Pages)
			bar.Describe(fmt.Sprintf("ingest pages (%.1f MiB)", float64(p.Bytes)/(1<<20)))
		}
		sum, err := ingest.Run(ctx, st, opts)
		if bar != nil {
			_ = bar.Finish()
		}
		return sum, err
	}
	opts.Progress = ingest.LogProgress(w)
	return ingest.Run(ctx, st, opts)
}
