package ingest

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// PageLink is one link of a page's copy: its target as written (angle
// brackets and escapes removed, HTML entities decoded as the page's
// reader gets them), its 1-based line in the copy, whether
// that line is a heading, whether it is a tag's attribute rather than a
// Markdown link, and the byte span of the destination as written in the
// copy.
type PageLink struct {
	Target     string
	Line       int
	Heading    bool
	Attr       bool
	start, end int
}

// refDefRE matches a link reference definition "[label]: target"; a
// footnote ("[^1]: text") is none.
var refDefRE = regexp.MustCompile(`^ {0,3}\[[^\]^][^\]]*\]:[ \t]*(<[^>\n]*>|\S+)`)

// atxRE matches the start of an ATX heading line.
var atxRE = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]|$)`)

// PageLinks returns the links of a page's copy, whose layout m is
// (textmap.Scan's), in the order they stand: the inline links
// "[text](target)", the reference definitions "[label]: target" and the
// link attributes of tags (an HTML <a href>, a component's href or to
// prop: attrLinkSpans), less those inside fenced code blocks and HTML
// comments, inline code spans, inline HTML comments and MDX's JSX
// comments ({/* … */}, over lines too). A target's HTML entities
// ("&amp;", "&#x2F;") are decoded, as the site's reader gets them, except
// in a JSX string literal ({"…"}, which JavaScript reads as written). The
// served text's links are rewritten from it and tzctx check lints it.
func PageLinks(copyText string, m *textmap.Map) []PageLink {
	var out []PageLink
	masked := []byte(copyText)
	var lineOffs []int // byte offset of each line start read
	var headings []bool
	fi, ci, off := 0, 0, 0
	inJSX := false // inside a JSX comment opened on an earlier line
	for i, line := range strings.SplitAfter(copyText, "\n") {
		lineOff := off
		off += len(line)
		if i >= len(m.LineStarts) {
			break
		}
		lineOffs = append(lineOffs, lineOff)
		heading := atxRE.MatchString(line)
		headings = append(headings, heading)
		cp := int(m.LineStarts[i])
		for fi < len(m.Fences) && m.Fences[fi].End <= cp {
			fi++
		}
		for ci < len(m.Comments) && m.Comments[ci].End <= cp {
			ci++
		}
		if fi < len(m.Fences) && m.Fences[fi].Start <= cp || ci < len(m.Comments) && m.Comments[ci].Start <= cp {
			blankBytes(masked[lineOff : lineOff+len(line)])
			continue
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		ml := maskInline(line)
		ml, inJSX = maskJSXComments(ml, inJSX)
		copy(masked[lineOff:], ml)
		if mm := refDefRE.FindStringSubmatchIndex(ml); mm != nil {
			s, e := mm[2], mm[3]
			tg := line[s:e]
			if strings.HasPrefix(tg, "<") {
				tg = strings.TrimSuffix(tg[1:], ">")
			}
			out = append(out, PageLink{Target: html.UnescapeString(tg), Line: i + 1, Heading: heading, start: lineOff + s, end: lineOff + e})
		}
		for _, sp := range linkSpans(ml) {
			tg := strings.TrimSpace(line[sp.start:sp.end])
			if strings.HasPrefix(tg, "<") {
				if t, _, ok := angleTarget(line[sp.start+1:]); ok {
					tg = t
				}
			}
			if tg == "" {
				continue
			}
			out = append(out, PageLink{Target: html.UnescapeString(tg), Line: i + 1, Heading: heading, start: lineOff + sp.start, end: lineOff + sp.end})
		}
	}
	attrs := attrLinkSpans(string(masked[:off]))
	if len(attrs) == 0 {
		return out
	}
	for _, sp := range attrs {
		line := sort.SearchInts(lineOffs, sp.start+1) - 1
		tg := copyText[sp.start:sp.end]
		if !sp.js {
			tg = html.UnescapeString(tg)
		}
		out = append(out, PageLink{Target: tg, Line: line + 1, Heading: headings[line], Attr: true, start: sp.start, end: sp.end})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].start < out[b].start })
	// A span inside another (a Markdown link written in an attribute's
	// value) is read once, as the outer one.
	kept := out[:1]
	for _, l := range out[1:] {
		if l.start >= kept[len(kept)-1].end {
			kept = append(kept, l)
		}
	}
	return kept
}

// blankBytes turns every byte of b but line ends into a space.
func blankBytes(b []byte) {
	for k, c := range b {
		if c != '\n' && c != '\r' {
			b[k] = ' '
		}
	}
}

// linkAttrs are the attributes whose value is a link a reader follows:
// HTML's <a href>, and the props the generators' link components take
// (Docusaurus's <Link to>, Starlight's <LinkCard href> and <LinkButton
// href>, Mintlify's <Card href>, a Vue component's href).
var linkAttrs = map[string]bool{"href": true, "to": true}

// notLinkTags are the tags whose href names no page a reader goes to
// (a stylesheet, the document's base); written in lower case, as HTML
// writes them: "Link" is a component.
var notLinkTags = map[string]bool{"link": true, "base": true}

// attrLinkSpans returns the byte spans of the link attributes' values
// (linkAttrs) of the tags in text, which has its code and comments
// blanked: a value in double or single quotes, or a JSX expression that
// is one string literal ({"/x"}, {'/x'}, {`/x`} without ${}). A bound
// value (Vue's :href, an expression) is no link. A tag runs to its ">",
// and is left unread at a "<" or a blank line before it, as Markdown
// ends an HTML block there; each byte is read once.
func attrLinkSpans(text string) []linkSpan {
	var out []linkSpan
	i := 0
	for {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return out
		}
		i += j + 1
		n := tagNameLen(text[i:])
		if n == 0 {
			continue
		}
		name := text[i : i+n]
		i += n
		var spans []linkSpan
		i, spans = tagAttrs(text, i)
		if !notLinkTags[name] {
			out = append(out, spans...)
		}
	}
}

// tagNameLen is the length of the tag name text starts with: a letter,
// then letters, digits and ".", "_", ":", "-"; 0 where it starts with
// none.
func tagNameLen(text string) int {
	n := 0
	for n < len(text) {
		c := text[n]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && (c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0) {
			n++
			continue
		}
		break
	}
	return n
}

// tagAttrs reads a tag's attributes from i, just after its name, to the
// tag's end, and returns where reading stopped and the spans of its link
// attributes' values.
func tagAttrs(text string, i int) (int, []linkSpan) {
	var spans []linkSpan
	newlines := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\n':
			// A blank line ends the block the tag stands in.
			if newlines++; newlines > 1 {
				return i, nil
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '>':
			return i + 1, spans
		case c == '<':
			return i, nil
		}
		newlines = 0
		n := 0
		for i+n < len(text) && strings.IndexByte(" \t\r\n=<>/\"'{}", text[i+n]) < 0 {
			n++
		}
		if n == 0 {
			i++ // a "/" of "/>", a stray quote or brace
			continue
		}
		attr := text[i : i+n]
		i += n
		k := i
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if k == len(text) || text[k] != '=' {
			continue
		}
		k++
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if k == len(text) {
			return k, nil
		}
		var v linkSpan
		ok := false
		switch text[k] {
		case '"', '\'':
			e := strings.IndexByte(text[k+1:], text[k])
			if e < 0 {
				return len(text), nil
			}
			v, ok = linkSpan{start: k + 1, end: k + 1 + e}, true
			i = k + 1 + e + 1
		case '{':
			e := jsxExprEnd(text, k)
			if e < 0 {
				return len(text), nil
			}
			v, ok = jsxString(text, k+1, e)
			i = e + 1
		default:
			e := k
			for e < len(text) && strings.IndexByte(" \t\r\n>", text[e]) < 0 {
				e++
			}
			v, ok = linkSpan{start: k, end: e}, e > k
			i = e
		}
		if ok && linkAttrs[attr] && strings.TrimSpace(text[v.start:v.end]) != "" {
			spans = append(spans, v)
		}
	}
	return i, nil
}

// jsxExprEnd returns the offset of the "}" that closes the JSX expression
// opening at text[open], skipping string literals; -1 where none does.
func jsxExprEnd(text string, open int) int {
	depth := 0
	for k := open; k < len(text); k++ {
		switch c := text[k]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return k
			}
		case '"', '\'', '`':
			e := strings.IndexByte(text[k+1:], c)
			if e < 0 {
				return -1
			}
			k += 1 + e
		}
	}
	return -1
}

