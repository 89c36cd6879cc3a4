package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Nextra reads a Nextra folder: the pages below pages/ (Nextra 2 and 3),
// content/ (Nextra 4) or the folder itself, ordered folder by folder by
// the folder's _meta file (_meta.json, or a _meta.js, .mjs, .ts, .jsx or
// .tsx module whose default export is an object literal, read as data and
// never run): its keys first, in order, each titled by its value (a
// string, or an object's title), then the folder's other pages and
// folders by name. A key whose value is a separator, a link (href) or
// display "hidden" is not a page of the navigation. A folder is the group
// of its pages, labelled by its parent's _meta title, else its name. A
// _meta module the reader cannot read as data falls back to the order by
// name, with a warning naming the file and line.
type Nextra struct{}

var _ Source = Nextra{}

// metaNames are the names of a folder's _meta file, in the order looked for.
var metaNames = []string{"_meta.json", "_meta.js", "_meta.mjs", "_meta.ts", "_meta.jsx", "_meta.tsx"}

// Format implements Source.
func (Nextra) Format() string { return "nextra" }

// Recognises implements Source: the folder, its pages/ or its content/
// holds a _meta file.
func (Nextra) Recognises(dir *sitefs.Folder) bool { return nextraRoot(dir) != "" }

func nextraRoot(dir *sitefs.Folder) string {
	for _, root := range []string{"pages", "content", "."} {
		for _, m := range metaNames {
			if dir.Exists(path.Join(root, m)) {
				return root
			}
		}
	}
	return ""
}

// metaEntry is one key of a _meta file.
type metaEntry struct {
	key, title string
	skip       *SkipKind // a separator, a link or hidden; nil for a page
	line       int
}

