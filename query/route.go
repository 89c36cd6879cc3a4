package query

import "strings"

// stripOrigin removes the public origin from a page value (A-08 step 2).
func (r *Reader) stripOrigin(page string) string {
	o := r.cfg.Origin
	if o != "" && strings.HasPrefix(page, o) && (len(page) == len(o) || page[len(o)] == '/') {
		return page[len(o):]
	}
	return page
}

// resolvePage finds the page a value names in tree (A-08 step 4): first as
// the index prints it, then as a route without the base path. It returns
// the manifest position, or -1 with the value read in the manifest's form
// (the first reading), for the detail.
func resolvePage(t Tree, tree, page string) (int, string) {
	rest := trimSlash(page)
	var cands []string
	if first, rem, _ := strings.Cut(rest, "/"); first == tree {
		cands = append(cands, routeFrom(tree, rem))
	}
	cands = append(cands, routeFrom(tree, rest))
	for _, c := range cands {
		if i := t.PageIndex(c); i >= 0 {
			return i, c
		}
	}
	return -1, cands[0]
}

// trimSlash removes one leading and one trailing slash: "//x" keeps a
// slash and so names no route (A-08: no collapsing of "//").
func trimSlash(s string) string {
	s = strings.TrimPrefix(s, "/")
	return strings.TrimSuffix(s, "/")
}

func routeFrom(tree, rest string) string {
	if rest == "" {
		return "/" + tree + "/"
	}
	return "/" + tree + "/" + rest + "/"
}
