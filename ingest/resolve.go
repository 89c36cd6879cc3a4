package ingest

import (
	"context"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// linkRules are how one documentation generator resolves the links
// between its pages: its heading slug rule and which link forms name a
// page.
type linkRules struct {
	// slug is the generator's anchor of one heading text, and sep what
	// joins a repeated slug to its count ("-" for "x-1", "_" for "x_1").
	slug func(string) string
	sep  string
	// urlDir: a page's URL ends with "/" (MkDocs's directory URLs,
	// Starlight), so a relative route resolves against the page's own
	// route; otherwise against its folder.
	urlDir bool
	// files: a path ending in .md or .mdx names the page of that file,
	// relative to the linking page's file, or from the docs root where it
	// begins with "/".
	files bool
	// docsRoot: a relative file path not found beside the linking page's
	// file, and not written from "./" or "../", is looked for from the
	// docs root (Docusaurus's resolveMarkdownLinkPathname).
	docsRoot bool
	// html: NAME.html names the page NAME (mdBook, VitePress).
	html bool
	// bare: a file path without extension names the page of NAME.md
	// (VitePress).
	bare bool
	// baseAdded: the generator adds the site's base to an absolute
	// Markdown link (VitePress), so the link is written without it; where
	// false (Astro) every absolute link is written with the base.
	baseAdded bool
}

// rulesFor returns the link rules of a format, and false for a format
// whose links are served as written (Mintlify's are routes already; an
// llms.txt site's pages are other sites').
func rulesFor(format string) (linkRules, bool) {
	switch format {
	case "mkdocs":
		return linkRules{slug: pythonMarkdownSlug, sep: "_", urlDir: true, files: true}, true
	case "mdbook", "gitbook":
		return linkRules{slug: mdBookSlug, sep: "-", files: true, html: true}, true
	case "docusaurus":
		return linkRules{slug: githubSlug, sep: "-", files: true, docsRoot: true}, true
	case "vitepress":
		return linkRules{slug: vitePressSlug, sep: "-", files: true, html: true, bare: true, baseAdded: true}, true
	case "starlight":
		return linkRules{slug: githubSlug, sep: "-", urlDir: true}, true
	case "markdown", "nextra":
		return linkRules{slug: githubSlug, sep: "-", files: true}, true
	}
	return linkRules{}, false
}

// githubSlug is github-slugger's anchor (Docusaurus, Astro's Starlight,
// GitHub): A-21's, which the outline gives too.
func githubSlug(s string) string { return textmap.Anchor(s) }

// pythonMarkdownSlug is Python-Markdown's toc slugify, MkDocs's default:
// NFKD, non-ASCII dropped, characters other than word characters, spaces
// and "-" dropped, trimmed, lower-cased, each run of "-" and spaces one
// "-".
func pythonMarkdownSlug(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r < 0x80 && (r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r)) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return collapse(strings.TrimSpace(b.String()), func(r rune) bool { return r == '-' || unicode.IsSpace(r) })
}

// mdBookSlug is mdBook's normalize_id: alphanumeric characters, "_" and
// "-" kept (ASCII letters lower-cased), each white space "-", the rest
// dropped.
func mdBookSlug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || r == '_' || r == '-':
			if r < 0x80 {
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte('-')
		}
	}
	return b.String()
}

// vitePressSpecial is the set of characters @mdit-vue/shared's slugify,
// VitePress's default, turns into "-" (its rSpecial).
const vitePressSpecial = " \t\n\r\f\v~`!@#$%^&*()-_+=[]{}|\\;:\"'\u201c\u201d\u2018\u2019<>,.?/"

// vitePressSlug is @mdit-vue/shared's slugify: NFKD, combining marks and
// control characters dropped, each run of special characters "-",
// trimmed of "-", a leading digit prefixed with "_", lower-cased; so
// "build.target" is "build-target".
func vitePressSlug(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r >= 0x300 && r <= 0x36f || r < 0x20 {
			continue
		}
		b.WriteRune(r)
	}
	out := strings.Trim(collapse(b.String(), func(r rune) bool { return strings.ContainsRune(vitePressSpecial, r) || unicode.IsSpace(r) }), "-")
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return strings.ToLower(out)
}

