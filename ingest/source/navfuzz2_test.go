package source

import (
	"context"
	"strings"
	"testing"
)

// FuzzLLMSTxt reads a folder whose navigation is a fuzzed llms.txt, its
// Markdown lists of links, within small bounds: no input crashes the
// reader or takes it past them, and every page file it names is a file of
// the folder.
func FuzzLLMSTxt(f *testing.F) {
	for _, s := range []string{
		"# Site\n\n> About.\n\n## Docs\n\n- [Home](index.md): the start\n- [Guide](guide/a.md)\n- [A again](/guide/a.md)\n",
		"- [x](https://example.com/docs/guide/a.md)\n- [y](http://169.254.169.254/latest)\n- [z](file:///etc/passwd)\n",
		"- [x](" + strings.Repeat("a/", 200) + "b)\n",
		"- [x](../../outside.md)\n- [y](<guide/a.md>)\n- [](guide/)\n",
		"- [a](guide/a.md#frag)\n- [b](guide/a.md?x=1)\n- [c](guide/a)\n- [d](guide/a.html)\n",
		"[unclosed](index.md\n- [x](\n- [[nested](index.md)](guide/a.md)\n",
		"- [ctl](guide/\x1b[31m.md)\n- [nul](guide/a\x00.md)\n- [bad](\xff\xfe.md)\n",
	} {
		f.Add([]byte(s))
	}
	ff := newFuzzFolder(f)
	f.Fuzz(func(t *testing.T, llms []byte) {
		dir := ff.write(t, map[string][]byte{"llms.txt": llms, "index.md": []byte("# Home\n"), "guide/a.md": []byte("# A\n")})
		tree, err := LLMSTxt{}.Read(context.Background(), dir, fuzzOptions)
		checkFuzzedTree(t, tree, err)
		if err != nil {
			return
		}
		for _, p := range tree.Pages {
			if p.File != "" && !dir.Exists(p.File) {
				t.Fatalf("page %q is read from %q, not a file of the folder", p.Path, p.File)
			}
		}
	})
}

// FuzzGitBookNav reads a GitBook folder of a fuzzed .gitbook.yaml and
// SUMMARY.md within small bounds: no input crashes the reader or takes it
// past them.
func FuzzGitBookNav(f *testing.F) {
	for _, s := range [][2]string{
		{"root: ./\nstructure:\n  summary: SUMMARY.md\n", "# Summary\n\n* [Intro](README.md)\n* [Guide](guide/a.md)\n  * [Deep](guide/a.md)\n"},
		{"root: ../\n", "* [x](../../etc/passwd)\n"},
		{"structure: {summary: nosuch.md}\n", ""},
		{"x0: &a [1,2]\nx1: [*a,*a,*a]\n", "* [a](" + strings.Repeat("a/", 100) + "b.md)\n"},
		{"", strings.Repeat("  ", 40) + "* [d](README.md)\n* []()\n* [](\n"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	ff := newFuzzFolder(f)
	f.Fuzz(func(t *testing.T, config, summary []byte) {
		dir := ff.write(t, map[string][]byte{".gitbook.yaml": config, "SUMMARY.md": summary, "README.md": []byte("# Home\n"), "guide/a.md": []byte("# A\n")})
		tree, err := GitBook{}.Read(context.Background(), dir, fuzzOptions)
		checkFuzzedTree(t, tree, err)
	})
}
