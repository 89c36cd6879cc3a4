package source

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Mintlify's snippets (its reusable snippets, with --mintlify-snippets
// expand): an MDX or Markdown file imported into a page, as a component
// (import X from "/snippets/x.mdx", then <X /> or <X word="v" /> in the
// page) or for the string constants it exports (import { name } from
// "/snippets/x.mdx", then {name} in the page). A path starting with "/"
// starts at the tree folder, any other at the importing file's folder.
// Each file resolves its own imports, so a snippet's nested snippets are
// those it imports itself. Imports of other files (.jsx components,
// packages) are left as written: they hold no text to serve.
var (
	// mintImport matches an import statement at the start of a line:
	// a default import (group 1) or named imports (group 2), and the
	// path (group 3 or 4).
	mintImport = regexp.MustCompile(`(?m)^import[ \t]+(?:([A-Za-z_$][\w$]*)|\{([^}]*)\})[ \t]+from[ \t]+(?:"([^"\n]+)"|'([^'\n]+)')[ \t]*;?[ \t]*(?:\n|$)`)
	// mintTag matches a self-closing JSX tag with a capitalised name
	// (group 1) and its attributes (group 2), or an empty element
	// (<X ...></X>).
	mintTag = regexp.MustCompile(`<([A-Z][\w$]*)((?:\s+(?:[^<>"'{}/]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?)\s*(?:/>|>\s*</([A-Z][\w$]*)>)`)
	// mintAttr matches one attribute: a name and a quoted value, a
	// {"string"}, {'string'} or {`template`} without ${}, a {number},
	// {identifier} or a bare name.
	mintAttr = regexp.MustCompile(`([A-Za-z_$][\w$-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*(?:"([^"]*)"|'([^']*)'|` + "`([^`$]*)`" + `|(-?\d+(?:\.\d+)?)|([A-Za-z_$][\w$]*))\s*\}))?`)
	// mintVar matches {name} or {props.name} in a text.
	mintVar = regexp.MustCompile(`\{\s*(?:props\.)?([A-Za-z_$][\w$]*)\s*\}`)
	// mintExport matches an exported constant given a string literal.
	mintExport = regexp.MustCompile(`^export[ \t]+(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|` + "`([^`$]*)`" + `)[ \t]*;?[ \t]*$`)
	// mintExportName matches the name any other export statement
	// declares.
	mintExportName = regexp.MustCompile(`^export[ \t]+(?:const|let|var|function|class|async[ \t]+function)[ \t]+([A-Za-z_$][\w$]*)`)
)

// snippetImport is one imported name of a page or snippet: the file it is
// imported from and, for a named import, the export it names ("" for the
// default import, the file's content).
type snippetImport struct {
	file   string // resolved, relative to the tree folder
	spec   string // the path as written
	export string
	line   int  // 0-based line of the import statement
	failed bool // a use of it was left as written
	ok     bool // the path resolved inside the folder
}

// snippetFile is a snippet file parsed: its text after its front matter
// with its ESM statements blanked (its snippet imports aside, which its
// own tags need), the line of the file its first line is, the string
// constants it exports and the names of its other exports.
type snippetFile struct {
	body   string
	first  int
	strs   map[string]string
	others map[string]bool
}

// isSnippetPath reports whether an import's path names a snippet file of
// text: an .mdx or .md file.
func isSnippetPath(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return (ext == ".mdx" || ext == ".md") && !strings.Contains(p, "://")
}

