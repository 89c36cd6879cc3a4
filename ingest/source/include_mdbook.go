package source

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// mdBook's link directives, as its links preprocessor finds them: an
// escaped one (`\{{#…}}`, served without the backslash) or
// {{#TYPE ARGS}}.
var (
	mdbookLink        = regexp.MustCompile(`\\\{\{#.*\}\}|\{\{\s*#([a-zA-Z0-9_]+)\s+([^}]+)\}\}`)
	mdbookAnchorStart = regexp.MustCompile(`ANCHOR:\s*([\w_-]+)`)
	mdbookAnchorEnd   = regexp.MustCompile(`ANCHOR_END:\s*([\w_-]+)`)
)

// mdbookRange is the part of a file an include names: an anchor's lines,
// or the 0-based lines [start, end) (end -1: to the end of the file).
type mdbookRange struct {
	anchor     string
	start, end int
}

// parseMdbookRange reads what follows the path's first colon as mdBook
// does: "anchor", "10" (that line), "10:20", "10:", ":20", "" (all).
func parseMdbookRange(spec string) mdbookRange {
	parts := strings.SplitN(spec, ":", 3)
	start, hasStart := 0, false
	switch n, err := strconv.Atoi(parts[0]); {
	case err == nil && n >= 0:
		start, hasStart = max(n-1, 0), true
	case parts[0] == "":
	default:
		return mdbookRange{anchor: parts[0]}
	}
	if len(parts) < 2 {
		if hasStart {
			return mdbookRange{start: start, end: start + 1}
		}
		return mdbookRange{end: -1}
	}
	end, err := strconv.Atoi(parts[1])
	if err != nil || end < 0 {
		return mdbookRange{start: start, end: -1}
	}
	return mdbookRange{start: start, end: end}
}

// take returns the lines of s the range names, mdBook's way: for
// rustdoc_include the other lines follow as hidden "# " lines (which the
// rendered page hides), anchor lines are left out of an anchor's part, and
// found is false where the anchor or every line of the range is missing.
func (m mdbookRange) take(s string, rustdoc bool) (out string, found bool) {
	lines := splitLines(s)
	var kept []string
	if m.anchor == "" {
		end := m.end
		if end < 0 || end > len(lines) {
			end = len(lines)
		}
		for i, l := range lines {
			switch {
			case i >= m.start && i < end:
				kept = append(kept, l)
			case rustdoc:
				kept = append(kept, "# "+l)
			}
		}
		return strings.Join(kept, "\n"), m.start < len(lines) || len(lines) == 0 && m.start == 0
	}
	in := false
	for _, l := range lines {
		if in {
			if c := mdbookAnchorEnd.FindStringSubmatch(l); c != nil {
				if c[1] == m.anchor {
					in = false
					if !rustdoc {
						break
					}
				}
				continue
			}
			if !mdbookAnchorStart.MatchString(l) {
				kept = append(kept, l)
			}
			continue
		}
		if c := mdbookAnchorStart.FindStringSubmatch(l); c != nil {
			if c[1] == m.anchor {
				in, found = true, true
			}
			continue
		}
		if rustdoc && !mdbookAnchorEnd.MatchString(l) {
			kept = append(kept, "# "+l)
		}
	}
	return strings.Join(kept, "\n"), found
}

// mdbook expands mdBook's {{#include}}, {{#rustdoc_include}} and
// {{#playground}} directives of text, relative to the folder of w's file,
// and the directives of what they include, as mdBook's links preprocessor
// does.
func (r *pageRun) mdbook(text string, w where) string {
	matches := mdbookLink.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	prev, lineOff, line := 0, 0, 0
	for _, m := range matches {
		if r.stopped() {
			return text
		}
		b.WriteString(text[prev:m[0]])
		prev = m[1]
		directive := text[m[0]:m[1]]
		if m[2] < 0 {
			b.WriteString(directive[1:]) // escaped: served without the backslash
			continue
		}
		line = lineAt(text, m[0], lineOff, line)
		lineOff = m[0]
		out, ok := r.mdbookOne(text[m[2]:m[3]], text[m[4]:m[5]], directive, w, line)
		if !ok {
			out = directive
		}
		b.WriteString(out)
	}
	b.WriteString(text[prev:])
	return b.String()
}

// mdbookOne expands one directive of type typ and arguments args, at the
// 0-based line of w's text; ok is false where it stays as written.
func (r *pageRun) mdbookOne(typ, args, directive string, w where, line int) (string, bool) {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return "", false
	}
	file, spec, _ := strings.Cut(fields[0], ":")
	loc := w.at(line)
	switch typ {
	case "include", "rustdoc_include", "playground", "playpen":
	default:
		return "", false // {{#title}} and others are not includes
	}
	name, ok := r.resolve(path.Dir(w.file), file, loc, directive)
	content, ok := r.fetch(w, loc, directive, name, ok)
	if !ok {
		return "", false
	}
	first := 1
	switch typ {
	case "playground", "playpen":
		info := "rust"
		if len(fields) > 1 {
			info += "," + strings.Join(fields[1:], ",")
		}
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		content = "```" + info + "\n" + content + "```\n"
	default:
		rg := parseMdbookRange(spec)
		var found bool
		content, found = rg.take(content, typ == "rustdoc_include")
		if !found {
			what := "the anchor " + strconv.Quote(rg.anchor)
			kind := "missing anchor: "
			if rg.anchor == "" {
				what, kind = "line "+strconv.Itoa(rg.start+1), "missing range: "
			}
			r.warn(loc, kind+strconv.Quote(directive)+" names "+what+", which "+name+" does not have", "the directive is left as written, fix the anchor or range")
			return "", false
		}
		if rg.anchor == "" && typ == "include" {
			first = rg.start + 1
		}
	}
	r.x.Expanded++
	return r.mdbook(content, where{file: name, line: first, depth: w.depth + 1, via: loc}), true
}

// hideRustLines leaves out the lines mdBook hides in a Rust code block
// ("# " or a lone "#", which rustdoc compiles and the rendered page does
// not show), and serves "##" as "#", as mdBook renders it.
func hideRustLines(text string) string {
	if !strings.Contains(text, "#") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	var fence string // the open fence's marker; "" outside a fence
	rust := false
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if fence == "" {
			if f := fenceMarker(t); f != "" {
				fence = f
				info := strings.TrimSpace(t[len(f):])
				lang, _, _ := strings.Cut(strings.NewReplacer(",", " ", "{", " ").Replace(info), " ")
				rust = lang == "rust"
			}
			out = append(out, l)
			continue
		}
		if f := fenceMarker(t); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(t[len(f):]) == "" {
			fence, rust = "", false
			out = append(out, l)
			continue
		}
		if rust && strings.HasPrefix(t, "#") {
			switch {
			case t == "#" || strings.HasPrefix(t, "# "):
				continue
			case strings.HasPrefix(t, "##"):
				l = l[:len(l)-len(t)] + t[1:]
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// fenceMarker returns the run of three or more backticks or tildes a line
// (without its indentation) opens with, "" for none.
func fenceMarker(t string) string {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return ""
	}
	return t[:n]
}