// collapse replaces each run of the characters of sep in s with one "-".
func collapse(s string, sep func(rune) bool) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if sep(r) {
			if !in {
				b.WriteByte('-')
			}
			in = true
			continue
		}
		in = false
		b.WriteRune(r)
	}
	return b.String()
}

// headingIDRE matches a heading's trailing attribute list that sets its
// id ("## Title { #title }", "## Title {#title}"): MkDocs's attr_list,
// Docusaurus's and VitePress's custom heading ids.
var headingIDRE = regexp.MustCompile(`\s*\{[ \t]*#([^\s}]+)[^}]*\}\s*$`)

// inlineLinkRE matches an inline link or image whose text is kept for a
// slug: "[text](target)".
var inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slugText is a heading's text as the generator's slugger reads it: the
// rendered text, so a link's target is left out (its text kept), as are
// emphasis marks and backticks, which every slug rule drops anyway.
func slugText(text string) string {
	return textmap.DropTags(inlineLinkRE.ReplaceAllString(text, "$1"))
}

// linkPage is what the resolver knows of one listed page.
type linkPage struct {
	path, file, route string
	// anchors maps each anchor the generator gives the page (a heading's
	// slug or explicit id, an id attribute, a heading of an imported
	// snippet), lower-cased, to the anchor the outline gives that heading;
	// "" where the outline lists no such heading (a level-1 heading, an
	// id attribute elsewhere on the page).
	anchors map[string]string
}

// linkPageOf derives the resolver's facts of a page from its copy.
// Snippets it imports (MDX "import X from './x.md'") are read through dir,
// where it is not nil, within the bound of a page's bytes, for their
// headings' anchors.
func linkPageOf(ctx context.Context, rules linkRules, dir *sitefs.Folder, maxBytes int64, p *loadedPage) linkPage {
	lp := linkPage{path: p.Path, file: p.file, route: p.Route, anchors: map[string]string{}}
	outline := outlineAnchors(p.headings)
	seen := map[string]int{}
	oi := 0
	outOf := make(map[int]string, len(p.scan.Headings)) // line start -> outline anchor
	for _, h := range p.scan.Headings {
		out := ""
		if h.Depth >= 2 && oi < len(outline) {
			out = outline[oi]
			oi++
		}
		outOf[h.Offset] = out
		// An explicit id replaces the slug; it is taken, so a later
		// heading of the same slug is counted on. Clean text has left the
		// attribute list out of the heading's text and kept its id as the
		// heading's Anchor.
		id := h.Anchor
		if m := headingIDRE.FindStringSubmatch(h.Text); m != nil {
			id = m[1]
		}
		if id != "" {
			setAnchor(lp.anchors, id, out)
			seen[id] = 0
			continue
		}
		base := rules.slug(slugText(h.Text))
		a := base
		if n, dup := seen[base]; dup {
			for {
				n++
				a = base + rules.sep + strconv.Itoa(n)
				if _, taken := seen[a]; !taken {
					break
				}
			}
			seen[base] = n
		}
		seen[a] = 0
		setAnchor(lp.anchors, a, out)
	}
	headingIDs(lp.anchors, p.copy, p.scan, outOf)
	for _, m := range quotedHeadingRE.FindAllStringSubmatch(p.copy, -1) {
		setAnchor(lp.anchors, rules.slug(slugText(m[1])), "")
	}
	for _, m := range idAttrRE.FindAllStringSubmatch(p.copy, -1) {
		setAnchor(lp.anchors, m[1], "")
	}
	if dir != nil {
		for _, h := range SnippetHeadings(ctx, dir, p.file, p.copy, maxBytes) {
			setAnchor(lp.anchors, rules.slug(slugText(h)), "")
		}
	}
	return lp
}

// anchorLineRE matches a line that is only an HTML anchor ("<a
// id="old-name"></a>"), as pages keep the anchors of renamed headings.
var anchorLineRE = regexp.MustCompile(`^\s*<a\s+(?:id|name)=["']([^"']+)["']\s*(?:/>|>\s*</a>)\s*$`)

