package source

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
)

// VitePress reads a VitePress site: .vitepress/config.* (at the folder's
// root or in a subfolder such as docs/) and its themeConfig.sidebar, an
// array of items ({text, link, items, base}) or an object keyed by path
// whose values are such arrays or {base, items}. A link names the page
// file at that path below srcDir (default the config's folder): "/guide/"
// is guide/index.md, "/guide/cli" guide/cli.md; .html and .md endings are
// dropped; external links are skipped. Pages no sidebar lists follow in
// name order. Only the root locale is read: the folders of the other
// locales (the keys of locales besides root) are left out.
type VitePress struct{}

var _ Source = VitePress{}

var vitepressConfigs = []string{".vitepress/config.ts", ".vitepress/config.mts", ".vitepress/config.js", ".vitepress/config.mjs", ".vitepress/config.cts", ".vitepress/config.cjs"}

// Format implements Source.
func (VitePress) Format() string { return "vitepress" }

// Recognises implements Source: the folder or one of its subfolders holds
// .vitepress/config.*.
func (VitePress) Recognises(dir *sitefs.Folder) bool {
	return jsFindConfigAt(dir, vitepressConfigs) != ""
}

type vpReader struct {
	ctx    context.Context
	dir    *sitefs.Folder
	opts   Options
	tree   *Tree
	src    string // srcDir relative to the tree folder
	cfg    string
	listed map[string]bool
	warned bool
	visits *jslit.Budget // sidebar items walked, each time met, against MaxNodes
}

// Read implements Source.
func (VitePress) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = jsDefaults(opts)
	cfgName, mod, err := readJSConfig(ctx, dir, vitepressConfigs, opts, "%s holds no .vitepress/config.ts or .js: give the folder holding .vitepress")
	if err != nil {
		return nil, err
	}
	root := path.Dir(path.Dir(cfgName))
	r := &vpReader{ctx: ctx, dir: dir, opts: opts, visits: jslit.NewBudget(ctx, opts.MaxNodes), cfg: cfgName, tree: &Tree{Navigation: cfgName, HeadingTitles: true}, listed: map[string]bool{}, src: root}
	conf, _ := jslit.UnwrapCall(mod.Default).(*jslit.Object)
	if conf == nil {
		r.warn(jsWarn(cfgName, mod.Default, "the folder's pages in name order"))
	}
	if s, ok := jslit.Str(conf.Get("title")); ok {
		r.tree.Name = s
	}
	if s, ok := jslit.Str(conf.Get("srcDir")); ok {
		r.src = path.Clean(path.Join(root, s))
		if path.IsAbs(s) || r.src == ".." || strings.HasPrefix(r.src, "../") {
			return nil, fmt.Errorf("%s: srcDir %q is outside the tree folder %s: give the folder holding both", cfgName, s, dir.Dir())
		}
	}
	r.tree.Includes = Includes{Form: IncludeVitePress, Root: r.src}
	locales := map[string]bool{}
	if lo, ok := conf.Get("locales").(*jslit.Object); ok {
		for _, k := range lo.Keys {
			if k != "root" {
				locales[strings.Trim(k, "/")] = true
				r.tree.Others = append(r.tree.Others, Other{Folder: path.Join(r.src, strings.Trim(k, "/")), Route: strings.Trim(k, "/")})
			}
		}
	}
	var theme *jslit.Object
	if conf != nil {
		theme, _ = conf.Get("themeConfig").(*jslit.Object)
		if theme == nil && conf.Get("themeConfig") != nil {
			r.warn(jsWarn(cfgName, conf.Get("themeConfig"), "the folder's pages in name order"))
		}
	}
	switch sb := theme.Get("sidebar").(type) {
	case nil:
	case []any:
		if err := r.items(sb, "", nil, conf.Lines["themeConfig"], 0); err != nil {
			return nil, err
		}
	case *jslit.Object:
		for _, k := range sb.Keys {
			switch v := sb.Values[k].(type) {
			case []any:
				if err := r.items(v, "", nil, sb.Lines[k], 0); err != nil {
					return nil, err
				}
			case *jslit.Object:
				base, _ := jslit.Str(v.Get("base"))
				if items, ok := v.Get("items").([]any); ok {
					if err := r.items(items, base, nil, sb.Lines[k], 0); err != nil {
						return nil, err
					}
				}
			default:
				r.warn(jsWarn(cfgName, v, "the folder's pages in name order"))
			}
		}
	default:
		r.warn(jsWarn(cfgName, sb, "the folder's pages in name order"))
	}
	files, err := jsWalk(ctx, dir, r.src, opts, func(rel string, isDir bool) bool {
		sub := strings.TrimPrefix(rel, r.src+"/")
		if r.src == "." {
			sub = rel
		}
		return isDir && (locales[sub] || sub == "public" || sub == "node_modules")
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.src, err)
	}
	for _, f := range files {
		p := strings.TrimSuffix(f, path.Ext(f))
		if r.src != "." {
			p = strings.TrimPrefix(p, r.src+"/")
		}
		if !r.listed[p] {
			r.listed[p] = true
			r.tree.Pages = append(r.tree.Pages, Page{Path: p, File: f, ListedIn: cfgName})
		}
	}
	r.tree.Root = r.src
	r.tree.SiteBase = siteBase(conf)
	return r.tree, nil
}

