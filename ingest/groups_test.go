package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNavigationGroupsInOutline: a format whose navigation has groups (an
// mdBook's parts) shows them in the composed index and in the outline, a
// line "## LABEL" before the first page of each group (mdBook's suffix
// chapters stay in the last part, as its sidebar shows them), and "##
// Other pages" where the navigation returns to the top level.
func TestNavigationGroupsInOutline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("book.toml", "[book]\ntitle = \"Groups\"\n")
	write("src/SUMMARY.md", "# Summary\n\n[Intro](intro.md)\n\n# Getting started\n\n- [Install](install.md)\n- [First steps](first.md)\n\n# Reference\n\n- [Flags](flags.md)\n\n---\n\n[Credits](credits.md)\n")
	for _, p := range []string{"intro", "install", "first", "flags", "credits"} {
		write("src/"+p+".md", "# "+p+"\n\n## Part of "+p+"\n\ntext\n")
	}
	loaded, err := loadTrees(context.Background(), Options{Trees: []TreeSource{{Name: "tzdocs", Dir: dir}}, MaxPageBytes: DefaultMaxPageBytes, MaxLLMSBytes: DefaultMaxLLMSBytes})
	if err != nil {
		t.Fatal(err)
	}
	tr := loaded[0]
	var got []string
	for _, p := range tr.pages {
		got = append(got, strings.Join(p.group, " / ")+":"+p.Path)
	}
	t.Logf("pages: %q", got)
	wantOutline := []string{
		"- [Intro](/tzdocs/intro/)",
		"## Getting started",
		"- [Install](/tzdocs/install/)",
		"- [First steps](/tzdocs/first/)",
		"## Reference",
		"- [Flags](/tzdocs/flags/)",
		"- [Credits](/tzdocs/credits/)",
	}
	var lines []string
	for _, l := range strings.Split(tr.outline, "\n") {
		if l != "" && !strings.HasPrefix(l, "  ") {
			lines = append(lines, l)
		}
	}
	if strings.Join(lines, "\n") != strings.Join(wantOutline, "\n") {
		t.Errorf("outline's page and group lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantOutline, "\n"))
	}
	if !strings.Contains(tr.index, "\n## Getting started\n\n- [Install](/tzdocs/install/)\n") || !strings.Contains(tr.index, "\n## Reference\n\n- [Flags](/tzdocs/flags/)\n- [Credits](/tzdocs/credits/)\n") {
		t.Errorf("composed index without its group lines:\n%s", tr.index)
	}
}

func TestGroupLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prev, group []string
		first       bool
		want        string
	}{
		{nil, nil, true, ""},
		{nil, nil, false, ""},
		{nil, []string{"A"}, true, "## A"},
		{[]string{"A"}, []string{"A"}, false, ""},
		{[]string{"A"}, []string{"A", "B"}, false, "## A / B"},
		{[]string{"A", "B"}, nil, false, "## Other pages"},
		{nil, []string{"Line\nbreak"}, false, "## Line break"},
	} {
		if got := groupLine(c.prev, c.group, c.first); got != c.want {
			t.Errorf("groupLine(%q, %q, %v) = %q, want %q", c.prev, c.group, c.first, got, c.want)
		}
	}
}