// headingIDs records the anchors of the lines that are only an HTML anchor
// and stand just before a heading (blank lines and comments between) as
// naming that heading: the reader lands on it.
func headingIDs(anchors map[string]string, copyText string, m *textmap.Map, outOf map[int]string) {
	var pending []string
	for i, line := range strings.Split(copyText, "\n") {
		if i >= len(m.LineStarts) {
			break
		}
		if out, ok := outOf[int(m.LineStarts[i])]; ok {
			for _, id := range pending {
				setAnchor(anchors, id, out)
			}
			pending = pending[:0]
			continue
		}
		t := strings.TrimSpace(line)
		switch mm := anchorLineRE.FindStringSubmatch(line); {
		case mm != nil:
			pending = append(pending, mm[1])
		case t == "" || strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->"):
		default:
			pending = pending[:0]
		}
	}
}

// SnippetHeadings returns the texts of the headings of the snippet files
// a page's copy imports (MDX "import X from './part.mdx'"), which render
// into the page: each read through dir within maxBytes, relative to the
// page's file or, written from "/", to the tree folder; a file that does
// not read, or a path leaving the folder, gives none.
func SnippetHeadings(ctx context.Context, dir *sitefs.Folder, file, copyText string, maxBytes int64) []string {
	var out []string
	for _, m := range snippetImportRE.FindAllStringSubmatch(copyText, -1) {
		name := m[1]
		if !strings.HasPrefix(name, "/") {
			name = path.Join(path.Dir(file), name)
		}
		name = path.Clean(strings.TrimPrefix(name, "/"))
		if name == ".." || strings.HasPrefix(name, "../") {
			continue
		}
		raw, err := dir.ReadFile(ctx, name, maxBytes)
		if err != nil {
			continue
		}
		for _, h := range textmap.Scan(string(raw)).Headings {
			out = append(out, h.Text)
		}
	}
	return out
}

// setAnchor records a generator's anchor of a page unless an earlier
// heading gave it.
func setAnchor(m map[string]string, anchor, outline string) {
	k := strings.ToLower(anchor)
	if _, ok := m[k]; !ok && k != "" {
		m[k] = outline
	}
}

// quotedHeadingRE matches a heading inside a block quote ("> ### The
// Stack and the Heap"), which every generator anchors and the outline,
// listing the page's own headings, does not list.
var quotedHeadingRE = regexp.MustCompile(`(?m)^ {0,3}(?:> ?)+#{1,6}[ \t]+(.+?)[ \t#]*$`)

// idAttrRE matches an explicit id attribute, an anchor a heading need not
// give.
var idAttrRE = regexp.MustCompile(`\bid=["']([^"']+)["']`)

// snippetImportRE matches an MDX import of a snippet file, whose headings
// are rendered into the page that imports it.
var snippetImportRE = regexp.MustCompile(`(?m)^import\s+\w+\s+from\s+['"]([^'"]+\.mdx?)['"]`)

// outlineAnchors returns the anchors the outline gives a page's headings
// (those of depth 2 or more, in page order). The outline and the link
// rewriting both take them from here, so a rewritten link names an
// anchor the outline lists.
func outlineAnchors(hs []tzctx.Heading) []string {
	th := make([]textmap.Heading, len(hs))
	for i, h := range hs {
		th[i] = textmap.Heading{Depth: h.Depth, Text: h.Text, Offset: h.Offset, Anchor: h.Anchor}
	}
	return textmap.Anchors(th)
}

// siteFacts are what a tree's Source read of the site that the resolver
// needs besides its pages.
type siteFacts struct {
	root, routeBase, siteBase string
	others                    []source.Other
	redirects                 []source.Redirect
	version                   source.Other
}

