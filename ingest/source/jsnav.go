package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
)

// Navigation written as JavaScript or TypeScript (Docusaurus, VitePress,
// Starlight, Nextra's _meta modules) is read by jslit, never run; this
// file holds what the readers of those formats share around it.

// readJSConfig finds the first of names in dir (jsFindConfig) and reads
// it as a module, following its relative imports; a folder holding none
// is refused with missing, a format whose %s is the folder.
func readJSConfig(ctx context.Context, dir *sitefs.Folder, names []string, opts Options, missing string) (string, *jslit.Module, error) {
	name, err := jsFindConfig(ctx, dir, names, opts)
	if err != nil {
		return "", nil, err
	}
	if name == "" {
		return "", nil, fmt.Errorf(missing, dir.Dir())
	}
	mod, err := jslit.ReadModule(ctx, dir, name, jsLimits(opts))
	return name, mod, err
}

// jsDefaults fills the zero bounds of o that jslit's reader takes, as
// it fills them.
func jsDefaults(o Options) Options {
	l := jsLimits(o)
	o.MaxFileBytes, o.MaxNodes, o.MaxDepth = l.MaxFileBytes, l.MaxNodes, l.MaxDepth
	return o
}

// jsLimits returns the bounds of jslit's reader of navigation modules
// that o states, with their defaults.
func jsLimits(o Options) jslit.Limits {
	return jslit.Limits{MaxFileBytes: o.MaxFileBytes, MaxNodes: o.MaxNodes, MaxDepth: o.MaxDepth, MaxModules: o.MaxModules}.WithDefaults()
}

// jsFindConfig finds the first of names in the folder, else in one of its
// immediate subfolders (website/, docs/: a repository whose site lives one
// level down), and returns its path relative to the folder, "" where there
// is none. Listing the folder is bounded by opts.MaxNodes names; a folder
// over it, or one that cannot be listed, is an error, not a folder without
// the config.
func jsFindConfig(ctx context.Context, dir *sitefs.Folder, names []string, opts Options) (string, error) {
	for _, n := range names {
		if dir.Exists(n) {
			return n, nil
		}
	}
	opts = jsDefaults(opts)
	subs, err := dir.ListDir(ctx, ".", opts.MaxNodes)
	if errors.Is(err, sitefs.ErrTooLarge) {
		return "", fmt.Errorf("%s holds more than %d names, listed to look for %s in its subfolders: give the folder holding %s, or raise --max-nav-nodes", dir.Dir(), opts.MaxNodes, names[0], names[0])
	}
	if err != nil {
		return "", fmt.Errorf("looking for %s in the subfolders of %s: %w", names[0], dir.Dir(), err)
	}
	for _, s := range subs {
		if !s.IsDir || strings.HasPrefix(s.Name, ".") || s.Name == "node_modules" {
			continue
		}
		for _, n := range names {
			if dir.Exists(s.Name + "/" + n) {
				return s.Name + "/" + n, nil
			}
		}
	}
	return "", nil
}

// jsFindConfigAt is jsFindConfig within the default bounds, for detection:
// a folder it cannot list is not recognised by the config's name there,
// and the reader chosen by --format reports why.
func jsFindConfigAt(dir *sitefs.Folder, names []string) string {
	c, err := jsFindConfig(context.Background(), dir, names, Options{})
	if err != nil {
		return ""
	}
	return c
}

// jsFrontMatter reads the YAML front matter of a page file; nil where it
// has none or it does not parse (ingest refuses such a page by name when
// it reads it).
func jsFrontMatter(ctx context.Context, dir *sitefs.Folder, name string, limit int64) map[string]any {
	data, err := dir.ReadFile(ctx, name, limit)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil
	}
	rest := data[3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(string(rest[:nl])) != "" {
		return nil
	}
	rest = rest[nl+1:]
	end := -1
	for off := 0; off < len(rest); {
		ln := rest[off:]
		if i := bytes.IndexByte(ln, '\n'); i >= 0 {
			ln = ln[:i]
		}
		if strings.TrimRight(string(ln), " \t\r") == "---" {
			end = off
			break
		}
		off += len(ln) + 1
	}
	if end < 0 {
		return nil
	}
	var fm map[string]any
	if yaml.Unmarshal(rest[:end], &fm) != nil {
		return nil
	}
	return fm
}

// jsFMString returns front matter key as a string ("" where absent).
func jsFMString(fm map[string]any, key string) string {
	switch v := fm[key].(type) {
	case string:
		return v
	case int, float64:
		return fmt.Sprint(v)
	}
	return ""
}

// jsFMNumber returns front matter key as a number.
func jsFMNumber(fm map[string]any, key string) (float64, bool) {
	switch v := fm[key].(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// jsWalk lists the Markdown files (.md, .mdx) below root ("." for the
// folder), slash-separated and relative to the folder, in name order,
// leaving out hidden names, node_modules and names skip refuses; a
// symbolic link to a folder is not walked (no link cycle). It visits at
// most opts.MaxNodes names and opts.MaxDepth levels.
func jsWalk(ctx context.Context, dir *sitefs.Folder, root string, opts Options, skip func(rel string, isDir bool) bool) ([]string, error) {
	var out []string
	seen := 0
	var walk func(d string, depth int) error
	walk = func(d string, depth int) error {
		if depth > opts.MaxDepth {
			return fmt.Errorf("%s: folders nest deeper than %d: raise --max-nav-depth", d, opts.MaxDepth)
		}
		ents, err := dir.ListDir(ctx, d, opts.MaxNodes-seen)
		if errors.Is(err, sitefs.ErrTooLarge) {
			if seen == 0 {
				return fmt.Errorf("%s: the folder holds more than %d names: raise --max-nav-nodes", d, opts.MaxNodes)
			}
			// The bound is on the whole walk: this folder is where the
			// running total ran out, not necessarily a large one.
			return fmt.Errorf("%s: the folders walked hold more than %d names in all (%d listed before this one): raise --max-nav-nodes", d, opts.MaxNodes, seen)
		}
		if err != nil {
			return err
		}
		seen += len(ents)
		for _, e := range ents {
			if strings.HasPrefix(e.Name, ".") || e.Name == "node_modules" {
				continue
			}
			rel := e.Name
			if d != "." {
				rel = d + "/" + e.Name
			}
			if skip != nil && skip(rel, e.IsDir) {
				continue
			}
			if e.IsDir {
				if err := walk(rel, depth+1); err != nil {
					return err
				}
				continue
			}
			if ext := strings.ToLower(path.Ext(e.Name)); ext == ".md" || ext == ".mdx" {
				out = append(out, rel)
			}
		}
		return nil
	}
	return out, walk(root, 0)
}

// jsWarn words one warning about navigation the reader could not follow.
func jsWarn(file string, v any, fallback string) string {
	return fmt.Sprintf("%s line %d: the navigation is %s, which tzctx does not run; read as %s", file, jslit.LineOf(v), jslit.Describe(v), fallback)
}
