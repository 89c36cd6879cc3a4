package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// snippetSite writes a Mintlify tree whose pages use snippets in every
// form Mintlify's documentation gives (a component with props, nested
// snippets, string constants, relative paths), and the faults: a missing
// file, a missing or non-string export, a path out of the folder, a
// symbolic link out of it and a snippet that includes itself.
func snippetSite(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tree := filepath.Join(root, "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docs.json": `{"navigation":{"pages":["index","faults","guides/deep"]}}`,
		"index.mdx": "---\ntitle: Home\n---\n" +
			"import Hello from \"/snippets/hello.mdx\";\n" +
			"import { product, version } from \"./snippets/vars.mdx\";\n" +
			"\n# Home\n\n<Hello word=\"bananas\" />\n\nUsing {product} {version}.\n\n" +
			"<Steps>\n  <Hello word=\"apples\" />\n</Steps>\n\n" +
			"```mdx\n<Hello word=\"code\" />\n```\n\n[after](/tzdocs/nowhere)\n",
		"faults.mdx": "---\ntitle: Faults\n---\n" +
			"import Gone from \"/snippets/gone.mdx\";\n" +
			"import Out from \"../outside.mdx\";\n" +
			"import Linked from \"/snippets/linked.mdx\";\n" +
			"import Loop from \"/snippets/loop.mdx\";\n" +
			"import { Comp, nothing } from \"/snippets/vars.mdx\";\n" +
			"\n# Faults\n\n<Gone />\n\n<Out />\n\n<Linked />\n\n<Loop />\n\n{Comp} and {nothing}.\n",
		"guides/deep.md": "import Hello from \"../snippets/hello.mdx\"\n\n# Deep\n\n<Hello word=\"pears\"></Hello>\n",
		"snippets/hello.mdx": "---\ntitle: not a page\n---\n" +
			"import Child from \"/snippets/child.mdx\";\nimport { useState } from \"react\";\n\n" +
			"Hello {word}, from the snippet.\n\n<Child who={word} />\n",
		"snippets/child.mdx": "Child says hi to {who}.\n\n[inside](/tzdocs/gone-too)\n",
		"snippets/vars.mdx": "export const product = \"Rocket\";\nexport const version = 'v2.1';\n" +
			"export const Comp = () => {\n  return <div>x</div>;\n};\n",
		"snippets/loop.mdx": "import Loop from \"/snippets/loop.mdx\";\n\nround\n\n<Loop />\n",
	})
	if err := os.WriteFile(filepath.Join(root, "outside.mdx"), []byte("secret outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside.mdx"), filepath.Join(tree, "snippets", "linked.mdx")); err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestMintlifySnippetsExpand: with --mintlify-snippets expand a page
