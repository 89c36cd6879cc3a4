package source

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// MkDocs reads an MkDocs folder: mkdocs.yml (or mkdocs.yaml) at the
// folder's root, its pages in docs_dir (default "docs"). Where the
// configuration has a nav, the pages are its entries in order, each
// titled by its label where it has one, nested sections the groups (a
// section without a label is labelled by its index page's title, as
// Material's navigation.indexes shows it); where it has none, the
// docs_dir's folder order, index.md or README.md first, then by name.
// Routes are MkDocs's: x.md is x, x/index.md and x/README.md are x.
// YAML tags MkDocs's plugins use (!ENV, !!python/name:…) are read as the
// text they tag, never acted on.
type MkDocs struct{}

var _ Source = MkDocs{}

// Format implements Source.
func (MkDocs) Format() string { return "mkdocs" }

// Recognises implements Source: the folder holds mkdocs.yml or
// mkdocs.yaml.
func (MkDocs) Recognises(dir *sitefs.Folder) bool { return mkdocsFile(dir) != "" }

func mkdocsFile(dir *sitefs.Folder) string {
	for _, n := range []string{"mkdocs.yml", "mkdocs.yaml"} {
		if dir.Exists(n) {
			return n
		}
	}
	return ""
}

// Read implements Source.
func (MkDocs) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	name := mkdocsFile(dir)
	if name == "" {
		name = "mkdocs.yml"
	}
	data, err := readNav(ctx, dir, name, opts)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: name, Line: yamlLine(err), Problem: "the file is not valid YAML: " + err.Error(), Fix: "fix the YAML"}
	}
	t := &Tree{Navigation: name, HeadingTitles: true}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: 1, Problem: "the configuration is not a mapping of settings", Fix: "write site_name, docs_dir and nav as top-level keys"}
	}
	t.Includes = MkDocsSnippets(root)
	docsDir := "docs"
	var nav *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		switch k {
		case "site_name":
			t.Name = v.Value
		case "docs_dir":
			if v.Kind == yaml.ScalarNode && v.Value != "" {
				docsDir = v.Value
			}
		case "nav":
			nav = v
		case "INHERIT":
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: INHERIT names a parent configuration, which is not read; the settings here alone are", name, v.Line))
		}
	}
	dd, ok := safeJoin(".", docsDir)
	if !ok && path.Clean(docsDir) != "." {
		return nil, &Error{File: name, Line: 1, Problem: fmt.Sprintf("docs_dir %q leaves the folder", docsDir), Fix: "ingest the folder that holds both mkdocs.yml and the docs_dir"}
	}
	if !ok {
		dd = "."
	}
	t.Root = dd
	if nav == nil || nav.Kind == yaml.ScalarNode && nav.Tag == "!!null" {
		if err := folderPages(ctx, dir, dd, opts, t, nil, false); err != nil {
			return nil, err
		}
		return t, nil
	}
	r := &mkdocsReader{ctx: ctx, dir: dir, opts: opts, file: name, docsDir: dd, tree: t, list: newLister(t), titles: map[string]string{}}
	if err := r.items(nav, nil, 0); err != nil {
		return nil, err
	}
	return t, nil
}

type mkdocsReader struct {
	ctx     context.Context
	dir     *sitefs.Folder
	opts    Options
	file    string
	docsDir string
	tree    *Tree
	list    *lister
	// nodes counts the nav entries visited: every list, mapping, entry of
	// a mapping and alias followed, so that aliases, which YAML lets
	// repeat a part of the nav at the cost of a few bytes, count all they
	// expand to against Options.MaxNodes.
	nodes int
	// titles holds the title of each index page a section is labelled by,
	// read once however often aliases repeat the section.
	titles map[string]string
}

// visit counts one nav entry against the node bound, and looks at the
// context.
func (r *mkdocsReader) visit(n *yaml.Node) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	if r.nodes++; r.nodes > r.opts.MaxNodes {
		return &Error{File: r.file, Line: n.Line, Problem: fmt.Sprintf("the nav has more than %d entries (an entry a YAML alias repeats counts each time)", r.opts.MaxNodes), Fix: "shorten the nav, or raise the bound with --max-nav-nodes", Err: manifest.ErrTooManyNodes}
	}
	return nil
}

