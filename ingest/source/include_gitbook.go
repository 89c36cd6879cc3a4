package source

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// GitBook's include form, its content reference: {% include "PATH" %} (or
// with single quotes) anywhere in a page outside {% raw %} … {% endraw %},
// the path relative to the including file, "/" the book's root; a
// "git+…" path names another repository and is not followed.
var (
	gitbookInclude = regexp.MustCompile(`\{%-?\s*include\s+(?:"([^"]*)"|'([^']*)')\s*-?%\}`)
	gitbookRaw     = regexp.MustCompile(`(?s)\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\}`)
)

// gitbook expands the {% include %} directives of text, and those of what
// they include, as GitBook renders its content references: the included
// file's text, its front matter left out.
func (r *pageRun) gitbook(text string, w where) string {
	matches := gitbookInclude.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	raw := gitbookRaw.FindAllStringIndex(text, -1)
	var b strings.Builder
	prev, lineOff, line := 0, 0, 0
	for _, m := range matches {
		if r.stopped() {
			return text
		}
		if inSpans(raw, m[0]) {
			continue
		}
		b.WriteString(text[prev:m[0]])
		prev = m[1]
		directive := text[m[0]:m[1]]
		line = lineAt(text, m[0], lineOff, line)
		lineOff = m[0]
		var p string
		if m[2] >= 0 {
			p = text[m[2]:m[3]]
		} else {
			p = text[m[4]:m[5]]
		}
		out, ok := r.gitbookOne(p, directive, w, line)
		if !ok {
			out = directive
		}
		b.WriteString(out)
	}
	b.WriteString(text[prev:])
	return b.String()
}

func (r *pageRun) gitbookOne(p, directive string, w where, line int) (string, bool) {
	loc := w.at(line)
	if strings.HasPrefix(p, "git+") || strings.Contains(p, "://") {
		r.warn(loc, "outside the folder: "+strconv.Quote(directive)+" names another repository", "the directive is left as written, copy the file into the book")
		return "", false
	}
	base := path.Dir(w.file)
	if rest, ok := strings.CutPrefix(p, "/"); ok {
		base, p = r.x.Rules.Root, rest
	}
	name, ok := r.resolve(base, p, loc, directive)
	content, ok := r.fetch(w, loc, directive, name, ok)
	if !ok {
		return "", false
	}
	body, fmLines := stripFrontMatter(content)
	r.x.Expanded++
	return strings.TrimSuffix(r.gitbook(body, where{file: name, line: 1 + fmLines, depth: w.depth + 1, via: loc}), "\n"), true
}

// inSpans reports whether offset at lies in one of spans.
func inSpans(spans [][]int, at int) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}
