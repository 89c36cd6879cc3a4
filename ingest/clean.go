package ingest

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// The served text of a page of a format other than Mintlify is the page
// as its site shows the reader, not its markup (issue 32): an MDX page's
// import and export statements, which the site runs rather than shows,
// are left out; a heading's attribute list ("## Install { #install }"),
// which sets the heading's anchor, is left out of its text while the
// anchor it sets still names the heading in the outline; inline HTML and
// JSX tags ("<Badge type=\"warning\" text=\"experimental\" />") are left
// out of headings and titles, their content kept, as the outline's
// anchors already leave them out. Fenced code is never touched. Mintlify
// trees are served as before, byte for byte.

// mdxPage reports whether a page of format is read as MDX: an .mdx file,
// or any page of Docusaurus (which reads .md as MDX) or Nextra.
func mdxPage(format, file string) bool {
	return strings.EqualFold(path.Ext(file), ".mdx") || format == "docusaurus" || format == "nextra"
}

// esmStart matches the first line of an MDX import or export statement,
// at the start of a line as MDX reads it.
var esmStart = regexp.MustCompile(`^(?:import(?:\s+type)?\s*(?:[\w$]+\s*(?:,\s*)?)?(?:\{|\*|['"]|[\w$]+\s+from\s)|export\s+(?:const|let|var|function|async\s+function|class|default|type|interface)\b|export\s*(?:\{|\*))`)

// headingAttrs matches a heading's trailing attribute list: "{ #id }",
// "{#id .class key=value}", MkDocs's "{: #id }".
var headingAttrs = regexp.MustCompile(`\s*\{:?[ \t]*[#.][^{}]*\}\s*$`)

// attrID finds the id an attribute list sets.
var attrID = regexp.MustCompile(`(?:^|[\s{:])#([^\s#.{}]+)`)

// emptyLink matches a link left without text once its tags are dropped
// ("[<Badge text=\"NRV\" />](#from-v7)").
var emptyLink = regexp.MustCompile(`\[\s*\]\([^()\s]*\)`)

// atxPrefix matches an ATX heading's opening: indentation and the #s.
var atxPrefix = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+|$)`)

// cleanText returns the served text of a page's copy (the file after its
// front matter) and the lines left out before its first line (an MDX
// page's leading imports and the blank lines among them), by which the
// copy's first line moves down the file; anchors gives, by line of the
// text returned (0-based), the anchor an attribute list set for the
// heading on it. An import or export after other text becomes a blank
// line, so that the lines after it keep their places in the file.
func cleanText(cp string, mdx bool) (text string, lead int, anchors map[int]string) {
	m := textmap.Scan(cp)
	heading := make(map[int]bool, len(m.Headings))
	for _, h := range m.Headings {
		heading[h.Offset] = true
	}
	var b strings.Builder
	b.Grow(len(cp))
	fence := 0 // the next fence of m.Fences
	at := 0    // the code-point offset of the line
	out := 0   // lines written
	inESM := false
	leading := true // only blank lines and ESM so far
	sawESM := false
	prevBlank := true
	for rest := cp; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		start := at
		at += utf8.RuneCountInString(line)
		content := strings.TrimRight(line, "\r\n")
		end := line[len(content):]
		blank := strings.TrimSpace(content) == ""
		for fence < len(m.Fences) && m.Fences[fence].End <= start {
			fence++
		}
		inFence := fence < len(m.Fences) && m.Fences[fence].Start <= start
		switch {
		case inESM && blank:
			inESM = false
		case inESM || (mdx && !inFence && prevBlank && esmStart.MatchString(content)):
			inESM, sawESM = true, true
			prevBlank = false
			if leading {
				lead++
			} else {
				b.WriteString(end)
				out++
			}
			continue
		}
		prevBlank = blank
		if leading && blank {
			lead++
			b.WriteString(line) // kept unless an import follows
			continue
		}
		if leading {
			leading = false
			if sawESM {
				// The leading imports and the blank lines among them go.
				b.Reset()
			} else {
				out += lead
				lead = 0
			}
		}
		if !inFence && heading[start] {
			if h, id, ok := cleanHeading(content); ok {
				line = h + end
				if id != "" {
					if anchors == nil {
						anchors = map[int]string{}
					}
					anchors[out] = id
				}
			}
		}
		b.WriteString(line)
		out++
	}
	if leading && !sawESM {
		lead = 0
	} else if leading {
		b.Reset()
	}
	return b.String(), lead, anchors
}

// cleanHeading returns an ATX heading line without its attribute list and
// its tags, and the id its attribute list set; ok is false where nothing
// changes (or nothing would be left of its text).
func cleanHeading(line string) (clean, id string, ok bool) {
	p := atxPrefix.FindString(line)
	if p == "" {
		return "", "", false
	}
	text := line[len(p):]
	if a := headingAttrs.FindString(text); a != "" {
		if m := attrID.FindStringSubmatch(a); m != nil {
			id = m[1]
		}
		text = text[:len(text)-len(a)]
	}
	text = cleanInline(text)
	if text == "" || p+text == line {
		return "", "", false
	}
	return p + text, id, true
}

// cleanInline drops the tags of a heading's or title's text, and a link
// left without text by it, keeping the text's spacing where nothing was
// dropped.
func cleanInline(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	t := emptyLink.ReplaceAllString(textmap.DropTags(s), "")
	if t == s {
		return s
	}
	return strings.Join(strings.Fields(t), " ")
}

// cleanTitle returns a title without an attribute list and without tags.
func cleanTitle(s string) string {
	if !strings.ContainsAny(s, "<{") {
		return s
	}
	t := cleanInline(headingAttrs.ReplaceAllString(s, ""))
	if t == "" {
		return s
	}
	return t
}