func (r *vpReader) warn(s string) {
	if !r.warned {
		r.warned = true
		r.tree.Warnings = append(r.tree.Warnings, s)
	}
}

// items lists sidebar items under group; base prefixes their links. Each
// item walked counts against MaxNodes, each time it is met (one list of
// items may be shared among many places), and ctx is checked every 1024.
func (r *vpReader) items(list []any, base string, group []string, line, depth int) error {
	if depth > r.opts.MaxDepth {
		r.warn(fmt.Sprintf("%s line %d: the sidebar nests deeper than %d; the rest is read in name order", r.cfg, line, r.opts.MaxDepth))
		return nil
	}
	for _, it := range list {
		if err := r.visits.Spend(1, func(max int) error {
			return fmt.Errorf("%s line %d: the sidebar lists more than %d items, counting a list each time it is used: simplify it or raise --max-nav-nodes", r.cfg, line, max)
		}); err != nil {
			return err
		}
		o, ok := it.(*jslit.Object)
		if !ok {
			r.warn(jsWarn(r.cfg, it, "the folder's pages in name order"))
			continue
		}
		l := line
		if x := o.Lines["text"]; x > 0 {
			l = x
		}
		text, _ := jslit.Str(o.Get("text"))
		b := base
		if s, ok := jslit.Str(o.Get("base")); ok {
			b = s
		}
		if link, ok := jslit.Str(o.Get("link")); ok {
			r.link(b+link, text, group, l)
		} else if o.Get("link") != nil {
			r.warn(jsWarn(r.cfg, o.Get("link"), "the folder's pages in name order"))
		}
		switch items := o.Get("items").(type) {
		case nil:
		case []any:
			g := group
			if text != "" {
				g = docuAppend(group, text)
			}
			if err := r.items(items, b, g, l, depth+1); err != nil {
				return err
			}
		default:
			r.warn(jsWarn(r.cfg, items, "the folder's pages in name order"))
		}
	}
	return nil
}

// link lists the page a sidebar link names.
func (r *vpReader) link(link, text string, group []string, line int) {
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") || strings.HasPrefix(link, "//") {
		r.tree.skip(skipSidebarURL)
		return
	}
	if i := strings.IndexAny(link, "#?"); i >= 0 {
		link = link[:i]
	}
	p := strings.TrimPrefix(path.Clean("/"+link), "/")
	switch {
	case p == "":
		p = "index"
	case strings.HasSuffix(link, "/"):
		p += "/index"
	}
	for _, ext := range []string{".html", ".md"} {
		p = strings.TrimSuffix(p, ext)
	}
	if r.listed[p] {
		return
	}
	r.listed[p] = true
	pg := Page{Path: p, ListedIn: r.cfg, Pointer: strconv.Itoa(line), Title: text, Group: group}
	base := p
	if r.src != "." {
		base = r.src + "/" + p
	}
	switch {
	case r.dir.Exists(base + ".md"):
		pg.File = base + ".md"
	case !strings.HasSuffix(p, "/index") && p != "index" && r.dir.Exists(base+"/index.md"):
		pg.Path, pg.File = p+"/index", base+"/index.md"
		r.listed[pg.Path] = true
	default:
		pg.Tried = base + ".md"
	}
	r.tree.Pages = append(r.tree.Pages, pg)
}