// mintlify expands the uses of the snippets text imports as Mintlify
// renders them: a tag of a default import is the snippet's content, a
// {name} of a named import the string constant it names. props are the
// values passed to the snippet whose text this is (nil for a page), which
// fill its {name}s, in code blocks too. An import none of whose uses was
// left as written is left out, as Mintlify shows none.
func (r *pageRun) mintlify(text string, w where, props map[string]string) string {
	found := mintImport.FindAllStringSubmatchIndex(text, -1)
	if found == nil && props == nil {
		return text
	}
	code := fencedLines(text)
	lineStart := lineStarts(text)
	inCode := func(off int) bool {
		l := lineOf(lineStart, off)
		return code[l]
	}
	// The imports, by local name.
	imports := map[string]*snippetImport{}
	var importSpans [][]int
	var importNames [][]string
	for _, m := range found {
		if inCode(m[0]) {
			continue
		}
		spec := sub(text, m, 3) + sub(text, m, 4)
		if !isSnippetPath(spec) {
			continue
		}
		line := lineOf(lineStart, m[0])
		loc := w.at(line)
		directive := strings.TrimRight(text[m[0]:m[1]], "\n")
		base := path.Dir(w.file)
		p := spec
		if rest, abs := strings.CutPrefix(p, "/"); abs {
			base, p = r.x.Rules.Root, rest
		}
		if base == "" {
			base = "."
		}
		name, ok := r.resolve(base, p, loc, directive)
		var names []string
		if d := sub(text, m, 1); d != "" {
			imports[d] = &snippetImport{file: name, spec: spec, line: line, ok: ok}
			names = append(names, d)
		} else {
			for _, part := range strings.Split(sub(text, m, 2), ",") {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				exp, local, as := strings.Cut(part, " as ")
				exp = strings.TrimSpace(exp)
				if as {
					local = strings.TrimSpace(local)
				} else {
					local = exp
				}
				imports[local] = &snippetImport{file: name, spec: spec, export: exp, line: line, ok: ok}
				names = append(names, local)
			}
		}
		importSpans = append(importSpans, m[:2])
		importNames = append(importNames, names)
	}
	if len(imports) == 0 && props == nil {
		return text
	}
	var b strings.Builder
	prev := 0
	// The uses: tags of default imports, {name} of named ones and, in a
	// snippet, {prop} of the props passed to it.
	type use struct {
		start, end int
		out        string
	}
	var uses []use
	for _, m := range mintTag.FindAllStringSubmatchIndex(text, -1) {
		if r.stopped() {
			return text
		}
		tag := text[m[2]:m[3]]
		if m[6] >= 0 && text[m[6]:m[7]] != tag {
			continue
		}
		im := imports[tag]
		if im == nil || inCode(m[0]) || inInlineCode(text, lineStart, m[0]) {
			continue
		}
		line := lineOf(lineStart, m[0])
		directive := text[m[0]:m[1]]
		out, ok := r.snippetTag(im, tag, sub(text, m, 2), directive, w, line, props)
		if !ok {
			im.failed = true
			continue
		}
		// The snippet's lines after the first are indented as the tag is.
		if indent := text[lineStart[line]:m[0]]; indent != "" && strings.TrimLeft(indent, " \t") == "" {
			out = indentLines(out, indent)
		}
		uses = append(uses, use{m[0], m[1], out})
	}
	for _, m := range mintVar.FindAllStringSubmatchIndex(text, -1) {
		if r.stopped() {
			return text
		}
		name := text[m[2]:m[3]]
		isProps := strings.Contains(text[m[0]:m[1]], "props.")
		if m[0] > 0 && text[m[0]-1] == '=' || inSpans(importSpans, m[0]) {
			continue // an attribute's value, read when its tag is; an import
		}
		if props != nil {
			// A snippet's props interpolate in its code blocks too.
			if v, ok := props[name]; ok {
				uses = append(uses, use{m[0], m[1], v})
				continue
			}
		}
		im := imports[name]
		if im == nil || isProps || im.export == "" || inCode(m[0]) || inInlineCode(text, lineStart, m[0]) {
			continue
		}
		line := lineOf(lineStart, m[0])
		out, ok := r.snippetVar(im, name, text[m[0]:m[1]], w, line)
		if !ok {
			im.failed = true
			continue
		}
		uses = append(uses, use{m[0], m[1], out})
	}
	for i, s := range importSpans {
		keep := false
		for _, n := range importNames[i] {
			keep = keep || imports[n].failed || !imports[n].ok
		}
		if !keep {
			uses = append(uses, use{s[0], s[1], ""})
		}
	}
	if len(uses) == 0 {
		return text
	}
	slices.SortStableFunc(uses, func(a, b use) int { return a.start - b.start })
	for _, u := range uses {
		if u.start < prev {
			continue // overlaps one taken already
		}
		b.WriteString(text[prev:u.start])
		b.WriteString(u.out)
		prev = u.end
	}
	b.WriteString(text[prev:])
	return b.String()
}