// serves what Mintlify renders: a tag is its snippet's text (front matter
// and imports left out, props filled in, nested snippets expanded, lines
// indented as the tag is), an imported string constant its value, an
// expanded import is left out; a tag in a code block is left alone. Each
// fault is a warning naming page, line and path, and its tag stays.
func TestMintlifySnippetsExpand(t *testing.T) {
	tree := snippetSite(t)
	data := t.TempDir()
	r := mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--mintlify-snippets", "expand", "--max-include-depth", "3", "--version", "v", "--activate")
	if !strings.Contains(r.stdout, "\n    includes: 11 expanded, 6 left as written\n") {
		t.Errorf("summary lacks the include count:\n%s", r.stdout)
	}
	for _, w := range []string{
		"faults.mdx:12: missing file: \"<Gone />\" names snippets/gone.mdx, which does not exist",
		"faults.mdx:5: outside the folder: \"import Out from \\\"../outside.mdx\\\";\" names \"../outside.mdx\"",
		"faults.mdx:16: outside the folder: \"<Linked />\"",
		"faults.mdx:18 > snippets/loop.mdx:5 > snippets/loop.mdx:5 > snippets/loop.mdx:5: nesting bound",
		"faults.mdx:20: not a text: \"{Comp}\" names the export Comp of snippets/vars.mdx, which is not a string constant",
		"faults.mdx:20: missing name: \"{nothing}\" names nothing, which snippets/vars.mdx does not export",
	} {
		if !strings.Contains(r.stderr, "warning: tree tzdocs: "+w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "secret") {
		t.Errorf("a file outside the folder was read:\n%s", r.stderr)
	}
	srv := startServer(t, data, testConfig(0))
	read := func(page string) string {
		return mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": page}).Text
	}
	want := "\n# Home\n\nHello bananas, from the snippet.\n\nChild says hi to bananas.\n\n[inside](/tzdocs/gone-too)\n\n" +
		"Using Rocket v2.1.\n\n<Steps>\n  Hello apples, from the snippet.\n\n  Child says hi to apples.\n\n  [inside](/tzdocs/gone-too)\n</Steps>\n\n" +
		"```mdx\n<Hello word=\"code\" />\n```\n\n[after](/tzdocs/nowhere)\n"
	if got := read("/tzdocs/"); got != want {
		t.Errorf("index:\n%s\nwant:\n%s", got, want)
	}
	if got, want := read("guides/deep"), "\n# Deep\n\nHello pears, from the snippet.\n\nChild says hi to pears.\n\n[inside](/tzdocs/gone-too)\n"; got != want {
		t.Errorf("guides/deep = %q, want %q", got, want)
	}
	faults := read("faults")
	for _, kept := range []string{"import Gone from", "<Gone />", "import Out from", "<Out />", "<Linked />", "{Comp} and {nothing}.", "import { Comp, nothing }"} {
		if !strings.Contains(faults, kept) {
			t.Errorf("faults page lacks %q, left as written:\n%s", kept, faults)
		}
	}
	if strings.Contains(faults, "secret") || strings.Count(faults, "round") != 3 {
		t.Errorf("faults page: the loop is expanded to the depth bound (3 rounds), nothing outside read:\n%s", faults)
	}
	// A snippet is not a page.
	if _, a, _, err := post(srv.base, "read_documentation", map[string]any{"tree": "tzdocs", "page": "snippets/hello"}); err != nil || a.Error == nil || a.Error.Code != "context_not_found" {
		t.Errorf("snippets/hello served as a page: %+v %v", a, err)
	}
}

// TestMintlifySnippetsKeep: by default, and with keep, a Mintlify page is
// served as written, byte for byte: the same content digest (so the same
// version) with the flag as without it, a version apart from expand's,
// and a value other than keep or expand refused naming both.
func TestMintlifySnippetsKeep(t *testing.T) {
	tree := snippetSite(t)
	data := t.TempDir()
	first := mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree)
	name := strings.TrimPrefix(strings.SplitN(first.stdout, "\n", 2)[0], "version ")
	if strings.Contains(first.stdout, "includes:") {
		t.Errorf("a tree as written counts includes:\n%s", first.stdout)
	}
	kept := mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--mintlify-snippets", "keep")
	if !strings.HasPrefix(kept.stdout, "identical content is stored already as version "+name+";") {
		t.Errorf("keep stored other content than the default (%s):\n%s", name, kept.stdout)
	}
	expanded := mustCLI(t, data, "ingest", "--tree", "tzdocs="+tree, "--mintlify-snippets", "expand")
	if strings.Contains(expanded.stdout, name) || strings.Contains(expanded.stdout, "identical content") {
		t.Errorf("expand stored as the version kept:\n%s", expanded.stdout)
	}
	mustCLI(t, data, "activate", name)
	srv := startServer(t, data, testConfig(0))
	raw, err := os.ReadFile(filepath.Join(tree, "index.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, srv.base, map[string]any{"tree": "tzdocs", "page": "/tzdocs/"}).Text; got != strings.TrimPrefix(string(raw), "---\ntitle: Home\n---\n") {
		t.Errorf("kept page = %q, want the file after its front matter", got)
	}
	r := runCLI(t, t.TempDir(), "ingest", "--tree", "tzdocs="+tree, "--mintlify-snippets", "inline")
	if r.err == nil || !strings.Contains(r.err.Error(), `--mintlify-snippets "inline"`) || !strings.Contains(r.err.Error(), "keep or expand") {
		t.Errorf("--mintlify-snippets inline: %v", r.err)
	}
}

// TestCheckLinesAfterSnippet: tzctx check with expand names a finding by
// the line of the page's own file: a link after an expanded snippet its
// own line, a link inside a snippet the tag's line.
func TestCheckLinesAfterSnippet(t *testing.T) {
	tree := snippetSite(t)
	r := runCLI(t, t.TempDir(), "check", "--json", "--mintlify-snippets", "expand", "--tree", "tzdocs="+tree)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, r.stdout, r.stderr)
	}
	lines := map[int]bool{}
	for _, f := range append(rep.Errors, rep.Warnings...) {
		if filepath.Base(f.File) == "index.mdx" && strings.Contains(f.Message, "/tzdocs/") {
			lines[f.Line] = true
		}
	}
	// "after" is at line 21 of index.mdx; the snippet's link is the tags'
	// (lines 9 and 14).
	for _, l := range []int{9, 14, 21} {
		if !lines[l] {
			t.Errorf("no finding at index.mdx:%d; findings %+v %+v", l, rep.Errors, rep.Warnings)
		}
	}
}

// TestIngestIncludeCount: ingest's summary counts, per tree, the include
// directives it expanded (nested ones too) and those it left as written,
// each of which a warning names.
func TestIngestIncludeCount(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"book.toml":      "[book]\ntitle = \"B\"\n",
		"src/SUMMARY.md": "# Summary\n\n- [One](ch01.md)\n- [Two](ch02.md)\n",
		"src/ch01.md":    "# One\n\n{{#include part.md}}\n\n```rust\n{{#include gone.rs}}\n```\n",
		"src/part.md":    "Part.\n\n```rust\n{{#include listing.rs}}\n```\n",
		"src/listing.rs": "fn main() {}\n",
		"src/ch02.md":    "# Two\n\nNo includes.\n",
	})
	r := mustCLI(t, t.TempDir(), "ingest", "--tree", "tzdocs="+tree)
	if !strings.Contains(r.stdout, "mdbook \"B\"\n    includes: 2 expanded, 1 left as written\n") {
		t.Errorf("summary lacks the include count under the tree's line:\n%s", r.stdout)
	}
	if strings.Count(r.stderr, "warning: tree tzdocs: src/ch01.md:6: missing file:") != 1 {
		t.Errorf("the directive left is not warned about once:\n%s", r.stderr)
	}
}