// Resolver resolves the links of one tree's pages as the tree's
// generator resolves them. Ingest rewrites the links of the served text
// with it and tzctx check lints the links with it, so the two never
// disagree.
type Resolver struct {
	rules  linkRules
	tree   string
	pages  []linkPage
	byFile map[string]int
	byKey  map[string]int
	// others are the site's other locales and versions.
	others []source.Other
	// root is the folder the pages are published from, relative to the
	// tree folder, as the Source read it; "" where it gives none, and
	// each page's is then the part of its file before its path.
	root string
	// routeBase is the path the site serves the pages under
	// (source.Tree.RouteBase).
	routeBase string
	// siteBase is the path the whole site is deployed under
	// (source.Tree.SiteBase).
	siteBase string
	// version is the version of the site the tree is read at
	// (source.Tree.Version).
	version source.Other
	// redirects are the site's redirects, followed for a route that names
	// no page.
	redirects []source.Redirect
}

// newResolver returns the resolver of a tree of a format, or nil for a
// format whose links are served as written.
func newResolver(format, tree string, nav siteFacts, pages []linkPage) *Resolver {
	rules, ok := rulesFor(format)
	if !ok {
		return nil
	}
	r := &Resolver{rules: rules, tree: tree, pages: pages, byFile: map[string]int{}, byKey: map[string]int{},
		others: nav.others, root: strings.Trim(path.Clean(nav.root), "./"), routeBase: strings.Trim(nav.routeBase, "/"), siteBase: strings.Trim(nav.siteBase, "/"), redirects: nav.redirects, version: nav.version}
	for i, p := range pages {
		r.byFile[p.file] = i
		if _, dup := r.byKey[linkKey(tree, p.route)]; !dup {
			r.byKey[linkKey(tree, p.route)] = i
		}
	}
	return r
}

// LinkStatus is what a link target resolves to.
type LinkStatus int

// The statuses of a resolved link.
const (
	// LinkPage: the target names a listed page, and its fragment, if
	// any, one of the page's anchors.
	LinkPage LinkStatus = iota
	// LinkNoAnchor: the target names a listed page, but its fragment
	// none of the page's anchors.
	LinkNoAnchor
	// LinkBroken: the target names no page.
	LinkBroken
	// LinkElsewhere: the target is no page of this tree to check: an
	// external address, a file that is no page (an image), a page of
	// another locale or version of the site, or a path that leaves the
	// folder the pages are published from.
	LinkElsewhere
	// LinkOtherVersion: the target is the route of a page of another
	// version of the site (Resolution.Version names it) whose path the
	// version the tree is read at has no page of; it is served as
	// written.
	LinkOtherVersion
)

// Resolution is a resolved link: its status, and for a page, its route
// and the anchor the outline gives the heading the fragment names ("" for
// none), or the fragment as written where the outline lists no heading it
// names.
type Resolution struct {
	Status LinkStatus
	Route  string
	Anchor string
	// File is the file of the page (relative to the tree folder).
	File string
	// Version names the version of the site a LinkOtherVersion target is
	// a page of, or the version whose route a LinkBroken target is where
	// that version has no page there.
	Version string
	// Fix is, for a LinkBroken target that names a page only in another
	// form of the site's base (Astro's link written without the base,
	// VitePress's Markdown link written with it), the target written as
	// the generator resolves it; "" otherwise.
	Fix string
}

// Target is the resolved link written as a served route, with the anchor
// where there is one.
func (r Resolution) Target() string {
	if r.Anchor == "" {
		return tzctx.LinkTarget(r.Route)
	}
	return tzctx.LinkTarget(r.Route + "#" + r.Anchor)
}

// externalLinkRE matches a target with a URI scheme (https:, mailto:).
var externalLinkRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// Resolve resolves a Markdown link's target written on the page of file
// from (as listed; relative to the tree folder).
func (r *Resolver) Resolve(from, target string) Resolution {
	return r.resolve(from, target, false)
}

// ResolveLink resolves one link of the page of file from: a Markdown
// link, or a tag's link attribute (l.Attr), which a generator may treat
// apart (VitePress adds the site's base to the first only).
func (r *Resolver) ResolveLink(from string, l PageLink) Resolution {
	return r.resolve(from, l.Target, l.Attr)
}

