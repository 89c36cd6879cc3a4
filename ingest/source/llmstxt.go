package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// LLMSTxt reads a folder whose navigation is its llms.txt: the pages it
// links that exist in the folder, in the order linked, each titled by its
// link text, under the "## " section it is linked in. A link names a page
// by its path: a site's address is dropped, and the path is looked for
// as it is, with .md or .mdx added, and as a folder's index.md, first
// whole and then less its leading folders (a site's base path). A link
// to no page of the folder is counted as skipped.
type LLMSTxt struct{}

var _ Source = LLMSTxt{}

// Format implements Source.
func (LLMSTxt) Format() string { return "llms-txt" }

// Recognises implements Source: the folder holds llms.txt.
func (LLMSTxt) Recognises(dir *sitefs.Folder) bool { return dir.Exists("llms.txt") }

// Read implements Source.
func (LLMSTxt) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	const name = "llms.txt"
	data, err := readNav(ctx, dir, name, opts)
	if err != nil {
		return nil, err
	}
	t := &Tree{Navigation: name, HeadingTitles: true}
	l := newLister(t)
	folders := newLLMSTree(ctx, dir, opts.MaxNodes)
	var group []string
	missing := 0
	firstMissing := 0
	nodes := 0
	for i, line := range strings.Split(string(data), "\n") {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if nodes++; nodes > opts.MaxNodes {
			return nil, &Error{File: name, Line: i + 1, Problem: fmt.Sprintf("the file has more than %d lines and links", opts.MaxNodes), Fix: "shorten it, or raise the bound with --max-nav-nodes"}
		}
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "# ") && t.Name == "" && len(t.Pages) == 0 {
			t.Name = strings.TrimSpace(line[2:])
			continue
		}
		if strings.HasPrefix(line, "## ") {
			group = []string{strings.TrimSpace(line[3:])}
			continue
		}
		for _, m := range llmsLinks(line) {
			// A line may hold many links, each a look-up in the folder:
			// a stop is seen at the next link, not the next line.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if nodes++; nodes > opts.MaxNodes {
				return nil, &Error{File: name, Line: i + 1, Problem: fmt.Sprintf("the file has more than %d lines and links", opts.MaxNodes), Fix: "shorten it, or raise the bound with --max-nav-nodes"}
			}
			p, home := llmsPath(m.target)
			if len(p) > opts.MaxPathBytes {
				return nil, &Error{File: name, Line: i + 1, Problem: fmt.Sprintf("a link's path is %d bytes, over the bound of %d bytes", len(p), opts.MaxPathBytes), Fix: "shorten the link, or raise the bound with --max-path-bytes"}
			}
			file := llmsFile(folders, p, home, opts.MaxDepth)
			if file == "" {
				t.skip(skipLLMSNoFile)
				if missing++; firstMissing == 0 {
					firstMissing = i + 1
				}
				continue
			}
			l.add(Page{Path: pagePath(file), File: file, ListedIn: name, Pointer: strconv.Itoa(i + 1), Title: m.text, Group: group})
		}
	}
	if missing > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: %d links name no page file of the folder (the first on this line) and are left out; add the pages' Markdown files to the folder to serve them", name, firstMissing, missing))
	}
	return t, nil
}

type llmsLink struct{ text, target string }

// llmsLinks returns the inline links "[text](target)" of a line.
func llmsLinks(line string) []llmsLink {
	var out []llmsLink
	for {
		i := strings.Index(line, "[")
		if i < 0 {
			return out
		}
		j := strings.Index(line[i:], "](")
		if j < 0 {
			return out
		}
		k := strings.IndexByte(line[i+j+2:], ')')
		if k < 0 {
			return out
		}
		text := line[i+1 : i+j]
		if o := strings.LastIndexByte(text, '['); o >= 0 {
			text = text[o+1:]
		}
		// A link with no target ("[x]()", "[x]( )") names no page.
		if f := strings.Fields(line[i+j+2 : i+j+2+k]); len(f) > 0 {
			out = append(out, llmsLink{text: strings.TrimSpace(text), target: strings.Trim(f[0], "<>")})
		}
		line = line[i+j+2+k+1:]
	}
}

// llmsPath is the path a link target names in the folder: without the
// site's address, query and fragment, cleaned, without its leading and
// trailing slashes and an .html suffix. home reports a target that names
// the folder itself ("", "/", a site's address alone).
func llmsPath(target string) (p string, home bool) {
	if u, err := url.Parse(target); err == nil {
		target = u.Path
	}
	target, _, _ = strings.Cut(target, "#")
	p = strings.Trim(path.Clean("/"+target), "/")
	return strings.TrimSuffix(p, ".html"), target == "" || target == "/"
}

