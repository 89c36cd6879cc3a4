package source

import (
	"context"
	"fmt"
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
			file := llmsFile(dir, p, home, opts.MaxDepth)
			if file == "" {
				t.Skipped++
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
		target := strings.Fields(line[i+j+2:i+j+2+k] + " ")[0]
		out = append(out, llmsLink{text: strings.TrimSpace(text), target: strings.Trim(target, "<>")})
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
// "" for none (for home, the folder's home page): p itself, with .md or .mdx added, or as a folder's index,
// first whole and then less its leading folders, one at a time.
//
// The work is linear in p's length: only p's last maxDepth+1 elements are
// tried (no page the walk of a folder lists is deeper), each suffix is a
// slice of p, and a suffix whose first folder is not in the folder is
// passed over after one look-up of that folder, since no file below it
// can exist.
func llmsFile(dir *sitefs.Folder, p string, home bool, maxDepth int) string {
	// Keep the last maxDepth+1 elements.
	for i, n := len(p)-1, 0; i >= 0; i-- {
		if p[i] == '/' {
			if n++; n > maxDepth {
				p = p[i+1:]
				break
			}
		}
	}
	for p != "" && p != "." {
		first, rest, more := strings.Cut(p, "/")
		if !more || dir.Exists(first) {
			for _, c := range [...]string{p, p + ".md", p + ".mdx", p + "/index.md", p + "/index.mdx", p + "/README.md"} {
				if isPageFile(c) && dir.Exists(c) {
					return c
				}
			}
		}
		if !more {
			break
		}
		p = rest
	}
	if home {
		for _, c := range []string{"index.md", "index.mdx", "README.md"} {
			if dir.Exists(c) {
				return c
			}
		}
	}
	return ""
}
