// Package lint is tzctx check's lint of a documentation site: after every
// check ingest runs (ingest.Check), it reports internal links and #anchors
// that name no listed page or heading, page files the navigation does not
// list, and CTX-08 findings, as finding.Findings.
package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// Options says what the lint holds pages to.
type Options struct {
	// CodeNames are the code names no page may hold (CTX-08).
	CodeNames []string
	// Links is what a broken link or anchor is; "" is LinksError.
	Links Links
	// HouseRules holds the pages to CTX-08, the contract set's own house
	// rules (no repository paths, no code names): documentation of other
	// projects is held to them only when asked.
	HouseRules bool
}

// The rule sets --rules may name beyond those check always runs.
const RulesCTX08 = "ctx-08"

// ParseRules reads the rule sets an operator names with --rules, comma
// separated: ctx-08 holds the documentation to the house rules.
func ParseRules(s string) (houseRules bool, err error) {
	for _, r := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(r)) {
		case "":
		case RulesCTX08:
			houseRules = true
		default:
			return false, fmt.Errorf("%q is no rule set check can add: write ctx-08 (the house rules: repository paths, code names), or leave --rules out", r)
		}
	}
	return houseRules, nil
}

// Links is what the lint makes of an internal link or #anchor that names
// no listed page or heading: no finding, a warning, or an error.
type Links string

// The levels of Links.
const (
	LinksOff   Links = "off"
	LinksWarn  Links = "warn"
	LinksError Links = "error"
)

// ParseLinks reads a Links level as an operator writes it: off, warn or
// error.
func ParseLinks(s string) (Links, error) {
	switch l := Links(s); l {
	case LinksOff, LinksWarn, LinksError:
		return l, nil
	}
	return "", fmt.Errorf("%q is no level of broken links: write off (not reported), warn (warnings) or error (errors, the default)", s)
}

// Trees lints every tree of r, which ingest.Check read from the site
// folder site ("" where the trees were given one by one), as opts says;
// it adds its findings to res.
func Trees(ctx context.Context, res *finding.Report, site string, r *ingest.Report, opts Options) {
	for i := range r.Trees {
		lintTree(ctx, res, site, r, &r.Trees[i], opts)
	}
}

// The rules of the documentation lint. Contract-set findings carry
// catalog's rules; CTX-08 findings are "ctx-08-" and surface's rule.
const (
	RuleIngest       = "ingest"        // a fault ingest refuses the site for
	RuleBrokenLink   = "broken-link"   // an internal link to no listed page
	RuleBrokenAnchor = "broken-anchor" // a #fragment naming no heading of its page
	RuleUnlisted     = "unlisted-file" // a page file the manifest does not list
	RuleNavigation   = "navigation"    // what a format's reader could not follow, and how it fell back
	RuleCTX08        = "ctx-08-"       // prefix of surface's rules
	RuleOtherVersion = "other-version" // a link to a page of a version of the site the tree is not read at, served as written
)