// Read implements Source.
func (Nextra) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	root := nextraRoot(dir)
	if root == "" {
		root = "."
	}
	w := &walker{ctx: ctx, dir: dir, opts: opts, skip: func(name string, isDir bool) bool {
		return strings.HasPrefix(name, "_") || root == "." && isDir && (name == "public" || name == "components")
	}}
	top, err := w.walk(root, 0, nil)
	if err != nil {
		return nil, err
	}
	t := &Tree{HeadingTitles: true}
	for _, m := range metaNames {
		if n := path.Join(root, m); dir.Exists(n) {
			t.Navigation = n
			break
		}
	}
	l := newLister(t)
	var visit func(e *entry, group []string) error
	visit = func(e *entry, group []string) error {
		metas, metaFile, err := readMeta(ctx, dir, e.rel, opts, t)
		if err != nil {
			return err
		}
		byKey := map[string]*entry{}
		for _, c := range e.children {
			if !c.dir {
				byKey[strings.TrimSuffix(c.name, path.Ext(c.name))] = c
			}
		}
		done := map[*entry]bool{}
		emit := func(c *entry, title string, line int) error {
			done[c] = true
			if c.dir {
				if title == "" {
					title = humanise(c.name)
				}
				return visit(c, append(append([]string(nil), group...), title))
			}
			rel := strings.TrimPrefix(c.rel, root+"/")
			if root == "." {
				rel = c.rel
			}
			p := Page{Path: pagePath(rel), File: c.rel, ListedIn: c.rel, Title: title, Group: group}
			if metaFile != "" && line > 0 {
				p.ListedIn, p.Pointer = metaFile, fmt.Sprint(line)
			}
			l.add(p)
			return nil
		}
		// A folder's index page comes first unless its _meta places it.
		placed := map[string]bool{}
		for _, m := range metas {
			placed[m.key] = true
		}
		if c, ok := byKey["index"]; ok && !c.dir && !placed["index"] {
			if err := emit(c, "", 0); err != nil {
				return err
			}
		}
		for _, m := range metas {
			if m.key == "*" {
				continue
			}
			var cs []*entry
			for _, c := range e.children {
				k := c.name
				if !c.dir {
					k = strings.TrimSuffix(k, path.Ext(k))
				}
				if k == m.key && !done[c] {
					cs = append(cs, c)
				}
			}
			// A page and a folder of one name: the page first.
			sort.SliceStable(cs, func(i, j int) bool { return !cs[i].dir && cs[j].dir })
			if m.skip != nil {
				for _, c := range cs {
					done[c] = true
				}
				t.skip(*m.skip)
				continue
			}
			if len(cs) == 0 {
				t.skip(skipMetaMissing)
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: the key %q names no page or folder in %s and is left out; remove it, or add the page", metaFile, m.line, m.key, e.rel))
				continue
			}
			for _, c := range cs {
				if err := emit(c, m.title, m.line); err != nil {
					return err
				}
			}
		}
		for _, c := range e.children {
			if !done[c] {
				if err := emit(c, "", 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := visit(top, nil); err != nil {
		return nil, err
	}
	return t, nil
}

// readMeta reads the _meta file of the folder rel, if any: its entries in
// order and its name. A module that does not read as data is a warning
// and no entries.
func readMeta(ctx context.Context, dir *sitefs.Folder, rel string, opts Options, t *Tree) ([]metaEntry, string, error) {
	for _, m := range metaNames {
		name := path.Join(rel, m)
		if !dir.Exists(name) {
			continue
		}
		data, err := readNav(ctx, dir, name, opts)
		if err != nil {
			return nil, name, err
		}
		// The guard every navigation module passes before a parser
		// meets it, with the bounds of the other formats' modules.
		ext := path.Ext(m)
		if err := jsGuard(ctx, name, data, ext == ".jsx" || ext == ".tsx", jsDefaults(opts)); err != nil {
			if errors.Is(err, errJSUnread) && ext != ".json" {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s, which is not read as data (the module is never run); the folder's pages are ordered by name instead. Write the default export as an object literal of strings and objects, or use _meta.json", err))
				return nil, name, nil
			}
			return nil, name, err
		}
		var obj *jsObject
		if strings.HasSuffix(m, ".json") {
			obj, err = parseJSObject(string(data), false, opts)
		} else {
			obj, err = parseJSObject(string(data), true, opts)
		}
		if err != nil {
			if pe, ok := err.(*jsError); ok && !strings.HasSuffix(m, ".json") {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: %s, which is not read as data (the module is never run); the folder's pages are ordered by name instead. Write the default export as an object literal of strings and objects, or use _meta.json", name, pe.line, pe.msg))
				return nil, name, nil
			}
			line := 0
			if pe, ok := err.(*jsError); ok {
				line = pe.line
			}
			return nil, name, &Error{File: name, Line: line, Problem: err.Error(), Fix: "write the file as one JSON object of keys to titles or objects"}
		}
		var out []metaEntry
		for _, kv := range obj.members {
			e := metaEntry{key: kv.key, line: kv.line}
			switch v := kv.value.(type) {
			case string:
				e.title = v
			case *jsObject:
				for _, f := range v.members {
					s, _ := f.value.(string)
					switch f.key {
					case "title":
						e.title = s
					case "type":
						if s == "separator" && e.skip == nil {
							e.skip = &skipMetaSep
						}
					case "href":
						e.skip = &skipMetaLink
					case "display":
						if s == "hidden" && e.skip == nil {
							e.skip = &skipMetaHidden
						}
					}
				}
			}
			out = append(out, e)
		}
		return out, name, nil
	}
	return nil, "", nil
}

// jsObject is an object literal read as data: its members in order.
type jsObject struct {
	members []jsMember
}

type jsMember struct {
	key   string
	value any // string, float64, bool, nil, *jsObject or []any
	line  int
}

type jsError struct {
	line int
	msg  string
}

func (e *jsError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// parseJSObject reads src, a JSON object or (module) a JavaScript module
// whose default export is an object literal, as data: string, number,
// boolean and null values, objects and arrays, comments and trailing
// commas; anything else (a name, a call, a spread, a template with a
// substitution) is an error naming its line.
func parseJSObject(src string, module bool, opts Options) (*jsObject, error) {
	p := &jsParser{src: src, line: 1, opts: opts}
	if module {
		i := strings.Index(src, "export default")
		if i < 0 {
			return nil, &jsError{line: 1, msg: "the module has no \"export default\""}
		}
		p.line += strings.Count(src[:i], "\n")
		p.pos = i + len("export default")
	}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*jsObject)
	if !ok {
		return nil, &jsError{line: p.line, msg: "the default export is not an object literal"}
	}
	return obj, nil
}

type jsParser struct {
	src   string
	pos   int
	line  int
	nodes int
	opts  Options
}

func (p *jsParser) fail(msg string) error { return &jsError{line: p.line, msg: msg} }

// space skips white space and comments.
func (p *jsParser) space() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case strings.HasPrefix(p.src[p.pos:], "/*"):
			end := strings.Index(p.src[p.pos+2:], "*/")
			if end < 0 {
				p.pos = len(p.src)
				return
			}
			p.line += strings.Count(p.src[p.pos:p.pos+2+end], "\n")
			p.pos += end + 4
		default:
			return
		}
	}
}