// resolve resolves a link target written on the page of file from, in a
// tag's attribute where tag is true. An absolute target on a site
// deployed under a base is read as the generator renders it: Astro adds
// the base to no link, so one written without it is a 404 on the site;
// VitePress adds it to every Markdown link, so one written with it is
// (contracts/choices/links.md#ch-links, "The site's base").
func (r *Resolver) resolve(from, target string, tag bool) Resolution {
	switch {
	case r.siteBase == "" || !strings.HasPrefix(target, "/"):
	case r.hasSiteBase(target) && (tag || !r.rules.baseAdded):
		return r.resolveWritten(from, r.lessSiteBase(target))
	case r.hasSiteBase(target):
		// A VitePress Markdown link written with the base: VitePress
		// adds the base again.
		res := r.resolveWritten(from, target)
		if fixed := r.lessSiteBase(target); res.Status == LinkBroken && r.resolveWritten(from, fixed).Status != LinkBroken {
			res.Fix = fixed
		}
		return res
	case !r.rules.baseAdded:
		// An Astro link written without the base: the site serves the
		// page it names under the base only.
		res := r.resolveWritten(from, target)
		if res.Status == LinkPage || res.Status == LinkNoAnchor {
			return Resolution{Status: LinkBroken, Fix: "/" + r.siteBase + target}
		}
		return res
	}
	return r.resolveWritten(from, target)
}

// resolveWritten resolves a link target written on the page of file from
// as a route of the site less its base.
func (r *Resolver) resolveWritten(from, target string) Resolution {
	fi, ok := r.byFile[from]
	if !ok || externalLinkRE.MatchString(target) || strings.HasPrefix(target, "//") || strings.HasPrefix(target, "{") {
		return Resolution{Status: LinkElsewhere}
	}
	p := &r.pages[fi]
	target, frag, hasFrag := strings.Cut(target, "#")
	if j := strings.IndexByte(target, '?'); j >= 0 {
		target = target[:j]
	}
	if u, err := url.PathUnescape(target); err == nil {
		target = u
	}
	to := fi
	if target != "" {
		var st LinkStatus
		var version string
		to, st, version = r.page(p, target)
		if st != LinkPage {
			return Resolution{Status: st, Version: version}
		}
	}
	tp := &r.pages[to]
	res := Resolution{Status: LinkPage, Route: tp.route, File: tp.file}
	if !hasFrag || frag == "" {
		return res
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	out, ok := tp.anchors[strings.ToLower(frag)]
	switch {
	case !ok:
		res.Status, res.Anchor = LinkNoAnchor, frag
	case out == "":
		res.Anchor = frag
	default:
		res.Anchor = out
	}
	return res
}

// page finds the listed page a link's path names, and for a route of
// another version of the site, the version.
func (r *Resolver) page(from *linkPage, target string) (int, LinkStatus, string) {
	root := r.docsRoot(from)
	seg := path.Base(target)
	ext := strings.ToLower(path.Ext(seg))
	abs := strings.HasPrefix(target, "/")
	var files []string
	fileBase := func(t string) []string {
		if strings.HasPrefix(t, "/") {
			return []string{path.Join(root, strings.TrimPrefix(t, "/"))}
		}
		out := []string{path.Join(path.Dir(from.file), t)}
		// Docusaurus looks for "file.md", never for "./file.md" or
		// "../file.md", from the docs root too.
		if r.rules.docsRoot && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
			out = append(out, path.Join(root, t))
		}
		return out
	}
	switch {
	case ext == ".md" || ext == ".mdx":
		if !r.rules.files {
			break
		}
		files = fileBase(target)
	case ext == ".html" && r.rules.html:
		stem := strings.TrimSuffix(target, path.Ext(target))
		for _, f := range fileBase(stem) {
			files = append(files, f+".md", f+".mdx")
			if path.Base(f) == "index" {
				files = append(files, path.Join(path.Dir(f), "README.md"))
			}
		}
	case len(ext) > 1 && ext != seg && seg != "..":
		return 0, LinkElsewhere, "" // an image, a download
	default:
		// A route: absolute from the site's root, relative from the
		// page's URL.
		p := r.route(from, target)
		if i, ok := r.byKey[linkKey(r.tree, p)]; ok {
			return i, LinkPage, ""
		}
		if i, st, version, ok := r.versioned(p, r.inDocs(target)); ok {
			return i, st, version
		}
		if r.rules.bare {
			for _, f := range fileBase(strings.TrimSuffix(target, "/")) {
				files = append(files, f+".md", f+"/index.md")
			}
		}
		if r.other(strings.Trim(p, "/"), false) {
			return 0, LinkElsewhere, ""
		}
	}
	for _, f := range files {
		if i, ok := r.byFile[path.Clean(f)]; ok {
			return i, LinkPage, ""
		}
	}
	for _, f := range files {
		if r.other(path.Clean(f), true) {
			return 0, LinkElsewhere, ""
		}
	}
	// A route or an old page's .html the site redirects.
	if ext == "" || ext == ".html" && r.rules.html {
		if dest, moved := FollowRedirects(r.redirects, strings.TrimSuffix(r.route(from, target), ".html")); moved {
			if externalLinkRE.MatchString(dest) {
				return 0, LinkElsewhere, ""
			}
			if i, ok := r.byKey[linkKey(r.tree, dest)]; ok {
				return i, LinkPage, ""
			}
		}
	}
	if !abs && LeavesFolder(from.file, root, target) {
		return 0, LinkElsewhere, ""
	}
	return 0, LinkBroken, ""
}

