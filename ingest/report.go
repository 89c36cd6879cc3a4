package ingest

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx/ingest/source"
)

// TreeFlags reads tree folders given as NAME=DIR, as the --tree flags of
// tzctx ingest and tzctx check give them, in order.
func TreeFlags(flags []string) ([]TreeSource, error) {
	var out []TreeSource
	for _, t := range flags {
		name, dir, ok := strings.Cut(t, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("--tree %q: write --tree NAME=DIR, e.g. --tree cloud=./docs", t)
		}
		out = append(out, TreeSource{Name: name, Dir: dir})
	}
	return out, nil
}

// ApplyFormats sets the formats of srcs as --format flags give them: NAME
// for every tree, or TREE=NAME for one tree (which wins over a NAME for
// every tree). An unknown format, or a tree not given, is refused by name.
func ApplyFormats(srcs []TreeSource, flags []string) error {
	return applyPerTree(srcs, "--format", flags, func(name string) error {
		_, err := source.ByName(name)
		return err
	}, func(s *TreeSource, name string) { s.Format = name })
}

// ApplyDocsVersions sets the versions of srcs to read as --docs-version
// flags give them: NAME for every tree, or TREE=NAME for one (which wins
// over a NAME for every tree); NAME "current" reads a versioned site's
// docs folder. A tree not given is refused by name; a version the tree's
// site does not have is refused when the tree is read.
func ApplyDocsVersions(srcs []TreeSource, flags []string) error {
	return applyPerTree(srcs, "--docs-version", flags, func(name string) error {
		if name == "" {
			return fmt.Errorf("--docs-version: name a version (as the site's versions.json lists it) or current")
		}
		return nil
	}, func(s *TreeSource, name string) { s.DocsVersion = name })
}

// applyPerTree applies the values of a repeatable flag given as NAME for
// every tree or TREE=NAME for one, checking each NAME with check.
func applyPerTree(srcs []TreeSource, flag string, flags []string, check func(string) error, set func(*TreeSource, string)) error {
	all := ""
	one := map[string]string{}
	for _, f := range flags {
		tree, name, ok := strings.Cut(f, "=")
		if !ok {
			tree, name = "", f
		}
		if err := check(name); err != nil {
			return err
		}
		if tree == "" {
			all = name
			continue
		}
		found := false
		for _, s := range srcs {
			found = found || s.Name == tree
		}
		if !found {
			return fmt.Errorf("%s %q: no tree %s is given; write %s NAME for every tree or %s TREE=NAME for a tree given with --tree", flag, f, tree, flag, flag)
		}
		one[tree] = name
	}
	for i := range srcs {
		if n, ok := one[srcs[i].Name]; ok {
			set(&srcs[i], n)
		} else if all != "" {
			set(&srcs[i], all)
		}
	}
	return nil
}

// Sources reads the folders tzctx ingest and tzctx check are given: a
// SITE folder's tree folders (site "" for none) or --tree NAME=DIR flags,
// with --format flags applied. A fault of the site folder is an *Error;
// a bad flag is another error.
func Sources(site string, treeFlags, formatFlags []string) ([]TreeSource, error) {
	if site != "" && len(treeFlags) > 0 {
		return nil, fmt.Errorf("give either a SITE folder or --tree flags, not both")
	}
	srcs, err := TreeFlags(treeFlags)
	if err != nil {
		return nil, err
	}
	if site != "" {
		if srcs, err = SiteTrees(site); err != nil {
			return nil, err
		}
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("nothing to ingest: give a SITE folder or --tree NAME=DIR")
	}
	if err := ApplyFormats(srcs, formatFlags); err != nil {
		return nil, err
	}
	return srcs, nil
}

// LogProgress returns a Progress function that writes a plain line to w at
// most every two seconds, and at the last page: pages, MiB and MiB/s.
func LogProgress(w io.Writer) func(Progress) {
	start := time.Now()
	last := start
	return func(p Progress) {
		if time.Since(last) >= 2*time.Second || p.Pages == p.TotalPages {
			last = time.Now()
			mb := float64(p.Bytes) / (1 << 20)
			fmt.Fprintf(w, "ingest: %d/%d pages, %.1f MiB, %.1f MiB/s\n", p.Pages, p.TotalPages, mb, mb/time.Since(start).Seconds())
		}
	}
}

// Write writes the summary as tzctx ingest prints it: the version; a
// line a tree with its counts, its format and its title, followed, where
// its pages hold include directives, by their count ("includes: 707
// expanded, 3 left as written") and by a line for each kind of navigation
// entry it skipped ("1 sidebar link skipped (external URL)"); and the
// totals.
func (s *Summary) Write(w io.Writer) {
	if s.Existing {
		fmt.Fprintf(w, "identical content is stored already as version %s; nothing new was written\n", s.Version)
	} else {
		fmt.Fprintf(w, "version %s\n", s.Version)
	}
	for i, t := range s.Trees {
		var r TreeRead
		if i < len(s.Read) {
			r = s.Read[i]
		}
		fmt.Fprintf(w, "  tree %-9s %5d pages %10d bytes %6d headings  %s %q\n", t.Name, t.Pages, t.Bytes, t.Headings, r.Format, r.Title)
		if r.Base != "" {
			fmt.Fprintf(w, "    carried from %s as stored, its folder not read\n", r.Base)
		}
		if v := s.DocsVersions[t.Name]; v != "" {
			fmt.Fprintf(w, "    docs version %s\n", v)
		}
		if r.Expanded+r.Left > 0 {
			fmt.Fprintf(w, "    includes: %d expanded, %d left as written\n", r.Expanded, r.Left)
		}
		for _, c := range r.Skips {
			fmt.Fprintf(w, "    %s\n", c)
		}
	}
	entries := "navigation entries"
	if s.Skipped == 1 {
		entries = "navigation entry"
	}
	fmt.Fprintf(w, "  total: %d trees, %d pages, %d bytes, %d headings, %d %s skipped, %.2f s\n",
		len(s.Trees), s.Pages, s.Bytes, s.Headings, s.Skipped, entries, s.Seconds)
}
