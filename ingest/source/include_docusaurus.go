package source

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Docusaurus's form: a file imported raw (import X from
// '!!raw-loader!./file') and shown as <CodeBlock language="…">{X}</CodeBlock>.
var (
	rawImport = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+([A-Za-z_$][\w$]*)[ \t]+from[ \t]+(?:'!!?raw-loader!([^'\n]+)'|"!!?raw-loader!([^"\n]+)")`)
	codeBlock = regexp.MustCompile(`(?s)<CodeBlock\b([^>]*)>\s*\{\s*([A-Za-z_$][\w$]*)\s*\}\s*</CodeBlock>`)
	jsxAttr   = regexp.MustCompile(`([A-Za-z]+)=(?:"([^"]*)"|'([^']*)'|\{\s*(?:"([^"]*)"|'([^']*)'|` + "`([^`]*)`" + `)\s*\})`)
)

// rawLoader replaces each <CodeBlock>{X}</CodeBlock> whose X a raw-loader
// import names with a fence holding the file, of the block's language and
// title, as Docusaurus renders it; the import's path is relative to the
// page, "@site/" to the site's folder.
func (r *pageRun) rawLoader(text string, w where) string {
	if !strings.Contains(text, "raw-loader!") || !strings.Contains(text, "<CodeBlock") {
		return text
	}
	imports := map[string]string{}
	for _, m := range rawImport.FindAllStringSubmatch(text, -1) {
		imports[m[1]] = m[2] + m[3]
	}
	matches := codeBlock.FindAllStringSubmatchIndex(text, -1)
	var b strings.Builder
	prev, lineOff, line := 0, 0, 0
	for _, m := range matches {
		if r.stopped() {
			return text
		}
		p, ok := imports[text[m[4]:m[5]]]
		if !ok {
			continue
		}
		line = lineAt(text, m[0], lineOff, line)
		lineOff = m[0]
		directive := text[m[0]:m[1]]
		loc := w.at(line)
		var name string
		if rest, at := strings.CutPrefix(p, "@site/"); at {
			name, ok = r.resolve(r.x.Rules.Root, rest, loc, directive)
		} else {
			name, ok = r.resolve(path.Dir(w.file), p, loc, directive)
		}
		content, ok := r.fetch(w, loc, directive, name, ok)
		if !ok {
			continue
		}
		lang, title := "", ""
		for _, a := range jsxAttr.FindAllStringSubmatch(text[m[2]:m[3]], -1) {
			v := strings.Join(a[2:], "")
			switch a[1] {
			case "language":
				lang = v
			case "title":
				title = v
			}
		}
		info := lang
		if title != "" {
			info += " title=" + strconv.Quote(title)
		}
		start := strings.LastIndexByte(text[:m[0]], '\n') + 1
		indent := text[start:m[0]]
		if strings.TrimLeft(indent, " \t") != "" {
			indent = ""
		}
		b.WriteString(text[prev:m[0]])
		b.WriteString(strings.TrimPrefix(codeFence(indent, info, content), indent))
		prev = m[1]
		r.x.Expanded++
	}
	if prev == 0 {
		return text
	}
	b.WriteString(text[prev:])
	return b.String()
}
