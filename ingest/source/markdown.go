package source

import (
	"context"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Markdown reads any folder of Markdown pages that no other format
// recognises: the folder tree, each folder's home page (index.md, else
// README.md) first, then its pages and folders in the order of a front
// matter key where the pages hold one (OrderKeys, the one most pages
// hold), then by name. Folders are the navigation's groups, labelled from
// their names.
type Markdown struct{}

var _ Source = Markdown{}

// OrderKeys are the front matter keys that order a folder of Markdown, as
// Docusaurus, Just the Docs, Hugo and others name them.
var OrderKeys = []string{"sidebar_position", "nav_order", "weight", "order"}

// Format implements Source.
func (Markdown) Format() string { return "markdown" }

// Recognises implements Source: the folder holds a .md or .mdx page (in
// a folder not hidden), found within the default bounds.
func (Markdown) Recognises(dir *sitefs.Folder) bool {
	return hasPage(context.Background(), dir, ".", Options{}.withDefaults())
}

// hasPage reports whether the folder rel or one below it holds a page.
func hasPage(ctx context.Context, dir *sitefs.Folder, rel string, opts Options) bool {
	queue := []string{rel}
	seen := 0
	for len(queue) > 0 && seen < opts.MaxNodes {
		cur := queue[0]
		queue = queue[1:]
		ents, err := dir.ListDir(ctx, cur, opts.MaxNodes-seen)
		if err != nil {
			continue
		}
		seen += len(ents)
		for _, e := range ents {
			name := e.Name
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			if !e.IsDir && isPageFile(name) {
				return true
			}
			if e.IsDir {
				if cur != "." {
					name = cur + "/" + name
				}
				queue = append(queue, name)
			}
		}
	}
	return false
}

// Read implements Source.
func (Markdown) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	t := &Tree{HeadingTitles: true}
	if err := folderPages(ctx, dir, ".", opts, t, nil, true); err != nil {
		return nil, err
	}
	// A generator's configuration below the folder: the operator most
	// likely meant that folder.
	w := &walker{ctx: ctx, dir: dir, opts: opts}
	var found []string
	_, _ = w.walk(".", 0, func(rel string) bool {
		if strings.Count(rel, "/") <= 2 && len(found) < 3 && isConfig(path.Base(rel)) {
			found = append(found, rel)
		}
		return false
	})
	for _, f := range found {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: a documentation generator's configuration below the folder; the folder was read as plain Markdown. To read its navigation, ingest its folder (--tree NAME=%s)", f, path.Join(dir.Dir(), path.Dir(f))))
	}
	return t, nil
}

// isConfig reports whether a file name is a documentation generator's
// configuration.
func isConfig(name string) bool {
	switch name {
	case "mkdocs.yml", "mkdocs.yaml", "book.toml", "docs.json", "SUMMARY.md":
		return true
	}
	for _, p := range []string{"docusaurus.config.", "astro.config."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// folderPages appends the pages of the folder root to t in folder order
// (as Markdown orders them; with byFrontMatter false by name only), page
// paths relative to root, each folder's pages under its label, below
// group.
func folderPages(ctx context.Context, dir *sitefs.Folder, root string, opts Options, t *Tree, group []string, byFrontMatter bool) error {
	w := &walker{ctx: ctx, dir: dir, opts: opts}
	top, err := w.walk(root, 0, nil)
	if err != nil {
		return err
	}
	key := ""
	var fms map[string]map[string]any
	if byFrontMatter {
		fms, key = orderKey(ctx, dir, top, opts)
	}
	l := newLister(t)
	var visit func(e *entry, group []string)
	visit = func(e *entry, group []string) {
		kids := orderEntries(t, e, fms, key)
		for _, c := range kids {
			if c.dir {
				visit(c, append(append([]string(nil), group...), humanise(c.name)))
				continue
			}
			rel := strings.TrimPrefix(c.rel, root+"/")
			if root == "." {
				rel = c.rel
			}
			l.add(Page{Path: pagePath(rel), File: c.rel, ListedIn: c.rel, Group: group})
		}
	}
	visit(top, group)
	return nil
}

// orderKey reads the front matter of every page below top and returns it
// with the order key most pages hold ("" where none holds one).
func orderKey(ctx context.Context, dir *sitefs.Folder, top *entry, opts Options) (map[string]map[string]any, string) {
	fms := map[string]map[string]any{}
	count := map[string]int{}
	var visit func(e *entry)
	visit = func(e *entry) {
		for _, c := range e.children {
			if c.dir {
				visit(c)
				continue
			}
			data, err := dir.ReadFile(ctx, c.rel, opts.MaxFileBytes)
			if err != nil {
				continue
			}
			fm := frontMatter(data)
			fms[c.rel] = fm
			for _, k := range OrderKeys {
				if _, ok := number(fm[k]); ok {
					count[k]++
				}
			}
		}
	}
	visit(top)
	best := ""
	for _, k := range OrderKeys {
		if count[k] > count[best] {
			best = k
		}
	}
	return fms, best
}

// number reads a front matter value as a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// orderEntries orders the children of a folder: its home page first
// (index.md before README.md; a second home page is left out, with a
// warning), then by the order key's value where set, a folder by its
// home page's, then by name.
func orderEntries(t *Tree, e *entry, fms map[string]map[string]any, key string) []*entry {
	var home *entry
	var rest []*entry
	for _, c := range e.children {
		if c.dir || !isHome(c.name) {
			rest = append(rest, c)
			continue
		}
		switch {
		case home == nil:
			home = c
		case homeRank(c.name) < homeRank(home.name):
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s: %s is the folder's home page, so this file is left out; remove or rename one of the two", home.rel, c.rel))
			home = c
		default:
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s: %s is the folder's home page, so this file is left out; remove or rename one of the two", c.rel, home.rel))
		}
	}
	val := func(c *entry) float64 {
		if key == "" {
			return math.Inf(1)
		}
		rel := c.rel
		if c.dir {
			rank := 3
			for _, k := range c.children {
				if !k.dir && isHome(k.name) && homeRank(k.name) < rank {
					rel, rank = k.rel, homeRank(k.name)
				}
			}
		}
		if v, ok := number(fms[rel][key]); ok {
			return v
		}
		return math.Inf(1)
	}
	sort.SliceStable(rest, func(i, j int) bool {
		a, b := val(rest[i]), val(rest[j])
		if a != b {
			return a < b
		}
		return strings.TrimSuffix(rest[i].name, ".mdx") < strings.TrimSuffix(rest[j].name, ".mdx")
	})
	if home != nil {
		return append([]*entry{home}, rest...)
	}
	return rest
}

// homeRank ranks home page names: index.md, index.mdx, README.md.
func homeRank(name string) int {
	switch strings.ToLower(name) {
	case "index.md":
		return 0
	case "index.mdx":
		return 1
	}
	return 2
}
