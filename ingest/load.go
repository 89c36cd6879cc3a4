package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/schemas"
)

// loadTrees reads and checks every tree of opts, in tree order, holding
// every page.
func loadTrees(ctx context.Context, opts Options) ([]*loadedTree, error) {
	srcs, err := sortedSources(opts)
	if err != nil {
		return nil, err
	}
	var out []*loadedTree
	for _, s := range srcs {
		t, dir, pages, err := openTree(ctx, s, opts)
		if err != nil {
			return nil, err
		}
		err = readPages(ctx, t, dir, s, pages, opts, nil)
		if err == nil {
			t.checkLinks = treeResolver(ctx, t, dir, opts.MaxPageBytes, t.pages)
		}
		if err == nil {
			err = compose(ctx, t, dir, opts.MaxLLMSBytes, true)
		}
		dir.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// sortedSources checks the tree names of opts (tzctx.CheckTreeName;
// ingest reads no server configuration, so any valid name is taken and
// the server decides which trees it serves) and returns its trees in
// storage order (tzctx.SortTrees).
func sortedSources(opts Options) ([]TreeSource, error) {
	srcs := append([]TreeSource(nil), opts.Trees...)
	seen := map[string]bool{}
	if len(srcs) > tzctx.MaxTrees {
		return nil, &Error{File: srcs[tzctx.MaxTrees].Dir, Problem: fmt.Sprintf("%d trees are given, more than the bound of %d", len(srcs), tzctx.MaxTrees), Fix: fmt.Sprintf("ingest at most %d trees in one version", tzctx.MaxTrees)}
	}
	for _, s := range srcs {
		if err := tzctx.CheckTreeName(s.Name); err != nil {
			return nil, &Error{File: s.Dir, Problem: err.Error(), Fix: "rename the tree in --tree NAME=DIR, such as --tree mcp=DIR"}
		}
		if seen[s.Name] {
			return nil, &Error{File: s.Dir, Problem: fmt.Sprintf("tree %s is given twice", s.Name), Fix: "give each tree once"}
		}
		seen[s.Name] = true
	}
	names := make([]string, len(srcs))
	byName := map[string]TreeSource{}
	for i, s := range srcs {
		names[i], byName[s.Name] = s.Name, s
	}
	tzctx.SortTrees(names)
	for i, n := range names {
		srcs[i] = byName[n]
	}
	return srcs, nil
}

// openTree opens one tree folder and reads its navigation through the
// folder's Source. Every file the tree's ingest reads, the navigation's
// included, goes through the one sitefs.Folder it returns, which the
// caller closes.
func openTree(ctx context.Context, src TreeSource, opts Options) (*loadedTree, *sitefs.Folder, []source.Page, error) {
	dir, err := sitefs.Open(src.Dir)
	if err != nil {
		return nil, nil, nil, &Error{File: src.Dir, Problem: "cannot open the tree folder: " + tzctx.FaultText(err), Fix: "name a documentation folder (one holding docs.json, mkdocs.yml, book.toml, SUMMARY.md, llms.txt or Markdown pages)", Err: err}
	}
	fail := func(err error) (*loadedTree, *sitefs.Folder, []source.Page, error) {
		dir.Close()
		return nil, nil, nil, err
	}
	format := source.Detect(dir)
	if src.Format == "" && !format.Recognises(dir) {
		return fail(&Error{File: src.Dir, Problem: "the folder holds no documentation tzctx reads: no docs.json, mkdocs.yml, book.toml, SUMMARY.md, _meta file or llms.txt, and no .md or .mdx page",
			Fix: "name the folder that holds the documentation's pages (and its navigation file), or its format with --format (" + strings.Join(source.Names(), ", ") + ")", Err: fs.ErrNotExist})
	}
	if src.Format != "" {
		if format, err = source.ByName(src.Format); err != nil {
			return fail(&Error{File: src.Dir, Problem: err.Error()})
		}
	}
	nav, err := format.Read(ctx, dir, source.Options{MaxFileBytes: opts.MaxManifestBytes, MaxNodes: opts.MaxNavNodes, MaxDepth: opts.MaxNavDepth, MaxModules: opts.MaxNavModules, MaxPathBytes: opts.MaxPathBytes, DocsVersion: src.DocsVersion})
	if err != nil {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		var me *manifest.Error
		if errors.As(err, &me) {
			me.File = filepath.Join(src.Dir, me.File)
			return fail(me)
		}
		var se *source.Error
		if errors.As(err, &se) {
			e := &Error{File: filepath.Join(src.Dir, filepath.FromSlash(se.File)), Line: se.Line, Problem: se.Problem, Fix: se.Fix, Err: se.Err}
			if se.Line > 0 {
				e.Problem = fmt.Sprintf("line %d: %s", se.Line, se.Problem)
			}
			return fail(e)
		}
		return fail(&Error{File: src.Dir, Problem: err.Error(), Fix: "fix the " + format.Format() + " navigation", Err: err})
	}
	nav.Pages, nav.Warnings = readableNames(nav.Pages, nav.Warnings)
	if len(nav.Pages) == 0 {
		if nav.Navigation == "" || format.Format() == "mintlify" {
			return fail(&Error{File: filepath.Join(src.Dir, nav.Navigation), Pointer: "/navigation", Problem: "the manifest lists no page", Fix: "list the tree's pages under navigation"})
		}
		return fail(&Error{File: filepath.Join(src.Dir, filepath.FromSlash(nav.Navigation)), Problem: "the " + format.Format() + " navigation lists no page that exists", Fix: "list the tree's pages in " + nav.Navigation})
	}
	if err := checkRoutes(ctx, src, nav.Pages); err != nil {
		return fail(err)
	}
	t := &loadedTree{name: src.Name, dir: src.Dir, title: schemas.CleanOneLine(nav.Name, tzctx.MaxTreeTitle), skipped: nav.Skipped, skips: nav.Skips, redirects: nav.Redirects, headingTitles: nav.HeadingTitles, warnings: source.SummariseWarnings(nav.Warnings, opts.MaxWarnings),
		format: format.Format(), navigation: nav.Navigation, docsVersion: nav.DocsVersion, others: nav.Others, includes: nav.Includes,
		site: siteFacts{root: nav.Root, routeBase: nav.RouteBase, siteBase: nav.SiteBase, others: nav.Others, redirects: nav.Redirects, version: nav.Version}}
	if t.title == "" {
		t.title = derivedTitle(src.Name, "index")
	}
	if t.format == "mintlify" && opts.MintlifySnippets == MintlifySnippetsExpand {
		t.includes = source.Includes{Form: source.IncludeMintlify}
	}
	return t, dir, nav.Pages, nil
}

// readableNames leaves out the pages whose file or path holds a control
// character (C0, DEL or C1) or a byte that is not UTF-8, with a warning
// naming each such file, or each such folder once, quoted: such a name is
// never page text, and a route holding it would not read back (a line end
// breaks the index line, an escape garbles a terminal, a stray byte is no
// text a JSON answer can carry).
func readableNames(pages []source.Page, warnings []string) ([]source.Page, []string) {
	kept := pages[:0:0]
	warned := map[string]bool{}
	for _, mp := range pages {
		bad := unreadableAt(mp.File)
		name := mp.File
		if bad < 0 {
			bad, name = unreadableAt(mp.Path), mp.Path
		}
		if bad < 0 {
			kept = append(kept, mp)
			continue
		}
		// The element holding the fault: a folder's is warned about once.
		end := strings.IndexByte(name[bad:], '/')
		if end >= 0 {
			folder := name[:bad+end]
			if !warned[folder] {
				warned[folder] = true
				warnings = append(warnings, fmt.Sprintf("%s: the folder name %s holds a control character or a byte that is not UTF-8; its pages are left out, rename the folder to serve them", mp.ListedIn, strconv.Quote(folder)))
			}
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: the name %s holds a control character or a byte that is not UTF-8; the page is left out, rename it to serve it", mp.ListedIn, strconv.Quote(name)))
	}
	return kept, warnings
}

// unreadableAt returns the byte offset in name of the first control
// character or byte that is not UTF-8, -1 for none.
func unreadableAt(name string) int {
	for i, r := range name {
		if r == utf8.RuneError || unicode.IsControl(r) {
			if r != utf8.RuneError {
				return i
			}
			if _, n := utf8.DecodeRuneInString(name[i:]); n <= 1 {
				return i
			}
		}
	}
	return -1
}

// readPages reads and checks the tree's pages in manifest order, calling
// each, where set, with every page as it is read, and then appending it
// to t.pages; each may drop the page's copy and scan once it has used
// them, so that the pages need not all be held at once.
func readPages(ctx context.Context, t *loadedTree, dir *sitefs.Folder, src TreeSource, pages []source.Page, opts Options, each func(*loadedPage) error) error {
	t.pages = make([]loadedPage, 0, len(pages))
	x := newExpander(dir, t.includes, opts)
	for _, mp := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := loadPage(ctx, dir, src, mp, opts.MaxPageBytes, t.headingTitles, t.format, x)
		if err != nil {
			return err
		}
		if t.links != nil {
			if cp := rewriteLinks(t.links, p.file, p.copy, p.scan); cp != p.copy {
				old := p.scan
				p.copy, p.scan = cp, textmap.Scan(cp)
				// Rewriting leaves headings as they are, so each keeps the
				// anchor its attribute list set (cleanText).
				if len(old.Headings) == len(p.scan.Headings) {
					for i := range p.scan.Headings {
						p.scan.Headings[i].Anchor = old.Headings[i].Anchor
					}
				}
				p.headings = outlineHeadings(p.scan)
			}
		}
		t.bytes += int64(len(p.copy))
		t.headings += len(p.headings)
		if each != nil {
			if err := each(p); err != nil {
				return err
			}
		}
		t.pages = append(t.pages, *p)
	}
	t.expanded, t.left = x.Expanded, x.Left
	t.warnings = append(t.warnings, source.SummariseWarnings(x.Warnings, opts.MaxWarnings)...)
	return nil
}

// checkRoutes refuses two page paths that name one route ("guides" and
// "guides/index"): the second page would replace the first one's copy.
func checkRoutes(ctx context.Context, src TreeSource, pages []source.Page) error {
	first := make(map[string]int, len(pages))
	for i, mp := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		route := tzctx.RouteOf(src.Name, mp.Path)
		j, ok := first[route]
		if !ok {
			first[route] = i
			continue
		}
		a := pages[j]
		return &Error{File: filepath.Join(src.Dir, filepath.FromSlash(mp.ListedIn)), Pointer: mp.Pointer,
			Problem: fmt.Sprintf("page paths %q (%s at %s) and %q (%s at %s) both name the route %s",
				a.Path, a.ListedIn, a.Pointer, mp.Path, mp.ListedIn, mp.Pointer, route),
			Fix: "list the page under one of the two paths and remove the other entry, or rename one of the pages",
			Err: ErrSameRoute}
	}
	return nil
}

// loadPage reads and checks one page. Its title is the navigation's
// label, else its front matter title, else (where headingTitles) its first
// level-1 heading, else one derived from its path. A page of a format
// other than Mintlify is served as cleanText leaves it, its title without
// markup (cleanTitle). Its include directives are expanded (x) before it
// is cleaned.
func loadPage(ctx context.Context, dir *sitefs.Folder, src TreeSource, mp source.Page, maxBytes int64, headingTitles bool, format string, x *source.Expander) (*loadedPage, error) {
	listing := filepath.Join(src.Dir, filepath.FromSlash(mp.ListedIn))
	name := mp.File
	if name == "" {
		return nil, &Error{File: listing, Pointer: mp.Pointer,
			Problem: fmt.Sprintf("page %q has no file %s (%s)", mp.Path, mp.Tried, fs.ErrNotExist),
			Fix:     "add the page file or remove the entry from " + listedName(mp.ListedIn),
			Err:     fs.ErrNotExist}
	}
	f := filepath.Join(src.Dir, filepath.FromSlash(name))
	data, err := dir.ReadFile(ctx, name, maxBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &Error{File: f, Pointer: mp.Pointer, Err: err}
		var se *sitefs.Error
		switch {
		case errors.Is(err, sitefs.ErrTooLarge) && errors.As(err, &se):
			if se.Size > 0 {
				e.Problem = fmt.Sprintf("page file is %d bytes, over the bound of %d bytes", se.Size, maxBytes)
			} else {
				e.Problem = fmt.Sprintf("page file is over the bound of %d bytes", maxBytes)
			}
			e.Fix = "split the page, or raise the bound with --max-page-bytes"
		default:
			e.Problem, e.Fix = readFault(err, "page")
		}
		return nil, e
	}
	if err := checkText(data); err != nil {
		err.File, err.Pointer = f, mp.Pointer
		if errors.Is(err, ErrControl) {
			err.Fix = "remove the character from the page; a NUL between every letter means the file is saved as UTF-16: save it as UTF-8"
		} else {
			err.Fix = "save the page as UTF-8"
		}
		return nil, err
	}
	cp, fm, err := splitCopy(data)
	if err != nil {
		return nil, &Error{File: f, Pointer: mp.Pointer, Problem: "front matter: " + err.Error(), Fix: "fix the YAML between the --- lines"}
	}
	copyLine := 1 + bytes.Count(data[:len(data)-len(cp)], []byte("\n"))
	written, writtenLine := cp, copyLine
	if cp, err = x.Page(ctx, name, copyLine, cp); err != nil {
		return nil, err
	}
	clean := format != "mintlify"
	var anchors map[int]string
	if clean {
		var lead int
		cp, lead, anchors = cleanText(cp, mdxPage(format, name))
		copyLine += lead
	}
	title := oneLine(strings.TrimSpace(mp.Title))
	if title == "" {
		title = oneLine(fm.Title)
	}
	m := textmap.Scan(cp)
	for i, h := range m.Headings {
		if len(anchors) == 0 {
			break
		}
		line, _ := slices.BinarySearch(m.LineStarts, uint32(h.Offset))
		m.Headings[i].Anchor = anchors[line]
	}
	if title == "" && headingTitles {
		for _, h := range m.Headings {
			if h.Depth == 1 {
				title = oneLine(strings.TrimSpace(attrList.ReplaceAllString(h.Text, "")))
				break
			}
		}
	}
	if title == "" {
		title = derivedTitle(src.Name, mp.Path)
	}
	if clean {
		title = cleanTitle(title)
	}
	p := &loadedPage{
		Page:     tzctx.Page{Path: mp.Path, Route: tzctx.RouteOf(src.Name, mp.Path), Title: title, Description: oneLine(fm.Description)},
		copy:     cp,
		scan:     m,
		file:     name,
		copyLine: copyLine,
		group:    mp.Group,
	}
	if cp != written {
		p.lines, p.writtenLine = lineMap(written, cp), writtenLine
	}
	p.headings = outlineHeadings(m)
	return p, nil
}

// outlineHeadings are the headings of a copy the outline lists: those of
// depth 2 or more.
func outlineHeadings(m *textmap.Map) []tzctx.Heading {
	var out []tzctx.Heading
	for _, h := range m.Headings {
		if h.Depth >= 2 {
			out = append(out, tzctx.Heading{Depth: h.Depth, Text: h.Text, Offset: h.Offset, Anchor: h.Anchor})
		}
	}
	return out
}

// listedName names the navigation file that lists a page for a fix: "the
// manifest" for Mintlify's docs.json, as ingest always named it.
func listedName(file string) string {
	if file == "" || file == manifest.ManifestName || strings.HasSuffix(file, ".json") && !strings.HasSuffix(file, "_meta.json") {
		return "the manifest"
	}
	return file
}

// attrList matches a heading's trailing attribute list ("# Features
// { #features }"), which MkDocs's attr_list and other dialects render as
// the heading's id, not its text.
var attrList = regexp.MustCompile(`\s*\{[ \t]*[#.][^}]*\}\s*$`)

// readFault words a refusal of sitefs.ReadFile (other than a page's size)
// as a problem and a fix; what is "page" or "file".
func readFault(err error, what string) (problem, fix string) {
	var se *sitefs.Error
	if !errors.As(err, &se) {
		return "cannot read the " + what + " file: " + tzctx.FaultText(err), "check the file's permissions"
	}
	switch {
	case errors.Is(err, sitefs.ErrOutside):
		return se.Error(), "ingest reads only files inside the tree folder: copy the " + what + " into it, or make the link point inside it"
	case errors.Is(err, sitefs.ErrNotRegular):
		return se.Error(), "make it a regular " + what + " file"
	case errors.Is(err, fs.ErrNotExist):
		return se.Error(), "make the link point to a file that exists, or remove it"
	}
	return "cannot read the " + what + " file: " + se.Error(), "check the file's permissions"
}

// checkText refuses text that is not valid UTF-8 or that holds a control
// character other than tab, line feed, carriage return and form feed: a
// NUL, an escape or a backspace is never text of a page, and served to an
// agent or a terminal it garbles what follows. The *Error it returns names
// the line and column; the caller sets the file and the fix.
func checkText(data []byte) *Error {
	if !utf8.Valid(data) {
		line, col := invalidAt(data)
		return &Error{Line: line, Problem: fmt.Sprintf("the file is not valid UTF-8 (line %d, byte %d of the line)", line, col)}
	}
	for i, b := range data {
		if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7f {
			line := 1 + strings.Count(string(data[:i]), "\n")
			start := strings.LastIndexByte(string(data[:i]), '\n') + 1
			col := 1 + utf8.RuneCount(data[start:i])
			return &Error{Line: line, Problem: fmt.Sprintf("the file holds the control character U+%04X at line %d, column %d", b, line, col), Err: ErrControl}
		}
	}
	return nil
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
//
// With composeFull false a whole text that llms-full.txt does not give is
// left to the caller, which composed it as the pages went by.
func compose(ctx context.Context, t *loadedTree, dir *sitefs.Folder, maxBytes int64, composeFull bool) error {
	var err error
	if t.index, err = optionalText(ctx, dir, "llms.txt", maxBytes); err != nil {
		return err
	}
	if t.index == "" {
		var b strings.Builder
		b.WriteString("# " + t.title + "\n\n")
		var prev []string
		for i, p := range t.pages {
			if err := ctx.Err(); err != nil {
				return err
			}
			if g := groupLine(prev, p.group, i == 0); g != "" {
				b.WriteString("\n" + g + "\n\n")
			}
			prev = p.group
			b.WriteString(indexLine(p.Page))
		}
		t.index = b.String()
	}
	if t.full, err = optionalText(ctx, dir, "llms-full.txt", maxBytes); err != nil {
		return err
	}
	if t.full == "" {
		t.composed = true
	}
	if t.full == "" && composeFull {
		var b strings.Builder
		for i, p := range t.pages {
			if err := ctx.Err(); err != nil {
				return err
			}
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
	t.outline, err = outline(ctx, t)
	return err
}

// groupLine is the line that opens the navigation group of a page whose
// group path is group, after a page of group prev: "## A / B" where the
// path changes to a group, "## Other pages" where it returns to the top
// level after a group; "" where it does not change, and before a first
// page at the top level. Mintlify's Source gives no groups, so its index
// and outline hold no group line.
func groupLine(prev, group []string, first bool) string {
	if slices.Equal(prev, group) && !first {
		return ""
	}
	switch {
	case len(group) > 0:
		return "## " + oneLine(strings.Join(group, " / "))
	case len(prev) > 0:
		return "## Other pages"
	}
	return ""
}

// indexLine is a composed index line for a page.
func indexLine(p tzctx.Page) string {
	line := "- [" + p.Title + "](" + tzctx.LinkTarget(p.Route) + ")"
	if p.Description != "" {
		line += ": " + p.Description
	}
	return line + "\n"
}

// optionalText reads a tree's optional llms text, "" where absent.
func optionalText(ctx context.Context, dir *sitefs.Folder, name string, maxBytes int64) (string, error) {
	f := filepath.Join(dir.Dir(), name)
	if !dir.Exists(name) {
		return "", nil
	}
	data, err := dir.ReadFile(ctx, name, maxBytes)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		e := &Error{File: f, Err: err}
		if errors.Is(err, sitefs.ErrTooLarge) {
			e.Problem = fmt.Sprintf("the file is over the bound of %d bytes", maxBytes)
			e.Fix = "remove it, and the plane composes the text at ingest, or raise the bound with --max-llms-bytes"
		} else {
			e.Problem, e.Fix = readFault(err, "text")
		}
		return "", e
	}
	if err := checkText(data); err != nil {
		err.File = f
		if errors.Is(err, ErrControl) {
			err.Fix = "remove the character, or remove the file and the plane composes the text at ingest"
		} else {
			err.Fix = "save it as UTF-8"
		}
		return "", err
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
//
// It checks ctx at every page and every line of the index, either of
// which may number in the millions.
func outline(ctx context.Context, t *loadedTree) (string, error) {
	lineOf := map[string]string{}
	byKey := map[string]string{}
	for _, p := range t.pages {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		byKey[linkKey(t.name, p.Route)] = p.Route
	}
	for rest := t.index; rest != ""; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		for _, target := range LinkTargets(line) {
			if route, ok := byKey[linkKey(t.name, target)]; ok {
				if _, dup := lineOf[route]; !dup {
					lineOf[route] = strings.TrimRight(line, "\r\n")
				}
				break
			}
		}
	}
	var b strings.Builder
	var prev []string
	for i, p := range t.pages {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if g := groupLine(prev, p.group, i == 0); g != "" {
			b.WriteString(g + "\n")
		}
		prev = p.group
		if l, ok := lineOf[p.Route]; ok {
			b.WriteString(l + "\n")
		} else {
			b.WriteString(indexLine(p.Page))
		}
		for i, a := range outlineAnchors(p.headings) {
			b.WriteString("  - [" + p.headings[i].Text + "](" + tzctx.LinkTarget(p.Route+"#"+a) + ")\n")
		}
	}
	return b.String(), nil
}

// LinkTargets returns the destinations of the inline Markdown links of a
// line, in order: "](dest)", "](dest "title")" and "](<dest>)", the
// angle-bracket form unescaped. A bare destination runs to a space, a tab
// or the ")" that balances the parentheses it holds. The composed outline
// matches index lines to pages through it, and tzctx check lints links
// with it.
func LinkTargets(line string) []string {
	var out []string
	for _, sp := range linkSpans(line) {
		if line[sp.start] == '<' {
			if target, _, ok := angleTarget(line[sp.start+1:]); ok {
				out = append(out, target)
				continue
			}
		}
		out = append(out, line[sp.start:sp.end])
	}
	return out
}

// angleTarget reads an angle-bracket link destination after its "<": up to
// the first unescaped ">", which must be followed by ")" or by the space
// before a title. It returns the destination with backslash escapes
// removed and the rest of the line.
func angleTarget(s string) (target, rest string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("<>\\", s[i+1]) >= 0:
			i++
			b.WriteByte(s[i])
		case c == '>':
			if rest := s[i+1:]; strings.HasPrefix(rest, ")") || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t") {
				return b.String(), rest, true
			}
			return "", "", false
		case c == '<' || c == '\n':
			return "", "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
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
	// An index an operator wrote may percent-encode what a route holds
	// literally ("my%20page"); both forms name the same page.
	if u, err := url.PathUnescape(target); err == nil {
		target = u
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