// jsxString returns the span of the string a JSX expression text[from:to]
// is, where it is one string literal without interpolation.
func jsxString(text string, from, to int) (linkSpan, bool) {
	for from < to && strings.IndexByte(" \t\r\n", text[from]) >= 0 {
		from++
	}
	for to > from && strings.IndexByte(" \t\r\n", text[to-1]) >= 0 {
		to--
	}
	if to-from < 2 {
		return linkSpan{}, false
	}
	q := text[from]
	if (q != '"' && q != '\'' && q != '`') || text[to-1] != q {
		return linkSpan{}, false
	}
	inner := text[from+1 : to-1]
	if strings.IndexByte(inner, q) >= 0 || strings.IndexByte(inner, '\\') >= 0 || q == '`' && strings.Contains(inner, "${") {
		return linkSpan{}, false
	}
	return linkSpan{from + 1, to - 1, true}, true
}

// maskJSXComments blanks the JSX comments ({/* … */}) of a line, keeping
// its length, in is whether the line starts inside one opened on an
// earlier line; it returns the line and whether it ends inside one.
func maskJSXComments(line string, in bool) (string, bool) {
	b := []byte(line)
	i := 0
	for i < len(b) {
		if !in {
			j := bytes.Index(b[i:], []byte("{/*"))
			if j < 0 {
				break
			}
			i += j
			in = true
		}
		end := bytes.Index(b[i:], []byte("*/}"))
		if end < 0 {
			blankBytes(b[i:])
			return string(b), true
		}
		blankBytes(b[i : i+end+3])
		i += end + 3
		in = false
	}
	return string(b), in
}

