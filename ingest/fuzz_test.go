package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// cleanText reports whether a page file passes the text checks ingest
// states: valid UTF-8 with no control character but tab, line feed,
// carriage return and form feed.
func cleanText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	return !slices.ContainsFunc(b, func(c byte) bool {
		return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f
	})
}

// FuzzPageFile checks a tree whose page index.mdx holds fuzzed bytes, as
// ingest would read it. A page that fails the text checks is refused with
// an *ingest.Error naming the file and the line; any other refusal is an
// *ingest.Error naming a file. A page read is its copy: the file less a
// byte order mark and a front matter block, which only a first line
// "---" closed by a line "---" or "..." starts (the closing line may end
// the file without a line end); the copy begins on the
// line CopyLine says; title and description are one line each, the
// title never empty; and the copy's layout is textmap's.
func FuzzPageFile(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: Hello\ndescription: A page\n---\n# Hello\n\ntext\n",
		"---\r\ntitle: \"Quoted: yes\"\r\n---\r\nbody\r\n",
		"\ufeff---\ntitle: BOM\n...\nbody",
		"---\ntitle: [unclosed\ndescription: 'x'\n---\nbody\n",
		"---\ntitle:\n  - a\n  - b\n---\n",
		"---\ntitle: |\n  two\n  lines\n---\n",
		"---\nno closing line\n# x\n",
		"--- \ntitle: not front matter\n---\n",
		"---\n---\n",
		"---\ntitle: &a x\nd: *a\n---\n",
		"---\ntitle: 12\ndescription: true\n---\n",
		"no front matter\n```\n---\n```\n",
		"---\ntitle: x\n---\n<!--\n## c\n-->\n## h\n",
		"---\n\x00\n---\n",
		"\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "docs.json"), []byte(`{"navigation":{"pages":["index"]}}`), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		if err := os.WriteFile(filepath.Join(dir, "index.mdx"), page, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := ingest.Check(context.Background(), ingest.Options{Trees: []ingest.TreeSource{{Name: "cloud", Dir: dir}}})
		if err != nil {
			var ie *ingest.Error
			if !errors.As(err, &ie) || ie.File == "" || ie.Problem == "" {
				t.Fatalf("refusal %v (%T) is not an *ingest.Error naming a file and a problem", err, err)
			}
			if !cleanText(page) && (filepath.Base(ie.File) != "index.mdx" || ie.Line < 1) {
				t.Fatalf("a page failing the text checks is refused as %+v, not at a line of index.mdx", ie)
			}
			return
		}
		if !cleanText(page) {
			t.Fatalf("a page that is not clean UTF-8 text was read")
		}
		if len(rep.Trees) != 1 || len(rep.Trees[0].Pages) != 1 {
			t.Fatalf("report %+v, want one tree of one page", rep)
		}
		p := rep.Trees[0].Pages[0]
		body := bytes.TrimPrefix(page, []byte("\ufeff"))
		if !bytes.HasSuffix(body, []byte(p.Copy)) {
			t.Fatalf("copy %q is not the end of the file", p.Copy)
		}
		prefix := body[:len(body)-len(p.Copy)]
		if want := 1 + bytes.Count(page[:len(page)-len(p.Copy)], []byte("\n")); p.CopyLine != want {
			t.Fatalf("CopyLine %d, want %d", p.CopyLine, want)
		}
		if len(prefix) > 0 {
			first, _, _ := strings.Cut(string(prefix), "\n")
			lines := strings.Split(strings.TrimSuffix(string(prefix), "\n"), "\n")
			last := strings.TrimSuffix(lines[len(lines)-1], "\r")
			if strings.TrimSuffix(first, "\r") != "---" || len(lines) < 2 || (last != "---" && last != "...") || (!bytes.HasSuffix(prefix, []byte("\n")) && p.Copy != "") {
				t.Fatalf("front matter %q does not run from a line --- to a line --- or ...", prefix)
			}
		}
		if p.Title == "" || strings.ContainsAny(p.Title, "\r\n") || strings.ContainsAny(p.Description, "\r\n") {
			t.Fatalf("title %q or description %q is empty or not one line", p.Title, p.Description)
		}
		m := textmap.Scan(p.Copy)
		if !slices.Equal(m.Headings, p.Scan.Headings) || !slices.Equal(m.Bases, p.Scan.Bases) {
			t.Fatalf("the page's layout is not textmap's of its copy")
		}
	})
}