// shown is file (a path as ingest names it) relative to the site folder,
// slash-separated; as given where there is no site folder.
func shown(site, file string) string {
	if site != "" {
		if rel, err := filepath.Rel(site, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

// IngestFinding turns an error of ingest into a finding: the file, the
// line (of the manifest's JSON pointer, or of the fault in a text) and
// ingest's problem and fix.
func IngestFinding(site string, err error) finding.Finding {
	var ie *ingest.Error
	var me *manifest.Error
	switch {
	case errors.As(err, &me):
		f := finding.Finding{File: shown(site, me.File), Line: me.Line, Rule: RuleIngest, Message: me.Problem}
		if me.Pointer != "" {
			f.Message = "at " + me.Pointer + ": " + f.Message
			if f.Line == 0 {
				f.Line = pointerLine(me.File, me.Pointer)
			}
		}
		if me.Fix != "" {
			f.Message += "; " + me.Fix
		}
		f.Line = max(f.Line, 1)
		return f
	case errors.As(err, &ie):
		f := finding.Finding{File: shown(site, ie.File), Line: ie.Line, Rule: RuleIngest, Message: ie.Problem}
		if ie.Pointer != "" {
			f.Message = "listed at " + ie.Pointer + ": " + f.Message
			if n, err := strconv.Atoi(strings.SplitN(ie.Pointer, ":", 2)[0]); err == nil && f.Line == 0 {
				f.Message = "listed at line " + ie.Pointer + ": " + ie.Problem
				f.Line = n
			} else if f.Line == 0 && strings.HasSuffix(ie.File, ".json") {
				f.Line = pointerLine(ie.File, ie.Pointer)
			}
		}
		if ie.Fix != "" {
			f.Message += "; " + ie.Fix
		}
		f.Line = max(f.Line, 1)
		return f
	}
	return finding.Finding{File: site, Line: 1, Rule: RuleIngest, Message: err.Error()}
}

// pointerLine returns the 1-based line of the value at the JSON pointer
// in the JSON file, or 1 where the file does not read or holds no such
// value.
func pointerLine(file, pointer string) int {
	data, err := os.ReadFile(file)
	if err != nil || pointer == "" {
		return 1
	}
	var want []string
	for _, tok := range strings.Split(pointer, "/")[1:] {
		want = append(want, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	off := -1
	// find reads the value at depth d, whose place matches want[:d], and
	// descends only into the member or element want[d] names.
	var find func(d int) error
	find = func(d int) error {
		if d == len(want) {
			off = int(dec.InputOffset())
			return io.EOF
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		delim, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		for i := 0; dec.More(); i++ {
			name := strconv.Itoa(i)
			if delim == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ = k.(string)
			}
			if name == want[d] {
				return find(d + 1)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
		return nil
	}
	_ = find(0)
	if off < 0 {
		return 1
	}
	// The offset is just past the member name or the comma before the
	// value: the value starts at the next character that is none of
	// space, colon or comma.
	for off < len(data) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
}

// externalRE matches a target with a URI scheme (https:, mailto:, tel:).
var externalRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// idRE matches an explicit id attribute, an anchor a heading need not give.
var idRE = regexp.MustCompile(`\bid=["']([^"']+)["']`)

// attrIDRE matches a heading's attribute list id ("## Title { #my-id }"),
// as MkDocs's attr_list and other Markdown dialects write it.
var attrIDRE = regexp.MustCompile(`\{[ \t]*#([A-Za-z0-9_\-.:]+)[^}\n]*\}`)

// lintTree adds the documentation lint's findings for one tree of r to res.
func lintTree(ctx context.Context, res *finding.Report, site string, r *ingest.Report, t *ingest.TreeReport, opts Options) {
	dir, err := sitefs.Open(t.Dir)
	if err != nil {
		res.Errors = append(res.Errors, finding.Finding{File: shown(site, t.Dir), Line: 1, Rule: RuleIngest, Message: "cannot open the tree folder: " + err.Error()})
		return
	}
	defer dir.Close()
	for _, w := range t.Warnings {
		res.Warnings = append(res.Warnings, navWarning(site, t, w))
	}
	byFile := map[string]*ingest.PageReport{}
	for i := range t.Pages {
		byFile[t.Pages[i].File] = &t.Pages[i]
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p *ingest.PageReport) map[string]bool {
		if a, ok := anchors[p.Route]; ok {
			return a
		}
		a := pageAnchors(ctx, dir, p)
		anchors[p.Route] = a
		return a
	}
	fileOf := func(p *ingest.PageReport) string {
		return shown(site, filepath.Join(t.Dir, filepath.FromSlash(p.File)))
	}
	broken := func(f finding.Finding) {
		if opts.Links == LinksWarn {
			res.Warnings = append(res.Warnings, f)
		} else {
			res.Errors = append(res.Errors, f)
		}
	}
	for i := range t.Pages {
		p := &t.Pages[i]
		var links []link
		if opts.Links != LinksOff && t.Links != nil {
			lintResolved(t, p, fileOf(p), broken, func(f finding.Finding) { res.Warnings = append(res.Warnings, f) })
		} else if opts.Links != LinksOff {
			links = pageLinks(p)
		}
		for _, l := range links {
			at := finding.Finding{File: fileOf(p), Line: p.Line(l.line)}
			target, frag, _ := strings.Cut(l.target, "#")
			if j := strings.IndexByte(target, '?'); j >= 0 {
				target = target[:j]
			}
			to := p
			if target != "" {
				// A .html path names a page in the formats whose pages
				// are published as NAME.html (mdBook, MkDocs); Mintlify's
				// never are.
				if isAsset(target) && !(t.Format != "mintlify" && t.Format != "" && strings.EqualFold(path.Ext(target), ".html")) {
					continue
				}
				var ok bool
				to, ok = resolve(r, t, p, target)
				if !ok {
					to, ok = resolveFile(byFile, p, target)
				}
				if !ok {
					if dest, moved := ingest.FollowRedirects(t.Redirects, strings.TrimSuffix(target, ".html")); moved {
						if externalRE.MatchString(dest) {
							continue
						}
						to, ok = resolve(r, t, p, dest)
					}
				}
				if !ok && t.Format != "mintlify" && t.Format != "" && leavesRoot(p, target) {
					continue
				}
				if !ok {
					at.Rule = RuleBrokenLink
					at.Message = fmt.Sprintf("the link target %q names no page the %s lists", l.target, navName(t))
					if f := unlistedFile(t, p, target); f != "" {
						at.Message += fmt.Sprintf(" (%s exists, but %s does not list it); list the page %s, or link a listed page", f, navFile(t), listHow(t))
					} else {
						at.Message += "; link a listed page by its path (e.g. /guides/setup), or add and list the page"
					}
					broken(at)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
			a := anchorsOf(to)
			if a[strings.ToLower(frag)] {
				continue
			}
			at.Rule = RuleBrokenAnchor
			at.Message = fmt.Sprintf("the anchor #%s names no heading of %s (%s)", frag, to.Route, to.File)
			if hint := someAnchors(a); hint != "" {
				at.Message += "; link one of its headings' anchors (" + hint + ") or rename the heading"
			} else {
				at.Message += ", which has no heading; link the page without the anchor"
			}
			broken(at)
		}
		if !opts.HouseRules {
			continue
		}
		for _, f := range surface.Check(p.Copy, surface.Options{MustName: false, CodeNames: opts.CodeNames}) {
			res.Warnings = append(res.Warnings, finding.Finding{File: fileOf(p), Line: p.Line(max(f.Line, 1)), Rule: RuleCTX08 + string(f.Rule), Message: f.Detail})
		}
	}
	res.Warnings = append(res.Warnings, unlisted(site, t)...)
}

// link is one internal link candidate of a page: its target as written
// (angle brackets and escapes removed) and its 1-based line in the copy.
type link struct {
	target string
	line   int
}

// pageLinks returns the Markdown links of a page's copy (ingest.PageLinks)
// less external targets (a scheme, or "//"). A tree without a resolver
// (Mintlify's) is linted as before tags' link attributes were read: its
// components' hrefs are routes served as written.
func pageLinks(p *ingest.PageReport) []link {
	var out []link
	for _, l := range ingest.PageLinks(p.Copy, p.Scan) {
		tg := strings.TrimSpace(l.Target)
		if l.Attr || tg == "" || externalRE.MatchString(tg) || strings.HasPrefix(tg, "//") || strings.HasPrefix(tg, "{") {
			continue
		}
		out = append(out, link{target: tg, line: l.Line})
	}
	return out
}

// lintResolved lints the links of a page of a tree whose generator's
// resolver ingest rewrites the served links with (t.Links): a link that
// resolves to no page is broken, a fragment that names no anchor of its
// page is a broken anchor; a route of another version of the site whose
// page the tree's version lacks is a warning (warn), as the served text
// keeps it as written; external links, other files, other locales and
// versions of the site and paths that leave the published folder are not
// checked.
func lintResolved(t *ingest.TreeReport, p *ingest.PageReport, file string, broken, warn func(finding.Finding)) {
	for _, l := range ingest.PageLinks(p.Copy, p.Scan) {
		at := finding.Finding{File: file, Line: p.Line(l.Line)}
		r := t.Links.ResolveLink(p.File, l)
		switch r.Status {
		case ingest.LinkBroken:
			at.Rule = RuleBrokenLink
			at.Message = fmt.Sprintf("the link target %q names no page the %s lists", l.Target, navName(t))
			target, _, _ := strings.Cut(l.Target, "#")
			switch f := unlistedFile(t, p, target); {
			case r.Fix != "":
				at.Message = fmt.Sprintf("the link target %q names no page: the site is deployed under the base %s, and %s; write %q", l.Target, t.Links.SiteBase(), baseRule(t.Format, l.Attr), r.Fix)
			case r.Version != "":
				at.Message = fmt.Sprintf("the link target %q names no page: it is a route of version %s of the site, which has no page there, nor has %s, the version this tree is read at; link a page of %s, or add the page", l.Target, r.Version, t.Links.Version(), t.Links.Version())
			case f != "":
				at.Message += fmt.Sprintf(" (%s exists, but %s does not list it); list the page %s, or link a listed page", f, navFile(t), listHow(t))
			default:
				at.Message += "; link a listed page by its file (as " + t.Format + " resolves it) or its route, or add and list the page"
			}
		case ingest.LinkNoAnchor:
			at.Rule = RuleBrokenAnchor
			at.Message = fmt.Sprintf("the anchor #%s names no heading of %s (%s)", r.Anchor, r.Route, r.File)
			a := map[string]bool{}
			for _, x := range t.Links.Anchors(r.File) {
				a[x] = true
			}
			if hint := someAnchors(a); hint != "" {
				at.Message += "; link one of its headings' anchors as " + t.Format + " writes them (" + hint + ") or rename the heading"
			} else {
				at.Message += ", which has no heading; link the page without the anchor"
			}
		case ingest.LinkOtherVersion:
			at.Rule = RuleOtherVersion
			at.Message = fmt.Sprintf("the link target %q names a page of version %s of the site, which this tree is not read at (it is read at %s, which has no page at that path), so it is served as written and cannot be followed; link a page of %s, or ingest that version with --docs-version %s", l.Target, r.Version, t.Links.Version(), t.Links.Version(), r.Version)
			warn(at)
			continue
		default:
			continue
		}
		broken(at)
	}
}

// baseRule says how a generator treats a site's base in a link, for a
// broken link's message.
func baseRule(format string, attr bool) string {
	if format == "vitepress" && !attr {
		return "vitepress adds the base to every absolute Markdown link, so a link written with it names a page under the base twice"
	}
	return format + " adds the base to no link (Astro leaves links as written), so the site serves nothing at a link written without it"
}

// navName names a tree's navigation for a message: "manifest" for
// Mintlify's docs.json, as check always named it, else the format's.
func navName(t *ingest.TreeReport) string {
	if t.Format == "" || t.Format == "mintlify" {
		return "manifest"
	}
	return t.Format + " navigation"
}

// navFile names the file that lists a tree's pages, or for a format
// whose navigation is its folders, the navigation.
func navFile(t *ingest.TreeReport) string {
	switch {
	case t.Format == "" || t.Format == "mintlify":
		return "docs.json"
	case t.Navigation != "":
		return t.Navigation
	}
	return "the " + t.Format + " navigation"
}

// listHow says where a page is listed.
func listHow(t *ingest.TreeReport) string {
	switch t.Format {
	case "", "mintlify":
		return "under navigation"
	case "markdown":
		return "in a folder that is not hidden"
	}
	return "in " + navFile(t)
}

// navWarning turns a reader's warning ("FILE:LINE: message", FILE
// relative to the tree folder) into a finding.
func navWarning(site string, t *ingest.TreeReport, w string) finding.Finding {
	f := finding.Finding{File: shown(site, t.Dir), Line: 1, Rule: RuleNavigation, Message: w}
	if loc, msg, ok := strings.Cut(w, ": "); ok {
		file, line, _ := strings.Cut(loc, ":")
		if n, err := strconv.Atoi(line); err == nil || line == "" {
			f.File = shown(site, filepath.Join(t.Dir, filepath.FromSlash(file)))
			f.Line, f.Message = max(n, 1), msg
		}
	}
	return f
}

// resolveFile finds the listed page a link written as a file path
// names: relative to the linking page's file ("../guide/index.md",
// "./config.md", "setup.html", "guide/"), or, for an absolute path, to
// the folder the pages are published from; byFile maps each listed
// page's file to it. A .html ending names the page
// of the same path (mdBook, MkDocs without directory URLs); "x/" and
// "x/index.html" name the folder's home page.
func resolveFile(byFile map[string]*ingest.PageReport, from *ingest.PageReport, target string) (*ingest.PageReport, bool) {
	if u, err := url.PathUnescape(target); err == nil {
		target = u
	}
	root := publishRoot(from)
	var cands []string
	if strings.HasPrefix(target, "/") {
		cands = append(cands, path.Join(root, strings.TrimPrefix(target, "/")))
	} else {
		cands = append(cands, path.Join(path.Dir(from.File), target))
	}
	var out []string
	for _, c := range cands {
		c = strings.TrimPrefix(c, "./")
		stem := strings.TrimSuffix(c, ".html")
		out = append(out, c, stem+".md", stem+".mdx", stem+"/index.md", stem+"/index.mdx", stem+"/README.md")
		if base := path.Base(stem); base == "index" {
			d := path.Dir(stem)
			out = append(out, path.Join(d, "README.md"), path.Join(d, "index.mdx"))
		}
	}
	for _, c := range out {
		if p, ok := byFile[path.Clean(c)]; ok {
			return p, true
		}
	}
	return nil, false
}

// publishRoot is the folder the pages are published from, as a prefix of
// a page's file (ingest.PublishRoot).
func publishRoot(from *ingest.PageReport) string {
	return ingest.PublishRoot(from.File, from.Path)
}

// leavesRoot reports whether a relative link target leaves the folder the
// pages are published from (ingest.LeavesFolder).
func leavesRoot(from *ingest.PageReport, target string) bool {
	return !strings.HasPrefix(target, "/") && ingest.LeavesFolder(from.File, publishRoot(from), target)
}

// isAsset reports whether a target names a file that is not a page: its
// last segment has an extension other than .md or .mdx (an image, a JSON
// specification, llms.txt).
func isAsset(target string) bool {
	seg := path.Base(target)
	ext := strings.ToLower(path.Ext(seg))
	return len(ext) > 1 && ext != ".md" && ext != ".mdx" && ext != seg && seg != ".."
}

// resolve finds the listed page a link target names. An absolute target
// ("/guides/x", with or without the tree's base path) is matched as it is,
// in the page's tree and then, where its first segment names another tree
// of r ("/tzdocs/x" from the cloud tree), in that tree; a relative one is
// resolved against the folder of the page's file (as a reader of the files
// resolves it) and against the page's URL (as a browser does; the two
// differ for a folder's index page), and either match counts.
func resolve(r *ingest.Report, t *ingest.TreeReport, from *ingest.PageReport, target string) (*ingest.PageReport, bool) {
	if strings.HasPrefix(target, "/") {
		if to, ok := t.Lookup(target); ok {
			return to, true
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(target, "/"), "/")
		for i := range r.Trees {
			if o := &r.Trees[i]; o.Name == first && o != t {
				return o.Lookup(target)
			}
		}
		return nil, false
	}
	slug := strings.TrimSuffix(from.Path, "/index")
	if slug == "index" {
		slug = ""
	}
	for _, base := range []string{path.Dir(from.Path), path.Dir(slug)} {
		p := path.Join(base, target)
		if p == ".." || strings.HasPrefix(p, "../") {
			continue
		}
		if p == "." {
			p = "" // the tree's home page
		}
		if to, ok := t.Lookup("/" + p); ok {
			return to, true
		}
	}
	return nil, false
}

// unlistedFile returns the file, relative to the tree folder, of a page
// file a broken target names that exists but is not listed; "" otherwise.
func unlistedFile(t *ingest.TreeReport, from *ingest.PageReport, target string) string {
	p := target
	if !strings.HasPrefix(p, "/") {
		p = path.Join(path.Dir(from.Path), p)
	}
	p = strings.Trim(p, "/")
	p = strings.TrimPrefix(p, t.Name+"/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".mdx"), ".md")
	for _, c := range []string{p + ".mdx", p + ".md", p + "/index.mdx", p + "/index.md"} {
		if fi, err := os.Stat(filepath.Join(t.Dir, filepath.FromSlash(c))); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// pageAnchors returns the anchors a link may name on a page, lower-cased:
// those of its headings of every depth and of its headings of depth 2 or
// more (the outline's, whose repeat suffixes may differ), those of the
// headings of the snippet files it imports (read through the tree folder),
// and explicit id attributes.
func pageAnchors(ctx context.Context, dir *sitefs.Folder, p *ingest.PageReport) map[string]bool {
	a := map[string]bool{}
	var deep []textmap.Heading
	for _, h := range p.Scan.Headings {
		if h.Depth >= 2 {
			deep = append(deep, h)
		}
	}
	for _, h := range ingest.SnippetHeadings(ctx, dir, p.File, p.Copy, ingest.DefaultMaxPageBytes) {
		a[strings.ToLower(textmap.Anchor(h))] = true
	}
	for _, hs := range [][]textmap.Heading{p.Scan.Headings, deep} {
		for _, x := range textmap.Anchors(hs) {
			a[strings.ToLower(x)] = true
		}
	}
	for _, m := range idRE.FindAllStringSubmatch(p.Copy, -1) {
		a[strings.ToLower(m[1])] = true
	}
	for _, h := range p.Scan.Headings {
		if m := attrIDRE.FindStringSubmatch(h.Text); m != nil {
			a[strings.ToLower(m[1])] = true
		}
	}
	return a
}

// someAnchors names up to five anchors of a set, sorted, for a message.
func someAnchors(a map[string]bool) string {
	var all []string
	for x := range a {
		if x != "" {
			all = append(all, "#"+x)
		}
	}
	sort.Strings(all)
	if len(all) > 5 {
		all = append(all[:5], "…")
	}
	return strings.Join(all, ", ")
}

// other reports whether a folder (relative to the tree folder) holds
// another locale or version of the site, whose pages the site serves but
// the tree leaves out.
func other(t *ingest.TreeReport, rel string) bool {
	for _, o := range t.Others {
		if rel == o.Folder {
			return true
		}
	}
	return false
}

// partial reports whether a file or folder name is one the tree's
// generator never makes a page of: Docusaurus's and Astro's "_" prefix
// (partials imported into pages).
func partial(t *ingest.TreeReport, name string) bool {
	return (t.Format == "docusaurus" || t.Format == "starlight") && strings.HasPrefix(name, "_")
}

// unlisted returns a warning for each page file (.md or .mdx) below the
// tree folder that is not a listed page's file. Hidden folders,
// node_modules and the top-level snippets folder (Mintlify's, for files
// imported into pages and never rendered as pages) are not looked in.
func unlisted(site string, t *ingest.TreeReport) []finding.Finding {
	listed := map[string]string{} // file -> page path
	byPath := map[string]string{} // page path -> its file
	for _, p := range t.Pages {
		listed[p.File] = p.Path
		byPath[p.Path] = p.File
	}
	var out []finding.Finding
	_ = filepath.WalkDir(t.Dir, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(t.Dir, f)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "snippets" || other(t, rel) || partial(t, d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if partial(t, d.Name()) {
			return nil
		}
		ext := path.Ext(rel)
		if ext != ".md" && ext != ".mdx" || !d.Type().IsRegular() {
			return nil
		}
		if _, ok := listed[rel]; ok || rel == t.Navigation {
			return nil
		}
		w := finding.Finding{File: shown(site, f), Line: 1, Rule: RuleUnlisted}
		if other, ok := byPath[strings.TrimSuffix(rel, ext)]; ok {
			w.Message = fmt.Sprintf("the page %s is read from %s, so this file is never read; remove one of the two", strings.TrimSuffix(rel, ext), other)
		} else {
			w.Message = navFile(t) + " does not list this page file, so it is not ingested or served; list it " + listHow(t) + ", or remove it"
		}
		out = append(out, w)
		return nil
	})
	return out
}
