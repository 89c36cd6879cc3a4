package source

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

// TestJSWalkBoundInAll: --max-nav-nodes bounds the names a walk lists in
// all, so where the running total runs out at a small folder the refusal
// says the walk went over the bound, not that this folder is too large.
func TestJSWalkBoundInAll(t *testing.T) {
	dir := folder(t, map[string]string{"docusaurus.config.js": "module.exports = {}",
		"docs/a/1.md": "# 1\n", "docs/a/2.md": "# 2\n", "docs/a/3.md": "# 3\n", "docs/b/x.md": "# X\n"})
	_, err := Docusaurus{}.Read(context.Background(), dir, Options{MaxNodes: 5})
	if err == nil || !strings.Contains(err.Error(), "docs/b") || !strings.Contains(err.Error(), "more than 5 names in all") ||
		!strings.Contains(err.Error(), "--max-nav-nodes") || strings.Contains(err.Error(), "the folder holds") {
		t.Fatalf("a one-name folder where the total runs out: %v, want the walk as a whole over the bound", err)
	}
	// A folder over the bound by itself is named as such.
	_, err = Docusaurus{}.Read(context.Background(), dir, Options{MaxNodes: 1})
	if err == nil || !strings.Contains(err.Error(), "the folder holds more than 1 names") {
		t.Fatalf("a folder over the bound by itself: %v", err)
	}
}

// TestJSFindConfigBounds: looking for the config in the subfolders lists
// the folder within the options' --max-nav-nodes, and a folder over it is
// refused as such, not read as a folder holding no config.
func TestJSFindConfigBounds(t *testing.T) {
	for _, c := range []struct {
		src   Source
		files map[string]string
	}{
		{Docusaurus{}, map[string]string{"website/docusaurus.config.js": "module.exports = {}", "website/docs/a.md": "# A\n"}},
		{VitePress{}, map[string]string{"docs/.vitepress/config.mts": "export default {}", "docs/a.md": "# A\n"}},
		{Starlight{}, map[string]string{"site/astro.config.mjs": "export default {}", "site/src/content/docs/a.md": "---\ntitle: A\n---\n"}},
	} {
		c.files["x/a.md"], c.files["y/b.md"] = "# X\n", "# Y\n"
		dir := folder(t, c.files)
		if _, err := c.src.Read(context.Background(), dir, Options{}); err != nil {
			t.Fatalf("%s within the bounds: %v", c.src.Format(), err)
		}
		_, err := c.src.Read(context.Background(), dir, Options{MaxNodes: 2})
		if err == nil || !strings.Contains(err.Error(), "holds more than 2 names") || !strings.Contains(err.Error(), "--max-nav-nodes") || strings.Contains(err.Error(), "holds no") {
			t.Fatalf("%s: a folder of 3 names with --max-nav-nodes 2: %v, want the bound named", c.src.Format(), err)
		}
	}
}

// jsDAG writes a module whose sidebar is a shared DAG: each level lists
// the one below twice, so levels consts describe 2^levels leaves.
func jsDAG(levels int, leaf, level, export string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "const a0 = %s\n", leaf)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "const a%d = "+level+"\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, export+"\n", levels)
	return b.String()
}

// jsDAGSites are the three sidebar readers' sites with a sidebar shaped
// as a shared DAG of levels levels whose leaves name one missing page.
func jsDAGSites(levels int) map[string]map[string]string {
	return map[string]map[string]string{
		"docusaurus": {"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]]}",
			"sidebars.js": jsDAG(levels, "'missing'", "{type: 'category', label: 'C', items: [a%d, a%d]}", "module.exports = {docs: [a%d]}"),
			"docs/a.md":   "# A\n"},
		"vitepress": {".vitepress/config.mts": jsDAG(levels, "{text: 'M', link: '/missing'}", "{text: 'C', items: [a%d, a%d]}", "export default {themeConfig: {sidebar: [a%d]}}"),
			"a.md": "# A\n"},
		"starlight": {"astro.config.mjs": "import starlight from '@astrojs/starlight';\n" + jsDAG(levels, "'missing'", "{label: 'C', items: [a%d, a%d]}", "export default {integrations: [starlight({title: 'D', sidebar: [a%d]})]}"),
			"src/content/docs/a.md": "---\ntitle: A\n---\n"},
	}
}

// TestJSSidebarDAG: a sidebar that lists one category in two places at
// each of many levels (a few hundred bytes describing millions of items)
// is refused at --max-nav-nodes items walked, naming the file, the line
// and the flag; within the bound, a page no file has is listed once
// however many places name it.
func TestJSSidebarDAG(t *testing.T) {
	for format, files := range jsDAGSites(16) {
		dir := folder(t, files)
		_, err := Detect(dir).Read(context.Background(), dir, Options{MaxNodes: 1000})
		if err == nil || !strings.Contains(err.Error(), "more than 1000 items") || !strings.Contains(err.Error(), " line ") || !strings.Contains(err.Error(), "--max-nav-nodes") {
			t.Errorf("%s: a sidebar of 2^16 leaves with --max-nav-nodes 1000: %v, want a refusal naming the line and flag", format, err)
		}
	}
	for format, files := range jsDAGSites(10) {
		dir := folder(t, files)
		tree, err := Detect(dir).Read(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		missing := 0
		for _, p := range tree.Pages {
			if p.File == "" {
				missing++
			}
		}
		if missing != 1 || len(tree.Pages) != 2 {
			t.Errorf("%s: %d pages, %d of them missing; want the missing page once and a.md:\n%s", format, len(tree.Pages), missing, pagesOf(tree.Pages))
		}
	}
}

// countedCtx is a context that reads as cancelled from the (after+1)th
// time its Err is asked on: a stop that lands at a given point of a read.
type countedCtx struct {
	context.Context
	after int64
	n     atomic.Int64
}

func (c *countedCtx) Err() error {
	if c.n.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

// TestJSSidebarWalkCancelled: the sidebar walk checks its context, so an
// ingest stopped (SIGINT, a deadline) while it walks a large sidebar
// stops there rather than at the end of the walk. The stop is placed
// just after the reads before the walk: as many checks as a read of the
// same site with a one-level sidebar makes in all.
func TestJSSidebarWalkCancelled(t *testing.T) {
	small := jsDAGSites(1)
	for format, files := range jsDAGSites(14) {
		calib := &countedCtx{Context: context.Background(), after: math.MaxInt64}
		dir := folder(t, small[format])
		if _, err := Detect(dir).Read(calib, dir, Options{}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		ctx := &countedCtx{Context: context.Background(), after: calib.n.Load()}
		dir = folder(t, files)
		if _, err := Detect(dir).Read(ctx, dir, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a walk of 2^14 items stopped at its start: %v, want context.Canceled", format, err)
		}
	}
}