// versioned resolves a route (less the route base) into the site's
// versions, for a tree read at one version of a versioned site: a route
// under the tree's own version's path names its page; one under another
// version's path ("/next/x", "/2.x/x") names the page of the same path in
// the tree's version where it has one, as the page the reader can read,
// else it is that version's (LinkOtherVersion) where that version has
// such a page, and broken where it has none; a route under no version's
// path, read where the tree is not the version served there, is the
// served version's, alike. It reports false for a route it leaves to the
// other rules, and for one written outside the route base (inDocs false:
// a blog post's).
func (r *Resolver) versioned(p string, inDocs bool) (int, LinkStatus, string, bool) {
	if r.version.Version == "" || !inDocs {
		return 0, 0, "", false
	}
	rel := strings.Trim(p, "/")
	under := func(route string) (string, bool) {
		switch {
		case route == "":
			return "", false
		case rel == route:
			return "/", true
		case strings.HasPrefix(rel, route+"/"):
			return "/" + strings.TrimPrefix(rel, route+"/"), true
		}
		return "", false
	}
	if rest, ok := under(r.version.Route); ok {
		if i, ok := r.byKey[linkKey(r.tree, rest)]; ok {
			return i, LinkPage, "", true
		}
		return 0, LinkBroken, "", true
	}
	for _, o := range r.others {
		if o.Version == "" {
			continue
		}
		if rest, ok := under(o.Route); ok {
			if i, ok := r.byKey[linkKey(r.tree, rest)]; ok {
				return i, LinkPage, "", true
			}
			return 0, otherVersion(o, rest), o.Version, true
		}
	}
	if r.version.Route != "" {
		for _, o := range r.others {
			if o.Version != "" && o.Route == "" {
				return 0, otherVersion(o, p), o.Version, true
			}
		}
	}
	return 0, 0, "", false
}

// otherVersion is the status of a route (below the version's path) into
// another version of the site: LinkOtherVersion where that version has a
// page there, or where its pages were not read; LinkBroken where it has
// none, as on the site.
func otherVersion(o source.Other, route string) LinkStatus {
	if o.Pages == nil {
		return LinkOtherVersion
	}
	want := strings.Trim(route, "/")
	for _, p := range o.Pages {
		p = strings.TrimSuffix(p, "/index")
		if p == "index" {
			p = ""
		}
		if p == want {
			return LinkOtherVersion
		}
	}
	return LinkBroken
}

// inDocs reports whether a link target is written under the route base
// the pages are served under: a relative one, or an absolute one that
// starts with the route base.
func (r *Resolver) inDocs(target string) bool {
	b := r.routeBase
	return !strings.HasPrefix(target, "/") || b == "" || target == "/"+b || strings.HasPrefix(target, "/"+b+"/")
}

