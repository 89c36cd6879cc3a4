package source

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
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
		obj, line, problem, err := readMetaObject(ctx, name, data, opts)
		if err != nil {
			return nil, name, err
		}
		if problem != "" {
			if strings.HasSuffix(m, ".json") {
				return nil, name, &Error{File: name, Line: line, Problem: problem, Fix: "write the file as one JSON object of keys to titles or objects"}
			}
			if line > 0 {
				problem = fmt.Sprintf("%s:%d: %s", name, line, problem)
			}
			t.Warnings = append(t.Warnings, problem+", which is not read as data (the module is never run); the folder's pages are ordered by name instead. Write the default export as an object literal of strings and objects, or use _meta.json")
			return nil, name, nil
		}
		var out []metaEntry
		for _, k := range obj.Keys {
			e := metaEntry{key: k, line: obj.Lines[k]}
			switch v := obj.Values[k].(type) {
			case string:
				e.title = v
			case *jslit.Object:
				for _, f := range v.Keys {
					s, _ := v.Values[f].(string)
					switch f {
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

// readMetaObject reads data, the _meta file name, with jslit's reader of
// navigation code (a _meta.json as the value of module.exports, which
// keeps its lines): its default export where that is an object of data
// (strings, numbers, booleans, null, objects, arrays, the module's own
// constants), else the line and a problem naming what is not data. A
// module over a bound is an error; one the reader cannot parse is a
// problem, as one that is code; a problem without a line (0) names the
// file itself.
func readMetaObject(ctx context.Context, name string, data []byte, opts Options) (*jslit.Object, int, string, error) {
	src, as := data, name
	if strings.HasSuffix(name, ".json") {
		src, as = append([]byte("module.exports = "), data...), name+".js"
	}
	mod, err := jslit.ParseModule(ctx, as, src, jsLimits(opts))
	if err != nil {
		var se *jslit.SyntaxError
		switch {
		case ctx.Err() != nil:
			return nil, 0, "", ctx.Err()
		case errors.Is(err, jslit.ErrBound):
			return nil, 0, "", err
		case errors.As(err, &se):
			return nil, se.Line, se.Msg, nil
		}
		return nil, 0, err.Error(), nil
	}
	if mod.Default == nil {
		return nil, 1, "the module has no \"export default\"", nil
	}
	obj, ok := mod.Default.(*jslit.Object)
	if !ok {
		return nil, jslit.LineOf(mod.Default), "the default export is not an object literal", nil
	}
	// The values may share one constant among many places, each met
	// again: the walk counts every value met against MaxNodes.
	budget := jslit.NewBudget(ctx, jsDefaults(opts).MaxNodes)
	v, err := metaCode(obj, budget, name)
	if err != nil {
		return nil, 0, "", err
	}
	if v != nil {
		return nil, jslit.LineOf(v), jslit.Describe(v) + " is code, not data", nil
	}
	return obj, 0, "", nil
}

// metaCode returns the first value of v, in the order written, that the
// reader could not read as data, nil where there is none. Each value met
// is spent from budget, so a module sharing its constants among many
// places is refused past --max-nav-nodes rather than walked without end.
func metaCode(v any, budget *jslit.Budget, name string) (any, error) {
	if err := budget.Spend(1, func(max int) error {
		return fmt.Errorf("%s: the values hold more than %d values, counting a constant each time it is used (%w): simplify them or raise --max-nav-nodes", name, max, jslit.ErrBound)
	}); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *jslit.Opaque, *jslit.Call:
		return x, nil
	case *jslit.Object:
		for _, k := range x.Keys {
			if c, err := metaCode(x.Values[k], budget, name); c != nil || err != nil {
				return c, err
			}
		}
	case []any:
		for _, e := range x {
			if c, err := metaCode(e, budget, name); c != nil || err != nil {
				return c, err
			}
		}
	}
	return nil, nil
}
