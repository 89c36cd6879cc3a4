package source

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// pymdownx.snippets's forms, as its preprocessor reads them: a line
// `--8<-- "file"` (any number of dashes either side; a leading ";"
// escapes it), a block of file lines between two `--8<--` lines, and
// `--8<-- [start:name]` / `[end:name]` section markers in a file.
var (
	snipAll     = regexp.MustCompile(`^([ \t]*)(;*)(?:(-+8<-+[ \t]+)("(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?')|(-+8<-+))\r?$`)
	snipBlock   = regexp.MustCompile(`^([ \t]*)(.*?)\r?$`)
	snipSection = regexp.MustCompile(`(?i)^(.*?)(;*)(-+8<-+[ \t]+)(\[[ \t]*(start|end)[ \t]*:[ \t]*([a-z][-_0-9a-z]*)[ \t]*\])(.*?)$`)
	snipFile    = regexp.MustCompile(`(?i)^(.*?)(?:(:[0-9]*)?(:[0-9]*)?|(:[a-z][-_0-9a-z]*)?)$`)
	// fastAPIHook is FastAPI's own include form (markdown_include_variants),
	// which its build adds to MkDocs.
	fastAPIHook = regexp.MustCompile(`\{\*\s*(\S+)[^\n]*?\*\}`)
)

// MkDocsSnippets reads whether a mkdocs.yml's markdown_extensions (a list
// of names and one-key mappings, or a mapping) enables pymdownx.snippets,
// and its base_path entries (default "."), relative to the folder of the
// configuration, which is where mkdocs builds from.
func MkDocsSnippets(root *yaml.Node) Includes {
	inc := Includes{Form: IncludeMkDocs}
	for i := 0; root != nil && root.Kind == yaml.MappingNode && i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "markdown_extensions" {
			continue
		}
		ext := root.Content[i+1]
		var conf *yaml.Node
		switch ext.Kind {
		case yaml.SequenceNode:
			for _, e := range ext.Content {
				switch {
				case e.Kind == yaml.ScalarNode && e.Value == "pymdownx.snippets":
					inc.Snippets = true
				case e.Kind == yaml.MappingNode && len(e.Content) == 2 && e.Content[0].Value == "pymdownx.snippets":
					inc.Snippets, conf = true, e.Content[1]
				}
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(ext.Content); j += 2 {
				if ext.Content[j].Value == "pymdownx.snippets" {
					inc.Snippets, conf = true, ext.Content[j+1]
				}
			}
		}
		for j := 0; conf != nil && conf.Kind == yaml.MappingNode && j+1 < len(conf.Content); j += 2 {
			if conf.Content[j].Value != "base_path" {
				continue
			}
			switch v := conf.Content[j+1]; v.Kind {
			case yaml.ScalarNode:
				inc.BasePaths = append(inc.BasePaths, v.Value)
			case yaml.SequenceNode:
				for _, e := range v.Content {
					inc.BasePaths = append(inc.BasePaths, e.Value)
				}
			}
		}
	}
	if inc.Snippets && inc.BasePaths == nil {
		inc.BasePaths = []string{"."}
	}
	return inc
}

// snippetPath finds a snippet's file under the base paths, as
// pymdownx.snippets does with restrict_base_path: the first base path
// under which it exists; a base path naming a file matches that file.
func (r *pageRun) snippetPath(p string) (string, bool) {
	if path.IsAbs(p) {
		return "", false
	}
	for _, base := range r.x.Rules.BasePaths {
		b := path.Clean(base)
		if b == ".." || strings.HasPrefix(b, "../") || path.IsAbs(b) {
			continue
		}
		if path.Join(path.Dir(b), p) == b && r.x.Dir.Exists(b) {
			return b, true // a base path naming a file
		}
		j := path.Join(b, p)
		if b == "." && (j == ".." || strings.HasPrefix(j, "../")) || b != "." && !strings.HasPrefix(j, b+"/") {
			continue // restrict_base_path
		}
		if r.x.Dir.Exists(j) {
			return j, true
		}
	}
	return "", false
}