// hasSiteBase reports whether an absolute link target is written with
// the site's base ("/vite/guide/" where base is "/vite/").
func (r *Resolver) hasSiteBase(target string) bool {
	b := r.siteBase
	target, _, _ = strings.Cut(target, "#")
	return b != "" && (target == "/"+b || strings.HasPrefix(target, "/"+b+"/"))
}

// lessSiteBase returns an absolute link target written with the site's
// base without it ("/vite/guide/" where base is "/vite/" names
// "/guide/").
func (r *Resolver) lessSiteBase(target string) string {
	if !r.hasSiteBase(target) {
		return target
	}
	if rest := strings.TrimPrefix(target, "/"+r.siteBase); rest != "" && rest[0] == '/' {
		return rest
	}
	return "/" + strings.TrimPrefix(target, "/"+r.siteBase)
}

// SiteBase is the path the whole site is deployed under, with slashes
// around it ("/docs/"); "" for the host's root.
func (r *Resolver) SiteBase() string {
	if r.siteBase == "" {
		return ""
	}
	return "/" + r.siteBase + "/"
}

// route is a link target written as a route, absolute from the site's
// root (less the site's route base) or relative to the linking page's URL.
func (r *Resolver) route(from *linkPage, target string) string {
	if strings.HasPrefix(target, "/") {
		if b := r.routeBase; b != "" && (target == "/"+b || strings.HasPrefix(target, "/"+b+"/")) {
			return strings.TrimPrefix(target, "/"+b)
		}
		return target
	}
	base := strings.TrimSuffix(strings.TrimSuffix(from.path, "index"), "/")
	if !r.rules.urlDir && !strings.HasSuffix(from.path, "index") {
		base = path.Dir(from.path)
	}
	// As a browser resolves a relative URL: ".." goes no higher than
	// the site's root.
	return path.Join("/", base, target)
}

// other reports whether a route (without slashes around it) or a file
// (relative to the tree folder) is of another locale or version of the
// site.
func (r *Resolver) other(p string, file bool) bool {
	for _, o := range r.others {
		pre := o.Route
		if file {
			pre = o.Folder
		}
		if pre != "" && (p == pre || strings.HasPrefix(p, pre+"/")) {
			return true
		}
	}
	return false
}

// docsRoot is the folder the pages are published from, as a prefix of a
// page's file: the Source's, else PublishRoot's.
func (r *Resolver) docsRoot(from *linkPage) string {
	if r.root != "" {
		return r.root + "/"
	}
	return PublishRoot(from.file, from.path)
}

// PublishRoot is the folder a page is published from, as a prefix of its
// file (relative to the tree folder): the part of the file before the
// page's path ("docs/" for MkDocs, "src/" for mdBook, "" for the tree
// folder).
func PublishRoot(file, pagePath string) string {
	if pagePath == "index" {
		if root := path.Dir(file) + "/"; root != "./" {
			return root
		}
		return ""
	}
	stem := strings.TrimSuffix(file, path.Ext(file))
	for _, suf := range []string{pagePath, pagePath + "/index", pagePath + "/README"} {
		if strings.HasSuffix(stem, suf) {
			return strings.TrimSuffix(stem, suf)
		}
	}
	return ""
}

// LeavesFolder reports whether a relative link target, written in file,
// leaves the folder root the pages are published from
// ("../std/index.html" from the top of an mdBook): it names a page of
// another site on the same host.
func LeavesFolder(file, root, target string) bool {
	root = strings.TrimSuffix(root, "/")
	j := path.Join(path.Dir(file), target)
	if root == "" {
		return j == ".." || strings.HasPrefix(j, "../")
	}
	return j != root && !strings.HasPrefix(j, root+"/")
}

// Version names the version of the site the tree is read at ("3.x",
// "current"); "" for a site without versions.
func (r *Resolver) Version() string { return r.version.Version }

// Anchors returns the anchors the generator gives the page of a file,
// lower-cased, in no order.
func (r *Resolver) Anchors(file string) []string {
	i, ok := r.byFile[file]
	if !ok {
		return nil
	}
	out := make([]string, 0, len(r.pages[i].anchors))
	for a := range r.pages[i].anchors {
		out = append(out, a)
	}
	return out
}