// items reads a nav list (or a single entry) under the group path.
func (r *mkdocsReader) items(n *yaml.Node, group []string, depth int) error {
	if depth > r.opts.MaxDepth {
		return &Error{File: r.file, Line: n.Line, Problem: fmt.Sprintf("the nav nests deeper than the bound of %d (a YAML alias that holds itself loops for ever)", r.opts.MaxDepth), Fix: "flatten the nav, remove the alias, or raise the bound with --max-nav-depth"}
	}
	if err := r.visit(n); err != nil {
		return err
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return r.items(n.Alias, group, depth+1)
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := r.items(c, group, depth+1); err != nil {
				return err
			}
		}
		return nil
	case yaml.ScalarNode:
		return r.page("", n, group)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			label, v := n.Content[i].Value, n.Content[i+1]
			// Each entry, and each alias it follows, counts a node; the depth
			// the aliases add is this entry's alone.
			if err := r.visit(v); err != nil {
				return err
			}
			d := depth
			for v.Kind == yaml.AliasNode && v.Alias != nil && d < r.opts.MaxDepth {
				v, d = v.Alias, d+1
				if err := r.visit(v); err != nil {
					return err
				}
			}
			if v.Kind == yaml.ScalarNode {
				if err := r.page(label, v, group); err != nil {
					return err
				}
				continue
			}
			if label == "" {
				label = r.sectionLabel(v)
			}
			if err := r.items(v, append(append([]string(nil), group...), label), d+1); err != nil {
				return err
			}
		}
		return nil
	}
	return &Error{File: r.file, Line: n.Line, Problem: "a nav entry is neither a page, a link nor a section", Fix: "write a page path, \"Title: page.md\" or \"Section: [entries]\""}
}

// page reads one nav entry naming a page (or a link, which is skipped).
func (r *mkdocsReader) page(label string, n *yaml.Node, group []string) error {
	target := strings.TrimSpace(n.Value)
	switch {
	case target == "":
		r.tree.skip(skipNavEmpty)
		return nil
	case strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:"):
		r.tree.skip(skipNavURL)
		return nil
	case strings.HasPrefix(target, "/") && !isPageFile(target):
		r.tree.skip(skipNavAbsolute)
		return nil
	}
	if !isPageFile(target) {
		r.tree.skip(skipNavNotPage)
		r.tree.Warnings = append(r.tree.Warnings, fmt.Sprintf("%s:%d: the nav entry %q names no Markdown page and is left out; name a .md file relative to %s", r.file, n.Line, target, r.docsDir))
		return nil
	}
	file, ok := safeJoin(r.docsDir, strings.TrimPrefix(target, "/"))
	if !ok || r.docsDir != "." && !strings.HasPrefix(file, r.docsDir+"/") {
		return &Error{File: r.file, Line: n.Line, Problem: fmt.Sprintf("the nav entry %q names a page outside %s", target, r.docsDir), Fix: "name a page inside the docs_dir, or move the page into it"}
	}
	rel := strings.TrimPrefix(file, r.docsDir+"/")
	if r.docsDir == "." {
		rel = file
	}
	p := Page{Path: pagePath(rel), ListedIn: r.file, Pointer: strconv.Itoa(n.Line), Title: label, Group: group}
	p.File, p.Tried = existing(r.dir, file)
	r.list.add(p)
	return nil
}

// sectionLabel labels a section the nav gives no label: its first page's
// title where that page is an index page, as Material's
// navigation.indexes shows it; "" otherwise.
func (r *mkdocsReader) sectionLabel(v *yaml.Node) string {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 || v.Content[0].Kind != yaml.ScalarNode {
		return ""
	}
	first := v.Content[0].Value
	if !isHome(path.Base(first)) {
		return ""
	}
	file, ok := safeJoin(r.docsDir, first)
	if !ok {
		return ""
	}
	title, ok := r.titles[file]
	if !ok {
		title = readPageTitle(r.ctx, r.dir, file, r.opts)
		r.titles[file] = title
	}
	return title
}

// readPageTitle is pageTitle; a test counts its calls.
var readPageTitle = pageTitle

// pageTitle is a page file's front matter title, else its first level-1
// heading; "" where it has neither or does not read.
func pageTitle(ctx context.Context, dir *sitefs.Folder, file string, opts Options) string {
	data, err := dir.ReadFile(ctx, file, opts.MaxFileBytes)
	if err != nil {
		return ""
	}
	if s, ok := frontMatter(data)["title"].(string); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	fence := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		trim := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			if fence == "" {
				fence = trim[:3]
			} else if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		if fence == "" && strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(headingAttrs.ReplaceAllString(line[2:], "")), "#"))
		}
	}
	return ""
}

// headingAttrs matches a heading's trailing attribute list ("{ #id }").
var headingAttrs = regexp.MustCompile(`\s*\{[ \t]*[#.][^}]*\}\s*$`)

// yamlLine is the line a YAML error names, 0 where it names none.
func yamlLine(err error) int {
	s := err.Error()
	if i := strings.Index(s, "line "); i >= 0 {
		n := 0
		for _, c := range s[i+5:] {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	return 0
}
