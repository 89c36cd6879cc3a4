package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// readNav reads the navigation file name within opts' bound, refusing it
// with an *Error that names the file and what to do.
func readNav(ctx context.Context, dir *sitefs.Folder, name string, opts Options) ([]byte, error) {
	data, err := dir.ReadFile(ctx, name, opts.MaxFileBytes)
	if err == nil {
		return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	e := &Error{File: name, Problem: err.Error(), Fix: "make it a regular file inside the folder", Err: err}
	switch {
	case errors.Is(err, sitefs.ErrTooLarge):
		e.Problem = fmt.Sprintf("the navigation file is over the bound of %d bytes", opts.MaxFileBytes)
		e.Fix = "shorten it, or raise the bound with --max-manifest-bytes"
	case errors.Is(err, fs.ErrNotExist):
		e.Fix = "add the file, or name the folder's format with --format"
	}
	return nil, e
}

// isPageFile reports whether a file name is a Markdown page's.
func isPageFile(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".mdx"
}

// pagePath is the page path of a page file, relative to the folder the
// generator publishes from: without its extension, a folder's index.md or
// README.md named by the folder, the top one "index", as every generator
// of this package publishes them.
func pagePath(file string) string {
	p := strings.TrimSuffix(file, path.Ext(file))
	base := path.Base(p)
	if strings.EqualFold(base, "index") || strings.EqualFold(base, "readme") {
		p = path.Dir(p)
	}
	if p == "." || p == "" {
		return "index"
	}
	return p
}

// isHome reports whether a page file is its folder's home page.
func isHome(name string) bool {
	base := strings.TrimSuffix(name, path.Ext(name))
	return strings.EqualFold(base, "index") || strings.EqualFold(base, "readme")
}

// safeJoin joins a path an entry of a navigation file gives to the folder
// it is relative to, refusing one that leaves the folder: ok is false for
// "../x" above the folder and for an absolute path.
func safeJoin(base, p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return "", false
	}
	j := path.Join(base, p)
	if j == ".." || strings.HasPrefix(j, "../") || j == "." {
		return "", false
	}
	return j, true
}

// entry is one file or folder of a walked folder tree.
type entry struct {
	name     string // the entry's name
	rel      string // its path relative to the folder read
	dir      bool
	children []*entry // a folder's, sorted by name
}

// walker lists a folder tree within the bounds of Options.
type walker struct {
	ctx   context.Context
	dir   *sitefs.Folder
	opts  Options
	nodes int
	// skip reports whether a name is left out; hidden names and
	// node_modules always are.
	skip func(name string, isDir bool) bool
}

// walk lists the folder rel (relative to the folder; "." for it) and its
// subfolders: page files and folders holding any, other files where keep
// says so (given the file's path). Symbolic links to folders are not
// followed (a link cycle cannot loop), links to files are listed and read
// as files are; sitefs.Folder.ListDir leaves out pipes, devices and sockets.
func (w *walker) walk(rel string, depth int, keep func(name string) bool) (*entry, error) {
	if depth > w.opts.MaxDepth {
		return nil, &Error{File: rel, Problem: fmt.Sprintf("folders nest deeper than the bound of %d", w.opts.MaxDepth), Fix: "flatten the folder tree, or raise the bound with --max-nav-depth"}
	}
	ents, err := w.dir.ListDir(w.ctx, rel, w.opts.MaxNodes-w.nodes)
	if err != nil {
		if w.ctx.Err() != nil {
			return nil, w.ctx.Err()
		}
		if errors.Is(err, sitefs.ErrTooLarge) {
			return nil, &Error{File: rel, Problem: fmt.Sprintf("the folder tree holds more than %d entries", w.opts.MaxNodes), Fix: "ingest a smaller folder, or raise the bound with --max-nav-nodes", Err: err}
		}
		return nil, &Error{File: rel, Problem: err.Error(), Fix: "make the folder readable", Err: err}
	}
	w.nodes += len(ents)
	e := &entry{name: path.Base(rel), rel: rel, dir: true}
	for _, d := range ents {
		// A folder may hold up to the node bound's names: a stop is seen
		// at the next name.
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		name := d.Name
		isDir := d.IsDir
		if strings.HasPrefix(name, ".") || name == "node_modules" || w.skip != nil && w.skip(name, isDir) {
			continue
		}
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		if limit := w.opts.withDefaults().MaxPathBytes; len(child) > limit {
			return nil, &Error{File: strconv.Quote(child), Problem: fmt.Sprintf("the path is %d bytes, over the bound of %d bytes", len(child), limit), Fix: "shorten the names of its folders, or raise the bound with --max-path-bytes"}
		}
		switch {
		case isDir:
			sub, err := w.walk(child, depth+1, keep)
			if err != nil {
				return nil, err
			}
			if len(sub.children) > 0 {
				e.children = append(e.children, sub)
			}
		default:
			// A file or a link, which reading refuses by name where it
			// does not lead to a regular file inside the folder.
			if isPageFile(name) || keep != nil && keep(child) {
				e.children = append(e.children, &entry{name: name, rel: child})
			}
		}
	}
	return e, nil
}

// frontMatter reads the YAML front matter of a page file, nil where it
// has none that reads.
func frontMatter(data []byte) map[string]any {
	text := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(text, []byte("---\n")) {
		return nil
	}
	rest := text[4:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil
	}
	var m map[string]any
	if yaml.Unmarshal(rest[:end+1], &m) != nil {
		return nil
	}
	return m
}

// humanise turns a file or folder name into a label, as generators title
// a folder without one: separators as spaces, a number prefix dropped,
// the first letter upper-case ("02-getting_started" is "Getting started").
func humanise(name string) string {
	name = strings.TrimSuffix(name, path.Ext(name))
	s := strings.TrimLeftFunc(name, unicode.IsDigit)
	if s != name && (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "_") || strings.HasPrefix(s, ".")) {
		name = s[1:]
	}
	name = strings.NewReplacer("-", " ", "_", " ").Replace(name)
	name = strings.TrimSpace(name)
	if name == "" {
		return ""
	}
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// lister collects a tree's pages, each file once, warning about a file
// listed again.
type lister struct {
	tree *Tree
	seen map[string]string // file or path -> where first listed
}

func newLister(t *Tree) *lister { return &lister{tree: t, seen: map[string]string{}} }

// add appends a page unless its file was listed already, which it warns
// about, naming both places.
func (l *lister) add(p Page) {
	key := p.File
	if key == "" {
		key = "path:" + p.Path
	}
	at := p.ListedIn
	if p.Pointer != "" {
		at += ":" + p.Pointer
	}
	if first, dup := l.seen[key]; dup {
		l.tree.Warnings = append(l.tree.Warnings, fmt.Sprintf("%s: the page %s is listed again (first at %s); the second entry is left out, remove one of the two", at, p.Path, first))
		return
	}
	l.seen[key] = at
	l.tree.Pages = append(l.tree.Pages, p)
}

// existing returns the file of a page as listed: the name itself where it
// is present, else "" and the names tried.
func existing(dir *sitefs.Folder, name string) (string, string) {
	if dir.Exists(name) {
		return name, ""
	}
	return "", name
}