// snippets expands the snippet lines of lines' text, and those of the
// files they include, as pymdownx.snippets does; seen holds the files
// being included (one including itself is left as written).
func (r *pageRun) snippets(text string, w where, seen []string) string {
	if !strings.Contains(text, "8<") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines))
	block := false
	for i, l := range lines {
		if r.stopped() {
			return text
		}
		m := snipAll.FindStringSubmatch(l)
		inline := false
		var space, p string
		switch {
		case m != nil && m[2] != "":
			out = append(out, strings.Replace(l, ";", "", 1)) // escaped: served without the ";"
			continue
		case m != nil && m[3] != "":
			if block {
				continue // an inline line directly in a block is ignored
			}
			inline, space, p = true, m[1], strings.TrimSpace(m[4][1:len(m[4])-1])
		case m != nil:
			block = !block
			continue
		case !block:
			out = append(out, l)
			continue
		default:
			b := snipBlock.FindStringSubmatch(l)
			space, p = b[1], strings.TrimSpace(b[2])
			if p == "" {
				out = append(out, "")
				continue
			}
		}
		if strings.HasPrefix(p, ";") {
			continue // a commented-out path
		}
		directive := strings.TrimSpace(l)
		if !inline {
			directive = "--8<-- " + p
		}
		if got, ok := r.snippetOne(p, directive, w, i, seen); ok {
			for _, g := range got {
				out = append(out, strings.ReplaceAll(space, "\t", "    ")+g)
			}
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func (r *pageRun) snippetOne(spec, directive string, w where, line int, seen []string) ([]string, bool) {
	loc := w.at(line)
	f := snipFile.FindStringSubmatch(spec)
	p := strings.TrimSpace(f[1])
	if p == "" {
		return nil, false
	}
	start, end, section := 0, -1, ""
	if len(f[2]) > 1 {
		n, _ := strconv.Atoi(f[2][1:])
		start = max(n-1, 0)
	}
	if len(f[3]) > 1 {
		end, _ = strconv.Atoi(f[3][1:])
	}
	if len(f[4]) > 1 {
		section = f[4][1:]
	}
	if !r.deeper(w, loc, directive) {
		return nil, false
	}
	name, ok := r.snippetPath(p)
	if !ok {
		r.warn(loc, "missing file: "+strconv.Quote(directive)+" names "+p+", which is under no base_path of pymdownx.snippets ("+strings.Join(r.x.Rules.BasePaths, ", ")+") inside the tree folder", "the directive is left as written, fix its path")
		return nil, false
	}
	for _, s := range seen {
		if s == name {
			r.warn(loc, "snippet cycle: "+strconv.Quote(directive)+" includes "+name+", which is being included already", "the directive is left as written, remove the cycle")
			return nil, false
		}
	}
	content, ok := r.read(name, loc, directive)
	if !ok {
		return nil, false
	}
	lines := splitLines(content)
	first := 1
	switch {
	case len(f[2]) > 1 || len(f[3]) > 1:
		e := len(lines)
		if end >= 0 && end < e {
			e = end
		}
		if start >= e {
			r.warn(loc, "missing range: "+strconv.Quote(directive)+" names lines "+f[2]+f[3]+", which "+name+" does not have", "the directive is left as written, fix the range")
			return nil, false
		}
		lines, first = lines[start:e], start+1
	case section != "":
		var found bool
		if lines, found = snippetSection(lines, section); !found {
			r.warn(loc, "missing section: "+strconv.Quote(directive)+" names the section "+strconv.Quote(section)+", which "+name+" does not have", "the directive is left as written, fix the section")
			return nil, false
		}
	}
	r.x.Expanded++
	nested := r.snippets(strings.Join(lines, "\n"), where{file: name, line: first, depth: w.depth + 1, via: loc}, append(seen[:len(seen):len(seen)], name))
	if nested == "" && len(lines) == 0 {
		return nil, true
	}
	return strings.Split(nested, "\n"), true
}

// snippetSection returns the lines of the section name, as pymdownx's
// extract_section does: other sections' markers left out, an escaped
// marker served without its ";".
func snippetSection(lines []string, name string) ([]string, bool) {
	var out []string
	in, found := false, false
	for _, l := range lines {
		m := snipSection.FindStringSubmatch(l)
		switch {
		case m != nil && in && m[2] != "":
			l = m[1] + strings.Replace(m[2], ";", "", 1) + m[3] + m[4] + m[7]
		case m != nil && m[6] == name:
			if !in && strings.EqualFold(m[5], "start") {
				in, found = true, true
				continue
			}
			if in && strings.EqualFold(m[5], "start") {
				continue
			}
			return out, found
		case m != nil && in:
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return out, found
}

// fastAPIHooks warns about each {* … *} of a page: FastAPI's own build
// hook, not a form of MkDocs, whose code is not included.
func (r *pageRun) fastAPIHooks(text string, w where) {
	if !strings.Contains(text, "{*") {
		return
	}
	lineOff, line := 0, 0
	for _, m := range fastAPIHook.FindAllStringSubmatchIndex(text, -1) {
		line = lineAt(text, m[0], lineOff, line)
		lineOff = m[0]
		r.warn(w.at(line), "FastAPI hook: "+strconv.Quote(text[m[0]:m[1]])+" is FastAPI's own include hook (markdown_include_variants), not an MkDocs form; the code of "+text[m[2]:m[3]]+" is not included",
			"the directive is served as written")
	}
}
