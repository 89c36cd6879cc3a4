package source

import (
	"strings"
	"testing"
)

// TestMintlifySnippetForms: the forms of Mintlify's reusable snippets
// beyond the CLI's fixture: props filled in a snippet's code blocks too
// (as Mintlify's documentation says they are) and as {props.name}; a
// snippet's component export of several paragraphs left out of what it
// renders; a Markdown snippet; a tag in inline code or a code block, and
// an import in a code block, left alone; an import of a component file or
// a package left as written, and not counted.
func TestMintlifySnippetForms(t *testing.T) {
	dir := includeFolder(t, map[string]string{
		"snippets/install.mdx": "export const InstallSnippet = ({ packageName }) => {\n  const x = 1;\n\n  return <></>;\n};\n\nInstall the package:\n\n```bash\nnpm install {packageName}\n```\n\nThen use {props.packageName}; {other} stays.\n",
		"snippets/note.md":     "A note.\n",
		"snippets/quote.mdx":   "export const said = 'it\\'s \"here\"';\nexport const tpl = `plain`;\n",
	})
	page := strings.Join([]string{
		`import InstallSnippet from "/snippets/install.mdx";`,
		`import Note from '../snippets/note.md'`,
		`import { said, tpl as T } from "/snippets/quote.mdx";`,
		`import Widget from "/snippets/widget.jsx";`,
		`import { useState } from "react";`,
		``,
		`<InstallSnippet packageName="@acme/sdk" />`,
		``,
		"Inline `<Note />` stays; {said} {T}.",
		``,
		`<Note/>`,
		``,
		"```mdx",
		`import Note from "/snippets/gone.mdx";`,
		`<Note />`,
		"```",
		``,
		`<Widget />`,
	}, "\n")
	want := strings.Join([]string{
		`import Widget from "/snippets/widget.jsx";`,
		`import { useState } from "react";`,
		``,
		`Install the package:`,
		``,
		"```bash",
		`npm install @acme/sdk`,
		"```",
		``,
		`Then use @acme/sdk; {other} stays.`,
		``,
		"Inline `<Note />` stays; it's \"here\" plain.",
		``,
		`A note.`,
		``,
		"```mdx",
		`import Note from "/snippets/gone.mdx";`,
		`<Note />`,
		"```",
		``,
		`<Widget />`,
	}, "\n")
	out, x := expand(t, dir, Includes{Form: IncludeMintlify}, IncludeBounds{}, "guides/page.mdx", page)
	if out != want {
		t.Errorf("expanded to\n%s\nwant\n%s", out, want)
	}
	if x.Expanded != 4 || x.Left != 0 || len(x.Warnings) != 0 {
		t.Errorf("expanded %d, left %d, warnings %q; want 4, 0, none", x.Expanded, x.Left, x.Warnings)
	}
}

// TestMintlifySnippetBounds: a snippet counts against the page's byte
// bound at each use, as every included file does; the uses past the bound
// are left as written, counted, and warned about once.
func TestMintlifySnippetBounds(t *testing.T) {
	dir := includeFolder(t, map[string]string{"snippets/s.mdx": strings.Repeat("x", 100) + "\n"})
	page := "import S from \"/snippets/s.mdx\";\n\n<S />\n\n<S />\n\n<S />\n"
	out, x := expand(t, dir, Includes{Form: IncludeMintlify}, IncludeBounds{MaxPageBytes: 250}, "p.mdx", page)
	if strings.Count(out, strings.Repeat("x", 100)) != 2 || !strings.Contains(out, "<S />") || !strings.Contains(out, "import S from") {
		t.Errorf("expanded to\n%s\nwant two uses expanded, the third and the import left", out)
	}
	if x.Expanded != 2 || x.Left != 1 {
		t.Errorf("expanded %d, left %d; want 2, 1", x.Expanded, x.Left)
	}
	wantWarning(t, x.Warnings, "p.mdx:7: page bound", "--max-include-bytes")
}