// rewriteLinks returns a page's copy with each link the resolver resolves
// to a listed page written as the page's served route (and the anchor the
// outline gives the heading it names); every other link stays as written,
// as do links in headings (whose text names the heading's anchor).
func rewriteLinks(r *Resolver, file, copyText string, m *textmap.Map) string {
	links := PageLinks(copyText, m)
	var b strings.Builder
	last := 0
	for _, l := range links {
		if l.Heading {
			continue
		}
		res := r.ResolveLink(file, l)
		if res.Status != LinkPage && res.Status != LinkNoAnchor {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(copyText) + 64)
		}
		b.WriteString(copyText[last:l.start])
		b.WriteString(res.Target())
		last = l.end
	}
	if last == 0 {
		return copyText
	}
	b.WriteString(copyText[last:])
	return b.String()
}

// linkSpan is the byte span of one inline link's destination in a line;
// js marks a JSX string literal's, whose entities are not decoded.
type linkSpan struct {
	start, end int
	js         bool
}

// linkSpans returns the spans of the destinations of the inline Markdown
// links of a line, as LinkTargets reads them; an angle-bracket
// destination's span holds its brackets.
func linkSpans(line string) []linkSpan {
	var out []linkSpan
	base := 0
	for {
		i := strings.Index(line[base:], "](")
		if i < 0 {
			return out
		}
		base += i + 2
		rest := line[base:]
		if strings.HasPrefix(rest, "<") {
			if _, after, ok := angleTarget(rest[1:]); ok {
				end := len(line) - len(after)
				out = append(out, linkSpan{start: base, end: end})
				base = end
				continue
			}
		}
		depth, j := 0, 0
	scan:
		for ; j < len(rest); j++ {
			switch rest[j] {
			case '(':
				depth++
			case ')':
				if depth == 0 {
					break scan
				}
				depth--
			case ' ', '\t':
				break scan
			}
		}
		if j == len(rest) {
			return out
		}
		out = append(out, linkSpan{start: base, end: base + j})
		base += j
	}
}

// maskInline blanks the inline code spans (a run of backticks to the next
// run of as many on the line) and inline HTML comments of a line, keeping
// its length, so that no link is read inside them. A backtick just after
// "{" opens a JSX expression's template literal (to={`/docs/x`}), which
// its next backtick closes, not a code span.
func maskInline(line string) string {
	b := []byte(line)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			b[k] = ' '
		}
	}
	for i := 0; i < len(b); {
		switch {
		case b[i] == '`' && i > 0 && b[i-1] == '{':
			// The literal runs to the next backtick, which closes it
			// and opens no code span.
			i++
			if end := bytes.IndexByte(b[i:], '`'); end >= 0 {
				i += end + 1
			}
		case b[i] == '`':
			n := 0
			for i+n < len(b) && b[i+n] == '`' {
				n++
			}
			closer := -1
			for j := i + n; j < len(b); {
				if b[j] != '`' {
					j++
					continue
				}
				k := 0
				for j+k < len(b) && b[j+k] == '`' {
					k++
				}
				if k == n {
					closer = j
					break
				}
				j += k
			}
			if closer < 0 {
				i += n
				continue
			}
			blank(i, closer+n)
			i = closer + n
		case bytes.HasPrefix(b[i:], []byte("<!--")):
			end := bytes.Index(b[i+4:], []byte("-->"))
			if end < 0 {
				blank(i, len(b))
				return string(b)
			}
			blank(i, i+4+end+3)
			i += 4 + end + 3
		case b[i] == '\\' && i+1 < len(b):
			// An escaped character is literal: "\[" opens no link.
			b[i+1] = ' '
			i += 2
		default:
			i++
		}
	}
	return string(b)
}

// treeResolver builds the resolver of a tree from its loaded pages, or
// returns nil for a format whose links are served as written.
func treeResolver(ctx context.Context, t *loadedTree, dir *sitefs.Folder, maxBytes int64, pages []loadedPage) *Resolver {
	rules, ok := rulesFor(t.format)
	if !ok {
		return nil
	}
	lps := make([]linkPage, len(pages))
	for i := range pages {
		lps[i] = linkPageOf(ctx, rules, dir, maxBytes, &pages[i])
	}
	return newResolver(t.format, t.name, t.site, lps)
}

// gatherLinks reads every page of a tree once, before ingest writes any,
// for what the resolver needs of each (its file, route and anchors), and
// returns the tree's resolver; nil for a format whose links are served as
// written, without reading. It holds no page's text: a link may name a
// page read later.
func gatherLinks(ctx context.Context, t *loadedTree, dir *sitefs.Folder, src TreeSource, pages []source.Page, opts Options) (*Resolver, error) {
	rules, ok := rulesFor(t.format)
	if !ok {
		return nil, nil
	}
	lps := make([]linkPage, 0, len(pages))
	x := sideExpander(dir, t.includes, opts)
	for _, mp := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := loadPage(ctx, dir, src, mp, opts.MaxPageBytes, t.headingTitles, t.format, x)
		if err != nil {
			return nil, err
		}
		lps = append(lps, linkPageOf(ctx, rules, dir, opts.MaxPageBytes, p))
	}
	return newResolver(t.format, t.name, t.site, lps), nil
}
