package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/store"
)

func newDiffCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "List, per tree, the pages added, removed and changed from stored version A to B",
		Long: `Diff lists, per tree, what changed from stored version A to version B: the
trees B adds or drops, and, in the trees both hold, the pages B adds, the
pages it drops (by route) and the pages whose served text differs (its stamp
differs). For a changed page it names the sections that changed: the page's
served text is cut at its headings, and a section (the text before the first
heading, "(lead)", or a heading and the text up to the next heading) is
changed where its text differs, added or removed where only one version has
a section under that heading. Both versions are verified first, as a server
verifies a version before it serves it.

--json prints the same as one JSON object: from, to, trees_added,
trees_removed (names, sorted) and trees, sorted by name, each with name,
state (added, removed or kept), pages, added and removed (routes), changed
(route, from_stamp, to_stamp and sections, each with heading, "" for the
lead, depth, 0 for the lead, and change: changed, added or removed) and
unchanged (a count). An added or removed tree lists no pages.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			d, err := diffNamed(cmd.Context(), st, args[0], args[1])
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(d)
			}
			d.write(cmd.OutOrStdout())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the differences as one JSON object")
	return cmd
}

// versionDiff is what changed from stored version From to version To, as
// tzctx diff --json prints it.
type versionDiff struct {
	From string `json:"from"`
	To   string `json:"to"`
	// TreesAdded and TreesRemoved name the trees only To, or only From,
	// holds, sorted.
	TreesAdded   []string `json:"trees_added"`
	TreesRemoved []string `json:"trees_removed"`
	// Trees is every tree either version holds, sorted by name.
	Trees []treeDiff `json:"trees"`
}

// treeDiff is what changed in one tree.
type treeDiff struct {
	Name string `json:"name"`
	// State is "added" (only To holds the tree), "removed" (only From
	// holds it) or "kept". An added or removed tree lists no pages.
	State string `json:"state"`
	// Pages counts the tree's pages in To, or in From for a removed tree.
	Pages int `json:"pages"`
	// Added and Removed are the routes of the pages only To, or only
	// From, holds, in manifest order.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Changed are the pages both hold whose served text differs, in To's
	// manifest order.
	Changed []pageChange `json:"changed"`
	// Unchanged counts the pages both hold with the same served text.
	Unchanged int `json:"unchanged"`
}

// pageChange is one page whose served text differs.
type pageChange struct {
	Route     string `json:"route"`
	FromStamp string `json:"from_stamp"`
	ToStamp   string `json:"to_stamp"`
	// Sections are the sections that differ: in To's order, then those
	// only From holds in From's order.
	Sections []sectionChange `json:"sections"`
}

// sectionChange is one section of a changed page that differs.
type sectionChange struct {
	// Heading is the section's heading text, "" for the text before the
	// first heading (the lead).
	Heading string `json:"heading"`
	// Depth is the heading's depth (2 for ##), 0 for the lead.
	Depth int `json:"depth"`
	// Change is "changed", "added" (only To has a section under this
	// heading) or "removed" (only From has).
	Change string `json:"change"`
}

// diffNamed opens stored versions a and b, each verified in full, and
// returns what changed from a to b.
func diffNamed(ctx context.Context, st *store.Store, a, b string) (*versionDiff, error) {
	va, err := st.OpenVersion(ctx, a)
	if err != nil {
		return nil, err
	}
	defer va.Release()
	vb, err := st.OpenVersion(ctx, b)
	if err != nil {
		return nil, err
	}
	defer vb.Release()
	return diffVersions(ctx, va, vb)
}

// diffVersions returns what changed from version a to version b. Both
// must be held (not released) while it runs.
func diffVersions(ctx context.Context, a, b *store.Version) (*versionDiff, error) {
	d := &versionDiff{From: a.Name(), To: b.Name(), TreesAdded: []string{}, TreesRemoved: []string{}, Trees: []treeDiff{}}
	names := map[string]bool{}
	for _, n := range a.TreeNames() {
		names[n] = true
	}
	for _, n := range b.TreeNames() {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		ta, tb := a.Tree(n), b.Tree(n)
		td := treeDiff{Name: n, State: "kept", Added: []string{}, Removed: []string{}, Changed: []pageChange{}}
		switch {
		case ta == nil:
			td.State, td.Pages = "added", len(tb.Pages)
			d.TreesAdded = append(d.TreesAdded, n)
		case tb == nil:
			td.State, td.Pages = "removed", len(ta.Pages)
			d.TreesRemoved = append(d.TreesRemoved, n)
		default:
			td.Pages = len(tb.Pages)
			if err := diffTree(ctx, ta, tb, &td); err != nil {
				return nil, err
			}
		}
		d.Trees = append(d.Trees, td)
	}
	return d, nil
}

// diffTree fills td with the pages of tree b that tree a lacks, those of a
// that b lacks, and those whose served text differs.
func diffTree(ctx context.Context, a, b *store.Tree, td *treeDiff) error {
	for _, p := range a.Pages {
		if b.PageIndex(p.Route) < 0 {
			td.Removed = append(td.Removed, p.Route)
		}
	}
	for _, p := range b.Pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		if a.PageIndex(p.Route) < 0 {
			td.Added = append(td.Added, p.Route)
			continue
		}
		ta, tb, err := pageTexts(a, b, p.Route)
		if err != nil {
			return err
		}
		if ta.Stamp() == tb.Stamp() {
			td.Unchanged++
			continue
		}
		secs, err := changedSections(a, b, p.Route, ta, tb)
		if err != nil {
			return err
		}
		td.Changed = append(td.Changed, pageChange{Route: p.Route, FromStamp: ta.Stamp(), ToStamp: tb.Stamp(), Sections: secs})
	}
	return nil
}

// pageTexts returns the served texts of the page route in trees a and b,
// which both list it.
func pageTexts(a, b *store.Tree, route string) (*store.Text, *store.Text, error) {
	ta, err := pageText(a, route, "first")
	if err != nil {
		return nil, nil, err
	}
	tb, err := pageText(b, route, "second")
	return ta, tb, err
}

// pageText returns the served text of the page route, which tree t lists;
// which names the version for an error.
func pageText(t *store.Tree, route, which string) (*store.Text, error) {
	txt, err := t.Text(route)
	if err == nil && txt == nil {
		err = fmt.Errorf("lists page %s but holds no text of it", route)
	}
	if err != nil {
		return nil, fmt.Errorf("tree %s of the %s version: %w", t.Name, which, err)
	}
	return txt, nil
}

// section is one section of a page's served text.
type section struct {
	key     string // heading depth, text and occurrence: what matches it across versions
	heading string
	depth   int
	text    string
}

// sections cuts a page's served text at its headings: the lead before the
// first heading (where the text has one), then one per heading, up to the
// next heading. Sections under the same heading are told apart by their
// order. The texts borrow the version's memory: they are valid while it
// is held.
func sections(t *store.Tree, route string, txt *store.Text) ([]section, error) {
	hs, err := t.Headings(route)
	if err != nil {
		return nil, fmt.Errorf("tree %s, page %s: headings: %w", t.Name, route, err)
	}
	var out []section
	if len(hs) == 0 || hs[0].Offset > 0 {
		end := txt.Total()
		if len(hs) > 0 {
			end = hs[0].Offset
		}
		out = append(out, section{key: "0\x00\x000", text: txt.Borrow(0, end)})
	}
	seen := map[string]int{}
	for i, h := range hs {
		end := txt.Total()
		if i+1 < len(hs) {
			end = hs[i+1].Offset
		}
		k := strconv.Itoa(h.Depth) + "\x00" + h.Text
		seen[k]++
		out = append(out, section{key: k + "\x00" + strconv.Itoa(seen[k]), heading: h.Text, depth: h.Depth, text: txt.Borrow(h.Offset, end)})
	}
	return out, nil
}

// changedSections returns the sections of page route that differ between
// trees a and b.
func changedSections(a, b *store.Tree, route string, ta, tb *store.Text) ([]sectionChange, error) {
	sa, err := sections(a, route, ta)
	if err != nil {
		return nil, err
	}
	sb, err := sections(b, route, tb)
	if err != nil {
		return nil, err
	}
	from := make(map[string]string, len(sa))
	for _, s := range sa {
		from[s.key] = s.text
	}
	out := []sectionChange{}
	inB := make(map[string]bool, len(sb))
	for _, s := range sb {
		inB[s.key] = true
		old, ok := from[s.key]
		switch {
		case !ok:
			out = append(out, sectionChange{Heading: s.heading, Depth: s.depth, Change: "added"})
		case old != s.text:
			out = append(out, sectionChange{Heading: s.heading, Depth: s.depth, Change: "changed"})
		}
	}
	for _, s := range sa {
		if !inB[s.key] {
			out = append(out, sectionChange{Heading: s.heading, Depth: s.depth, Change: "removed"})
		}
	}
	return out, nil
}

// write prints the differences for a person: per tree, its pages added,
// removed and changed, and for each changed page the sections that
// changed.
func (d *versionDiff) write(w io.Writer) {
	fmt.Fprintf(w, "from %s to %s\n", d.From, d.To)
	for _, t := range d.Trees {
		switch t.State {
		case "added":
			fmt.Fprintf(w, "tree %s: added, %s\n", t.Name, plural(t.Pages, "page"))
			continue
		case "removed":
			fmt.Fprintf(w, "tree %s: removed, %s\n", t.Name, plural(t.Pages, "page"))
			continue
		}
		fmt.Fprintf(w, "tree %s: %s\n", t.Name, t.counts())
		for _, r := range t.Added {
			fmt.Fprintf(w, "  + %s\n", r)
		}
		for _, r := range t.Removed {
			fmt.Fprintf(w, "  - %s\n", r)
		}
		for _, c := range t.Changed {
			fmt.Fprintf(w, "  ~ %s\n", c.Route)
			for _, s := range c.Sections {
				fmt.Fprintf(w, "      %s %s\n", s.Change, s.title())
			}
		}
	}
}

// counts is the short form of a kept tree's differences.
func (t *treeDiff) counts() string {
	return fmt.Sprintf("%d added, %d removed, %d changed, %d unchanged pages", len(t.Added), len(t.Removed), len(t.Changed), t.Unchanged)
}

// title names a section for a person: its heading as the page writes it,
// or (lead) for the text before the first heading.
func (s sectionChange) title() string {
	if s.Depth == 0 {
		return "(lead)"
	}
	return strings.Repeat("#", s.Depth) + " " + s.Heading
}

// plural writes n and noun, with an s where n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
