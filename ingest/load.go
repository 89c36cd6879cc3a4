package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/internal/textmap"
)

// loadTrees reads and checks every tree of opts, in tree order.
func loadTrees(ctx context.Context, opts Options) ([]*loadedTree, error) {
	srcs := append([]TreeSource(nil), opts.Trees...)
	seen := map[string]bool{}
	for _, s := range srcs {
		if !tzctx.IsTree(s.Name) {
			return nil, &Error{File: s.Dir, Problem: fmt.Sprintf("%q is not a tree name", s.Name), Fix: "name the tree cloud, blueprint or tzdocs"}
		}
		if seen[s.Name] {
			return nil, &Error{File: s.Dir, Problem: fmt.Sprintf("tree %s is given twice", s.Name), Fix: "give each tree once"}
		}
		seen[s.Name] = true
	}
	sort.Slice(srcs, func(i, j int) bool { return tzctx.TreeOrder(srcs[i].Name) < tzctx.TreeOrder(srcs[j].Name) })
	var out []*loadedTree
	for _, s := range srcs {
		t, err := loadTree(ctx, s, opts.MaxPageBytes)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// siteName reads the manifest's "name" member, the tree's title.
func siteName(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "docs.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &m)
	return oneLine(strings.TrimSpace(m.Name))
}

func loadTree(ctx context.Context, src TreeSource, maxBytes int64) (*loadedTree, error) {
	res, err := manifest.Walk(src.Dir)
	if err != nil {
		var me *manifest.Error
		if errors.As(err, &me) {
			me.File = filepath.Join(src.Dir, me.File)
			return nil, me
		}
		return nil, &Error{File: filepath.Join(src.Dir, "docs.json"), Problem: err.Error(), Fix: "fix the manifest"}
	}
	if len(res.Pages) == 0 {
		return nil, &Error{File: filepath.Join(src.Dir, "docs.json"), Pointer: "/navigation", Problem: "the manifest lists no page", Fix: "list the tree's pages under navigation"}
	}
	t := &loadedTree{name: src.Name, title: siteName(src.Dir), skipped: res.Skipped}
	if t.title == "" {
		t.title = derivedTitle(src.Name, "index")
	}
	for _, mp := range res.Pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := loadPage(src, mp, maxBytes)
		if err != nil {
			return nil, err
		}
		t.bytes += int64(len(p.copy))
		t.headings += len(p.headings)
		t.pages = append(t.pages, *p)
	}
	if err := compose(t, src.Dir); err != nil {
		return nil, err
	}
	return t, nil
}

// pageFile finds the copy of page path p: PATH.mdx, else PATH.md.
func pageFile(dir, p string) (string, os.FileInfo, error) {
	var firstErr error
	for _, ext := range []string{".mdx", ".md"} {
		f := filepath.Join(dir, filepath.FromSlash(p)+ext)
		fi, err := os.Stat(f)
		if err == nil && fi.Mode().IsRegular() {
			return f, fi, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fs.ErrNotExist
	}
	return "", nil, firstErr
}

func loadPage(src TreeSource, mp manifest.Page, maxBytes int64) (*loadedPage, error) {
	listing := filepath.Join(src.Dir, mp.File)
	f, fi, err := pageFile(src.Dir, mp.Path)
	if err != nil {
		return nil, &Error{File: listing, Pointer: mp.Pointer,
			Problem: fmt.Sprintf("page %q has no file %s.mdx or %s.md (%s)", mp.Path, mp.Path, mp.Path, errText(err)),
			Fix:     "add the page file or remove the entry from the manifest"}
	}
	if fi.Size() > maxBytes {
		return nil, &Error{File: f, Pointer: mp.Pointer,
			Problem: fmt.Sprintf("page file is %d bytes, over the bound of %d bytes", fi.Size(), maxBytes),
			Fix:     "split the page, or raise the bound with --max-page-bytes"}
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, &Error{File: f, Pointer: mp.Pointer, Problem: "cannot read the page file: " + errText(err), Fix: "check the file's permissions"}
	}
	if !utf8.Valid(data) {
		line, col := invalidAt(data)
		return nil, &Error{File: f, Pointer: mp.Pointer,
			Problem: fmt.Sprintf("the file is not valid UTF-8 (line %d, byte %d of the line)", line, col),
			Fix:     "save the page as UTF-8"}
	}
	cp, fm, err := splitCopy(data)
	if err != nil {
		return nil, &Error{File: f, Pointer: mp.Pointer, Problem: "front matter: " + err.Error(), Fix: "fix the YAML between the --- lines"}
	}
	title := oneLine(fm.Title)
	if title == "" {
		title = derivedTitle(src.Name, mp.Path)
	}
	m := textmap.Scan(cp)
	p := &loadedPage{
		Page: tzctx.Page{Path: mp.Path, Route: tzctx.RouteOf(src.Name, mp.Path), Title: title, Description: oneLine(fm.Description)},
		copy: cp,
		scan: m,
	}
	for _, h := range m.Headings {
		if h.Depth >= 2 {
			p.headings = append(p.headings, tzctx.Heading{Depth: h.Depth, Text: h.Text, Offset: h.Offset})
		}
	}
	return p, nil
}

// invalidAt returns the 1-based line and byte column of the first invalid
// UTF-8 sequence in data.
func invalidAt(data []byte) (line, col int) {
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return line, i - start + 1
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += n
	}
	return line, 0
}

// compose sets the tree's index and whole texts, from llms.txt and
// llms-full.txt where the folder has them and composed otherwise,
// and its outline.
func compose(t *loadedTree, dir string) error {
	var err error
	if t.index, err = optionalText(dir, "llms.txt"); err != nil {
		return err
	}
	if t.index == "" {
		var b strings.Builder
		b.WriteString("# " + t.title + "\n\n")
		for _, p := range t.pages {
			b.WriteString(indexLine(p.Page))
		}
		t.index = b.String()
	}
	if t.full, err = optionalText(dir, "llms-full.txt"); err != nil {
		return err
	}
	if t.full == "" {
		var b strings.Builder
		for i, p := range t.pages {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.copy)
			if !strings.HasSuffix(p.copy, "\n") {
				b.WriteString("\n")
			}
		}
		t.full = b.String()
	}
	t.outline = outline(t)
	return nil
}

