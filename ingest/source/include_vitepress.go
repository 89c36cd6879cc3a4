package source

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// VitePress's include forms, as its Markdown renderer reads them:
// <!--@include: PATH#region{start,end}--> anywhere in a page, and a code
// snippet line `<<< PATH#region{lines lang} [title]`.
var (
	vpInclude      = regexp.MustCompile(`<!--\s*@include:\s*(.*?)\s*-->`)
	vpIncludeRange = regexp.MustCompile(`\{(\d*),(\d*)\}$`)
	vpIncludeRegn  = regexp.MustCompile(`#[\w-]+`)
	vpSnippetLine  = regexp.MustCompile(`^([ \t]*)<<<(.*)$`)
	vpRawPath      = regexp.MustCompile(`^(.+?(?:(?:\.([a-z0-9]+))?))(?:(#[\w-]+))?(?: ?(?:\{(\d+(?:[,-]\d+)*)? ?(\S+)?\}))? ?(?:\[(.+)\])?$`)
	// vpRegions are the region markers VitePress knows, one a language
	// family; a region ends with the marker of the family it began with.
	vpRegions = []*regexp.Regexp{
		regexp.MustCompile(`^// ?#?((?:end)?region) ([\w*-]+)$`),
		regexp.MustCompile(`^/\* ?#((?:end)?region) ([\w*-]+) ?\*/$`),
		regexp.MustCompile(`^#pragma ((?:end)?region) ([\w*-]+)$`),
		regexp.MustCompile(`^<!-- #?((?:end)?region) ([\w*-]+) -->$`),
		regexp.MustCompile(`^#((?:End )Region) ([\w*-]+)$`),
		regexp.MustCompile(`^::#((?:end)region) ([\w*-]+)$`),
		regexp.MustCompile(`^# ?((?:end)?region) ([\w*-]+)$`),
	}
	vpRegionStart = regexp.MustCompile(`^[rR]egion$`)
	vpRegionEnd   = regexp.MustCompile(`^[Ee]nd ?[rR]egion$`)
)

// vpFindRegion returns the lines [start, end) of the region name and the
// marker form it uses; ok is false where the file has no such region.
func vpFindRegion(lines []string, name string) (start, end int, form *regexp.Regexp, ok bool) {
	test := func(l string, re *regexp.Regexp, tag *regexp.Regexp) bool {
		c := re.FindStringSubmatch(strings.TrimSpace(l))
		return c != nil && c[2] == name && tag.MatchString(c[1])
	}
	for i, l := range lines {
		if form == nil {
			for _, re := range vpRegions {
				if test(l, re, vpRegionStart) {
					start, form = i+1, re
					break
				}
			}
		} else if test(l, form, vpRegionEnd) {
			return start, i, form, true
		}
	}
	return 0, 0, nil, false
}

// vpRegion returns the lines of the region "#name" of the file name's
// content, its first line's index and its marker form; it warns where the
// file has no such region.
func (r *pageRun) vpRegion(content, region, name, loc, directive string) ([]string, int, *regexp.Regexp, bool) {
	lines := strings.Split(content, "\n")
	s, e, form, found := vpFindRegion(lines, region[1:])
	if !found {
		r.warn(loc, "missing region: "+strconv.Quote(directive)+" names the region "+strconv.Quote(region[1:])+", which "+name+" does not have", "the directive is left as written, fix the region")
		return nil, 0, nil, false
	}
	return lines[s:e], s, form, true
}

// vpDedent removes the indentation every line shares, as VitePress does
// for a region.
func vpDedent(lines []string) []string {
	least := -1
	for _, l := range lines {
		if n := len(l) - len(strings.TrimLeft(l, " \t")); n < len(l) && (least < 0 || n < least) {
			least = n
		}
	}
	if least <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[min(least, len(l)):]
	}
	return out
}

// vpAt resolves a VitePress path: "@/x" and "@x" from srcDir, another
// from the folder of the file from.
func (r *pageRun) vpAt(from, p, loc, directive string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "@"); ok {
		return r.resolve(r.x.Rules.Root, strings.TrimPrefix(rest, "/"), loc, directive)
	}
	return r.resolve(path.Dir(from), p, loc, directive)
}

// lineMap maps the lines of a page's text after its includes are
// expanded to where they came from, for the warnings of the code snippet
// lines read after: each mark is the first line of the expanded text at
// which the page's lines go on at line page of w, or, where from is set,
// an included text begins.
type lineMap struct {
	w     where
	marks []lineMark
}

type lineMark struct {
	out, page int
	from      string
}

// loc returns the place of the 0-based line out of the expanded text.
func (m *lineMap) loc(out int) string {
	k := lineMark{}
	for _, mk := range m.marks {
		if mk.out > out {
			break
		}
		k = mk
	}
	if k.from != "" {
		return k.from
	}
	return m.w.at(k.page + out - k.out)
}