func (p *jsParser) value(depth int) (any, error) {
	if depth > p.opts.MaxDepth {
		return nil, p.fail(fmt.Sprintf("the object nests deeper than the bound of %d", p.opts.MaxDepth))
	}
	if p.nodes++; p.nodes > p.opts.MaxNodes {
		return nil, p.fail(fmt.Sprintf("the object has more than %d values", p.opts.MaxNodes))
	}
	p.space()
	if p.pos >= len(p.src) {
		return nil, p.fail("the text ends inside the object")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		p.pos++
		obj := &jsObject{}
		for {
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				return obj, nil
			}
			line := p.line
			key, err := p.key()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return nil, p.fail(fmt.Sprintf("the key %q is not followed by \":\" and a value", key))
			}
			p.pos++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj.members = append(obj.members, jsMember{key: key, value: v, line: line})
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				return obj, nil
			}
			return nil, p.fail("expected \",\" or \"}\" after a value")
		}
	case c == '[':
		p.pos++
		var arr []any
		for {
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				return arr, nil
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
			}
		}
	case c == '"' || c == '\'' || c == '`':
		return p.str()
	default:
		start := p.pos
		for p.pos < len(p.src) && strings.IndexByte("+-.0123456789eEtruefalsn", p.src[p.pos]) >= 0 {
			p.pos++
		}
		word := p.src[start:p.pos]
		switch word {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		var f float64
		if err := json.Unmarshal([]byte(word), &f); err == nil && word != "" {
			return f, nil
		}
		p.pos = start
		end := start
		for end < len(p.src) && end-start < 40 && p.src[end] != '\n' && p.src[end] != ',' {
			end++
		}
		return nil, p.fail(fmt.Sprintf("the value %q is code, not data", strings.TrimSpace(p.src[start:end])))
	}
}

// key reads an object key: a string or a bare name.
func (p *jsParser) key() (string, error) {
	if p.pos < len(p.src) && strings.IndexByte("\"'`", p.src[p.pos]) >= 0 {
		return p.str()
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c == '$' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			p.pos++
			continue
		}
		break
	}
	if p.pos == start {
		if strings.HasPrefix(p.src[p.pos:], "...") {
			return "", p.fail("a spread (...) is code, not data")
		}
		return "", p.fail("expected a key")
	}
	return p.src[start:p.pos], nil
}

// str reads a quoted string; a template with a substitution is code.
func (p *jsParser) str() (string, error) {
	q := p.src[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos++
			switch e := p.src[p.pos]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if p.pos+4 < len(p.src) {
					var r rune
					if _, err := fmt.Sscanf(p.src[p.pos+1:p.pos+5], "%04x", &r); err == nil {
						b.WriteRune(r)
						p.pos += 4
						break
					}
				}
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
			p.pos++
		case c == '$' && q == '`' && strings.HasPrefix(p.src[p.pos:], "${"):
			return "", p.fail("a template with a substitution is code, not data")
		case c == '\n' && q != '`':
			return "", p.fail("the string is not closed on its line")
		default:
			if c == '\n' {
				p.line++
			}
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", p.fail("the string is not closed")
}
