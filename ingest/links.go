package ingest

import (
	"bytes"
	"context"
	"regexp"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// PageLink is one link of a page's copy: its target as written (angle
// brackets and escapes removed), its 1-based line in the copy, whether
// that line is a heading, and the byte span of the destination as written
// in the copy.
type PageLink struct {
	Target     string
	Line       int
	Heading    bool
	start, end int
}

// refDefRE matches a link reference definition "[label]: target"; a
// footnote ("[^1]: text") is none.
var refDefRE = regexp.MustCompile(`^ {0,3}\[[^\]^][^\]]*\]:[ \t]*(<[^>\n]*>|\S+)`)

// atxRE matches the start of an ATX heading line.
var atxRE = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]|$)`)

// PageLinks returns the links of a page's copy, whose layout m is
// (textmap.Scan's): the inline links "[text](target)" and the reference
// definitions "[label]: target", less those inside fenced code blocks and
// HTML comments, inline code spans and inline HTML comments. The served
// text's links are rewritten from it and tzctx check lints it.
func PageLinks(copyText string, m *textmap.Map) []PageLink {
	var out []PageLink
	fi, ci, off := 0, 0, 0
	for i, line := range strings.SplitAfter(copyText, "\n") {
		lineOff := off
		off += len(line)
		if i >= len(m.LineStarts) {
			break
		}
		cp := int(m.LineStarts[i])
		for fi < len(m.Fences) && m.Fences[fi].End <= cp {
			fi++
		}
		for ci < len(m.Comments) && m.Comments[ci].End <= cp {
			ci++
		}
		if fi < len(m.Fences) && m.Fences[fi].Start <= cp || ci < len(m.Comments) && m.Comments[ci].Start <= cp {
			continue
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		masked := maskInline(line)
		heading := atxRE.MatchString(line)
		if mm := refDefRE.FindStringSubmatchIndex(masked); mm != nil {
			s, e := mm[2], mm[3]
			tg := line[s:e]
			if strings.HasPrefix(tg, "<") {
				tg = strings.TrimSuffix(tg[1:], ">")
			}
			out = append(out, PageLink{Target: tg, Line: i + 1, Heading: heading, start: lineOff + s, end: lineOff + e})
		}
		for _, sp := range linkSpans(masked) {
			tg := strings.TrimSpace(line[sp.start:sp.end])
			if strings.HasPrefix(tg, "<") {
				if t, _, ok := angleTarget(line[sp.start+1:]); ok {
					tg = t
				}
			}
			if tg == "" {
				continue
			}
			out = append(out, PageLink{Target: tg, Line: i + 1, Heading: heading, start: lineOff + sp.start, end: lineOff + sp.end})
		}
	}
	return out
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
		res := r.Resolve(file, l.Target)
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

// linkSpan is the byte span of one inline link's destination in a line.
type linkSpan struct{ start, end int }

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
				out = append(out, linkSpan{base, end})
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
		out = append(out, linkSpan{base, base + j})
		base += j
	}
}

// maskInline blanks the inline code spans (a run of backticks to the next
// run of as many on the line) and inline HTML comments of a line, keeping
// its length, so that no link is read inside them.
func maskInline(line string) string {
	b := []byte(line)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			b[k] = ' '
		}
	}
	for i := 0; i < len(b); {
		switch {
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