// vitepressIncludes expands the <!--@include: …--> directives of text, and
// those of what they include, as VitePress does before rendering; lm,
// where set, is given the map of the lines of the result.
func (r *pageRun) vitepressIncludes(text string, w where, lm *lineMap) string {
	if lm != nil {
		lm.w = w
	}
	matches := vpInclude.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	prev, lineOff, line, outLines := 0, 0, 0, 0
	for _, m := range matches {
		if r.stopped() {
			return text
		}
		b.WriteString(text[prev:m[0]])
		outLines += strings.Count(text[prev:m[0]], "\n")
		prev = m[1]
		directive := text[m[0]:m[1]]
		line = lineAt(text, m[0], lineOff, line)
		lineOff = m[0]
		out, ok := r.vpIncludeOne(text[m[2]:m[3]], directive, w, line)
		if !ok {
			out = directive
		}
		b.WriteString(out)
		if n := strings.Count(out, "\n"); lm != nil && ok && n > 0 {
			lm.marks = append(lm.marks, lineMark{out: outLines + 1, from: w.at(line) + " (included)"}, lineMark{out: outLines + n + 1, page: line + 1 + strings.Count(directive, "\n")})
			outLines += n
		}
	}
	b.WriteString(text[prev:])
	return b.String()
}

func (r *pageRun) vpIncludeOne(arg, directive string, w where, line int) (string, bool) {
	if arg == "" {
		return "", false
	}
	loc := w.at(line)
	rng := vpIncludeRange.FindStringSubmatch(arg)
	region := vpIncludeRegn.FindString(arg)
	p := strings.TrimSuffix(arg, func() string {
		if rng != nil {
			return rng[0]
		}
		return ""
	}())
	p = strings.TrimSuffix(p, region)
	name, ok := r.vpAt(w.file, p, loc, directive)
	content, ok := r.fetch(w, loc, directive, name, ok)
	if !ok {
		return "", false
	}
	first := 1
	if region != "" {
		lines, s, _, found := r.vpRegion(content, region, name, loc, directive)
		if !found {
			return "", false
		}
		content, first = strings.Join(lines, "\n"), s+1
	}
	if rng != nil {
		lines := strings.Split(content, "\n")
		s, e := 0, len(lines)
		if n, err := strconv.Atoi(rng[1]); err == nil {
			s = max(n-1, 0)
		}
		if n, err := strconv.Atoi(rng[2]); err == nil && n < e {
			e = n
		}
		if s >= len(lines) || s >= e {
			r.warn(loc, "missing range: "+strconv.Quote(directive)+" names lines "+rng[0]+", which "+name+" does not have", "the directive is left as written, fix the range")
			return "", false
		}
		content, first = strings.Join(lines[s:e], "\n"), first+s
	}
	if region == "" && rng == nil && path.Ext(name) == ".md" {
		body, fmLines := stripFrontMatter(content)
		content, first = body, first+fmLines
	}
	r.x.Expanded++
	return r.vitepressIncludes(content, where{file: name, line: first, depth: w.depth + 1, via: loc}, nil), true
}

// stripFrontMatter returns a Markdown text without its YAML front matter,
// and the number of lines left out.
func stripFrontMatter(s string) (string, int) {
	if !strings.HasPrefix(s, "---\n") {
		return s, 0
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return s, 0
	}
	rest := s[4+end+4:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		if strings.TrimSpace(rest[:i]) != "" {
			return s, 0
		}
		rest = rest[i+1:]
	} else if strings.TrimSpace(rest) != "" {
		return s, 0
	} else {
		rest = ""
	}
	return rest, strings.Count(s[:len(s)-len(rest)], "\n")
}

// vitepressSnippets expands the code snippet lines (<<< PATH) of a page
// outside its code blocks into fenced code of the file's language (or the
// one given), as VitePress renders them; the path is relative to the page,
// and loc names the place of a line.
func (r *pageRun) vitepressSnippets(text string, loc func(int) string) string {
	if !strings.Contains(text, "<<<") {
		return text
	}
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if f := fenceMarker(t); f != "" {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(t[len(f):]) == "":
				fence = ""
			}
			continue
		}
		m := vpSnippetLine.FindStringSubmatch(l)
		if fence != "" || m == nil {
			continue
		}
		if r.stopped() {
			return text
		}
		if out, ok := r.vpSnippetOne(m[1], strings.TrimSpace(m[2]), strings.TrimSpace(l), loc(i)); ok {
			lines[i] = out
		}
	}
	return strings.Join(lines, "\n")
}

func (r *pageRun) vpSnippetOne(indent, raw, directive, loc string) (string, bool) {
	w := where{file: r.page}
	m := vpRawPath.FindStringSubmatch(raw)
	if m == nil || m[1] == "" {
		return "", false
	}
	file, ext, region, hl, lang, title := m[1], m[2], m[3], m[4], m[5], m[6]
	name, ok := r.vpAt(w.file, file, loc, directive)
	content, ok := r.fetch(w, loc, directive, name, ok)
	if !ok {
		return "", false
	}
	if region != "" {
		lines, _, form, found := r.vpRegion(content, region, name, loc, directive)
		if !found {
			return "", false
		}
		var kept []string
		for _, l := range lines {
			if !form.MatchString(strings.TrimSpace(l)) {
				kept = append(kept, l)
			}
		}
		content = strings.Join(vpDedent(kept), "\n")
	}
	info := lang
	if info == "" {
		info = ext
	}
	if hl != "" {
		info += "{" + hl + "}"
	}
	if title != "" {
		info += " [" + title + "]"
	}
	r.x.Expanded++
	return codeFence(indent, info, content), true
}