// llmsFile finds the page file of the folder the path p (llmsPath) names,
// "" for none (for home, the folder's home page): p itself, with .md or
// .mdx added, or as a folder's index, first whole and then less its
// leading folders, one at a time.
//
// Only p's last maxDepth+1 elements are tried (no page the walk of a
// folder lists is deeper), and each try walks folders of the tree, each
// listed once for the whole file: so a link costs at most (maxDepth+1)²
// look-ups in memory, whatever its length, and no walk of the file system
// per try.
func llmsFile(tr *llmsTree, p string, home bool, maxDepth int) string {
	// Keep the last maxDepth+1 elements.
	for i, n := len(p)-1, 0; i >= 0; i-- {
		if p[i] == '/' {
			if n++; n > maxDepth {
				p = p[i+1:]
				break
			}
		}
	}
	if p != "" {
		elems := strings.Split(p, "/")
		for k := range elems {
			if c := tr.match(elems[k:]); c != "" {
				return c
			}
		}
	}
	if home {
		for _, c := range []string{"index.md", "index.mdx", "README.md"} {
			if tr.dir.Exists(c) {
				return c
			}
		}
	}
	return ""
}

// llmsTree is the folder an llms.txt is read in, as its links are matched
// against it: each folder is listed once, when a link first reaches it.
type llmsTree struct {
	ctx   context.Context
	dir   *sitefs.Folder
	limit int // names one listing may hold (sitefs.Folder.ListDir)
	root  *llmsNode
}

func newLLMSTree(ctx context.Context, dir *sitefs.Folder, limit int) *llmsTree {
	return &llmsTree{ctx: ctx, dir: dir, limit: limit, root: &llmsNode{path: "."}}
}

// llmsNode is a name of an llmsTree that may be a folder: a folder, or a
// symbolic link, which is listed through.
type llmsNode struct {
	path  string // relative to the folder, "." for it
	state llmsState
	// names are the listed folder's names: a folder or a link to its
	// node, a file to nil.
	names map[string]*llmsNode
}

type llmsState int

const (
	unlisted llmsState = iota
	listed             // names holds the folder's names
	// asked: the folder could not be listed (too many names, a link
	// loop): each name is asked of sitefs.Folder.Exists.
	asked
	// present: the name passes through a link out of the folder or to
	// nowhere; every name below it counts as present, as Exists counts
	// it, so that reading the page reports the link.
	present
)

// match returns the page file the elements name, the first of e, e.md,
// e.mdx, e/index.md, e/index.mdx and e/README.md present, "" for none.
func (tr *llmsTree) match(elems []string) string {
	node := tr.root
	for _, e := range elems[:len(elems)-1] {
		if node = tr.child(node, e); node == nil {
			return ""
		}
	}
	last := elems[len(elems)-1]
	for _, suffix := range [...]string{"", ".md", ".mdx"} {
		if isPageFile(last+suffix) && tr.has(node, last+suffix) {
			return strings.Join(elems, "/") + suffix
		}
	}
	if sub := tr.child(node, last); sub != nil {
		for _, index := range [...]string{"index.md", "index.mdx", "README.md"} {
			if tr.has(sub, index) {
				return strings.Join(elems, "/") + "/" + index
			}
		}
	}
	return ""
}

// child returns the node of the name of a folder node that may be a
// folder, nil where it names nothing or a file.
func (tr *llmsTree) child(node *llmsNode, name string) *llmsNode {
	tr.list(node)
	switch node.state {
	case asked:
		if !tr.dir.Exists(path.Join(node.path, name)) {
			return nil
		}
		// Below a folder that could not be listed, names are asked too.
		return &llmsNode{path: path.Join(node.path, name), state: asked}
	case present:
		return node
	}
	return node.names[name]
}

// has reports whether a folder node holds the name, in any form, as
// sitefs.Folder.Exists says.
func (tr *llmsTree) has(node *llmsNode, name string) bool {
	tr.list(node)
	switch node.state {
	case asked:
		return tr.dir.Exists(path.Join(node.path, name))
	case present:
		return true
	}
	_, ok := node.names[name]
	return ok
}

// list lists a node's folder the first time it is needed. A name that
// is a file, or a link to one, lists as an empty folder.
func (tr *llmsTree) list(node *llmsNode) {
	if node.state != unlisted {
		return
	}
	ents, err := tr.dir.ListDir(tr.ctx, node.path, tr.limit)
	var se *sitefs.Error
	switch {
	case err == nil:
		node.state, node.names = listed, make(map[string]*llmsNode, len(ents))
		for _, e := range ents {
			var sub *llmsNode
			if e.IsDir || e.Link {
				sub = &llmsNode{path: path.Join(node.path, e.Name)}
			}
			node.names[e.Name] = sub
		}
	case errors.As(err, &se) && se.Link != "":
		node.state = present
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, sitefs.ErrNotRegular):
		node.state = listed
	default:
		node.state = asked
	}
}
