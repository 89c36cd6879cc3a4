package source

import (
	"context"
	"strings"
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
