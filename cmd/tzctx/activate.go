package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newActivateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "activate NAME",
		Short: "Make a stored version the served one; running servers switch without restart",
		Long: `Activate verifies the named version in full, prints what changes against the
version served now (per tree, the pages added, removed and changed, and the
trees added and removed: 'tzctx diff SERVED NAME' lists them page by page),
warns, here and in the log, of each tree served now that NAME lacks (its
reads will answer context_unavailable), then replaces the pointer to the
served version at once. Running servers switch without restart.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			name := args[0]
			out := cmd.OutOrStdout()
			err = st.ActivateAfter(cmd.Context(), name, func(v *store.Version) error {
				return summarizeActivation(cmd.Context(), st, v, out)
			})
			if err != nil {
				return diskFault(g.dataDir(), "the active version is as it was", err)
			}
			fmt.Fprintf(out, "activated %s\n", name)
			return nil
		},
	}
}

// summarizeActivation prints, before the pointer changes to version next,
// what changes against the version served now, and warns, on w and in the
// log, of each served tree next lacks. A served version that cannot be
// read is said, and refuses nothing: activating another is how it is
// repaired.
func summarizeActivation(ctx context.Context, st *store.Store, next *store.Version, w io.Writer) error {
	served, err := st.ActiveName()
	if err != nil {
		return err
	}
	switch {
	case served == "":
		fmt.Fprintf(w, "nothing is served yet: %s serves %s\n", next.Name(), treeList(next))
		return nil
	case served == next.Name():
		fmt.Fprintf(w, "%s is served now: nothing changes\n", served)
		return nil
	}
	cur, err := st.OpenVersion(ctx, served)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(w, "the served version %s cannot be read, so what changes is not known: %v\n", served, err)
		return nil
	}
	defer cur.Release()
	d, err := diffVersions(ctx, cur, next)
	if err != nil {
		return fmt.Errorf("comparing %s with the served %s: %w", next.Name(), served, err)
	}
	d.writeSummary(w)
	for _, t := range d.TreesRemoved {
		msg := fmt.Sprintf("tree %s is served now and is not in %s: its reads will answer context_unavailable; ingest with every tree, or activate a version that holds %s", t, next.Name(), t)
		fmt.Fprintln(w, "warning: "+msg)
		slog.Warn("activate: a served tree disappears", "tree", t, "served", served, "version", next.Name(), "detail", msg)
	}
	return nil
}

// writeSummary prints the short form of the differences: per tree, the
// counts of pages added, removed and changed, and the trees added and
// removed.
func (d *versionDiff) writeSummary(w io.Writer) {
	fmt.Fprintf(w, "changes from the served %s to %s:\n", d.From, d.To)
	for _, t := range d.Trees {
		switch t.State {
		case "added", "removed":
			fmt.Fprintf(w, "  tree %s: %s, %s\n", t.Name, t.State, plural(t.Pages, "page"))
		default:
			fmt.Fprintf(w, "  tree %s: %s\n", t.Name, t.counts())
		}
	}
}

// treeList names a version's trees with their page counts.
func treeList(v *store.Version) string {
	m := v.Meta()
	s := plural(len(m.Trees), "tree")
	for i, t := range m.Trees {
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		s += sep + t.Name + " " + plural(t.Pages, "page")
	}
	if len(m.Trees) > 0 {
		s += ")"
	}
	return s
}