// indexLine is a composed index line for a page.
func indexLine(p tzctx.Page) string {
	line := "- [" + p.Title + "](" + p.Route + ")"
	if p.Description != "" {
		line += ": " + p.Description
	}
	return line + "\n"
}

// optionalText reads a tree's optional llms text, "" where absent.
func optionalText(dir, name string) (string, error) {
	f := filepath.Join(dir, name)
	data, err := os.ReadFile(f)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &Error{File: f, Problem: "cannot read: " + errText(err), Fix: "check the file's permissions"}
	}
	if !utf8.Valid(data) {
		line, col := invalidAt(data)
		return "", &Error{File: f, Problem: fmt.Sprintf("the file is not valid UTF-8 (line %d, byte %d of the line)", line, col), Fix: "save it as UTF-8"}
	}
	if len(data) == 0 {
		return "", &Error{File: f, Problem: "the file is empty", Fix: "remove it, and the plane composes the text at ingest"}
	}
	return string(data), nil
}

// outline composes the outline: the index's lines that link a
// listed page, verbatim, in manifest order (a page the index does not link
// gets its composed index line), each followed by one line per heading of
// depth 2 or more, indented two spaces, linking the heading's anchor.
func outline(t *loadedTree) string {
	lineOf := map[string]string{}
	byKey := map[string]string{}
	for _, p := range t.pages {
		byKey[linkKey(t.name, p.Route)] = p.Route
	}
	for _, line := range strings.SplitAfter(t.index, "\n") {
		for _, target := range linkTargets(line) {
			if route, ok := byKey[linkKey(t.name, target)]; ok {
				if _, dup := lineOf[route]; !dup {
					lineOf[route] = strings.TrimRight(line, "\r\n")
				}
				break
			}
		}
	}
	var b strings.Builder
	for _, p := range t.pages {
		if l, ok := lineOf[p.Route]; ok {
			b.WriteString(l + "\n")
		} else {
			b.WriteString(indexLine(p.Page))
		}
		hs := make([]textmap.Heading, len(p.headings))
		for i, h := range p.headings {
			hs[i] = textmap.Heading{Depth: h.Depth, Text: h.Text, Offset: h.Offset}
		}
		for i, a := range textmap.Anchors(hs) {
			b.WriteString("  - [" + hs[i].Text + "](" + p.Route + "#" + a + ")\n")
		}
	}
	return b.String()
}

// linkTargets returns the targets of the Markdown links "](target)" in a
// line.
func linkTargets(line string) []string {
	var out []string
	for {
		i := strings.Index(line, "](")
		if i < 0 {
			return out
		}
		line = line[i+2:]
		j := strings.IndexByte(line, ')')
		if j < 0 {
			return out
		}
		out = append(out, line[:j])
		line = line[j+1:]
	}
}

// linkKey normalises a link target or a route for matching index lines to
// pages: no scheme and host, no fragment or query, no .md/.mdx suffix, no
// base path, no surrounding slashes, and "index" as the empty path.
func linkKey(tree, target string) string {
	if i := strings.Index(target, "://"); i >= 0 {
		target = target[i+3:]
		if j := strings.IndexByte(target, '/'); j >= 0 {
			target = target[j:]
		} else {
			target = ""
		}
	}
	if i := strings.IndexAny(target, "#?"); i >= 0 {
		target = target[:i]
	}
	target = strings.TrimSuffix(strings.TrimSuffix(target, ".mdx"), ".md")
	target = strings.Trim(target, "/")
	if target == tree {
		target = ""
	} else {
		target = strings.TrimPrefix(target, tree+"/")
	}
	target = strings.TrimSuffix(target, "/index")
	if target == "index" {
		target = ""
	}
	return target
}

// contentDigest hashes everything a version serves, so identical content
// gets the same digest.
func contentDigest(trees []*loadedTree) string {
	h := sha256.New()
	w := func(s string) {
		fmt.Fprintf(h, "%d:", len(s))
		h.Write([]byte(s))
	}
	w("tzctx-content-v1")
	for _, t := range trees {
		w(t.name)
		w(t.title)
		w(t.index)
		w(t.full)
		for _, p := range t.pages {
			w(p.Path)
			w(p.Title)
			w(p.Description)
			w(p.copy)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