// indentLines indents every line of s after its first that is not
// blank by indent.
func indentLines(s, indent string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			lines[i] = indent + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// sub returns group g of a submatch index m of text, "" where it did not
// take part.
func sub(text string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return text[m[2*g]:m[2*g+1]]
}

// snippetTag returns the text of the snippet a tag renders, with the
// props its attributes pass (an attribute {name} takes the value of the
// enclosing snippet's prop name); ok is false, with a warning, where the
// tag stays as written.
func (r *pageRun) snippetTag(im *snippetImport, tag, attrs, directive string, w where, line int, scope map[string]string) (string, bool) {
	loc := w.at(line)
	if im.export != "" {
		r.warn(loc, "not a snippet: "+strconv.Quote(directive)+" renders the export "+im.export+" of "+im.spec+", a component rather than the file's text", "the tag is left as written")
		return "", false
	}
	f, ok := r.snippetFile(im, loc, directive, w)
	if !ok {
		return "", false
	}
	props := map[string]string{}
	for _, a := range mintAttr.FindAllStringSubmatch(attrs, -1) {
		switch {
		case a[8] != "":
			if v, ok := scope[a[8]]; ok {
				props[a[1]] = v
			}
		case a[0] == a[1]:
			props[a[1]] = "true"
		default:
			props[a[1]] = strings.Join(a[2:8], "")
		}
	}
	r.x.Expanded++
	out := r.mintlify(f.body, where{file: im.file, line: f.first, depth: w.depth + 1, via: loc}, props)
	return strings.Trim(out, "\n"), true
}

// snippetVar returns the value of the string constant a {name} of a page
// names; ok is false, with a warning, where it stays as written.
func (r *pageRun) snippetVar(im *snippetImport, name, directive string, w where, line int) (string, bool) {
	loc := w.at(line)
	f, ok := r.snippetFile(im, loc, directive, w)
	if !ok {
		return "", false
	}
	if v, ok := f.strs[im.export]; ok {
		r.x.Expanded++
		return v, true
	}
	if f.others[im.export] {
		r.warn(loc, "not a text: "+strconv.Quote(directive)+" names the export "+im.export+" of "+im.file+", which is not a string constant", "the expression is left as written")
	} else {
		r.warn(loc, "missing name: "+strconv.Quote(directive)+" names "+im.export+", which "+im.file+" does not export", "the expression is left as written, fix the import")
	}
	return "", false
}

// snippetFile reads and parses the snippet file of an import, within the
// depth and byte bounds; ok is false, with a warning, where it cannot.
func (r *pageRun) snippetFile(im *snippetImport, loc, directive string, w where) (*snippetFile, bool) {
	text, ok := r.fetch(w, loc, directive, im.file, im.ok)
	if !ok {
		return nil, false
	}
	body, fm := stripFrontMatter(text)
	return parseSnippet(body, 1+fm), true
}

// parseSnippet reads a snippet's text (after its front matter, whose
// first line is line first of the file): its exports are read and, like
// its imports of other than snippets, blanked, so that its lines keep
// their places in the file; what Mintlify renders of it is the rest.
func parseSnippet(text string, first int) *snippetFile {
	f := &snippetFile{first: first, strs: map[string]string{}, others: map[string]bool{}}
	lines := strings.Split(text, "\n")
	code := fencedLines(text)
	depth := 0
	inESM, keep := false, false
	for i, l := range lines {
		if !inESM && !code[i] && (strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "export ")) {
			inESM, depth = true, 0
			keep = false
			if m := mintImport.FindStringSubmatch(l); m != nil && isSnippetPath(m[3]+m[4]) {
				keep = true
			} else if m := mintExport.FindStringSubmatch(l); m != nil {
				f.strs[m[1]] = jsString(m[2:5])
			} else if m := mintExportName.FindStringSubmatch(l); m != nil {
				f.others[m[1]] = true
			}
		}
		if !inESM {
			continue
		}
		depth += bracketDepth(l)
		if !keep {
			lines[i] = ""
		}
		if depth <= 0 && (i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == "" || strings.HasPrefix(lines[i+1], "import ") || strings.HasPrefix(lines[i+1], "export ")) {
			inESM = false
		}
	}
	f.body = strings.Join(lines, "\n")
	return f
}

// jsString returns the value of a JavaScript string literal's body given
// as its double-quoted, single-quoted or template form (one of them set).
func jsString(forms []string) string {
	switch {
	case forms[0] != "":
		if v, err := strconv.Unquote(`"` + forms[0] + `"`); err == nil {
			return v
		}
		return forms[0]
	case forms[1] != "":
		v := strings.ReplaceAll(strings.ReplaceAll(forms[1], `\'`, `'`), `"`, `\"`)
		if u, err := strconv.Unquote(`"` + v + `"`); err == nil {
			return u
		}
		return forms[1]
	}
	return forms[2]
}

// bracketDepth returns how many more brackets a line of code opens than
// it closes, outside its string literals.
func bracketDepth(l string) int {
	d := 0
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			d++
		case c == ')' || c == ']' || c == '}':
			d--
		}
	}
	return d
}

// fencedLines reports, for each line of text, whether it is inside a
// fenced code block or is one of its fences (at any indentation: MDX
// fences may be indented inside a component).
func fencedLines(text string) []bool {
	lines := strings.Split(text, "\n")
	out := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if fence == "" {
			if f := fenceMarker(t); f != "" {
				fence = f
				out[i] = true
			}
			continue
		}
		out[i] = true
		if f := fenceMarker(t); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(t[len(f):]) == "" {
			fence = ""
		}
	}
	return out
}

// lineStarts returns the byte offset of each line of text.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the 0-based line of byte offset off, given lineStarts.
func lineOf(starts []int, off int) int {
	lo, hi := 0, len(starts)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// inInlineCode reports whether offset off of text is inside an inline
// code span of its line: an odd number of backticks before it.
func inInlineCode(text string, starts []int, off int) bool {
	return strings.Count(text[starts[lineOf(starts, off)]:off], "`")%2 == 1
}
