package source

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// navCancelAfter is a context whose Err is nil for its first left calls
// and context.Canceled after: a loop that looks at it is seen to stop at
// the look that finds it cancelled, whatever the machine's speed.
type navCancelAfter struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
}

func newNavCancelAfter(left int64) *navCancelAfter {
	c := &navCancelAfter{Context: context.Background()}
	c.left.Store(left)
	return c
}

func (c *navCancelAfter) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// obeysEveryLook reads dir with s once to count the looks at the context
// a whole read makes (least at the least), then once for each look k,
// cancelling the context at it: each read must return context.Canceled
// and look no more than to return it.
func obeysEveryLook(t *testing.T, s Source, dir *sitefs.Folder, least int64) {
	t.Helper()
	all := newNavCancelAfter(1 << 40)
	if _, err := s.Read(all, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	looks := all.calls.Load()
	if looks < least {
		t.Fatalf("the read looked at the context %d times, want at least %d", looks, least)
	}
	for k := range looks {
		ctx := newNavCancelAfter(k)
		if _, err := s.Read(ctx, dir, Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at look %d of %d: error %v, want context.Canceled", k+1, looks, err)
		}
		// The reader may look again to return the context's error; a loop
		// that went on would look again every few steps.
		if got := ctx.calls.Load(); got > k+3 {
			t.Fatalf("cancelled at look %d: it looked %d times, want it to stop at once", k+1, got)
		}
	}
}

// book is an mdBook folder whose book.toml is toml, with one page.
func book(toml string) map[string]string {
	return map[string]string{"book.toml": toml, "src/SUMMARY.md": "# S\n\n- [Intro](README.md)\n", "src/README.md": "# Intro\n"}
}

// TestBookTOMLNesting: the TOML parser's memory grows with the square of
// a file's nesting (10,000 nested inline tables, 40 KB, took 4 GB), so
// book.toml is refused before it is parsed where it nests deeper than the
// depth bound, counted as the parser nests: dotted key parts, header
// parts, arrays and inline tables, whatever strings and comments hold.
func TestBookTOMLNesting(t *testing.T) {
	const n = 100 // deeper than the default bound of 64, cheap for the parser
	for name, doc := range map[string]string{
		"inline tables": "[book]\nx = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n",
		"dotted key":    "[book]\n" + strings.Repeat("x.", n) + "y = 1\n",
		"header":        "[" + strings.Repeat("x.", n) + "y]\nz = 1\n",
		"array header":  "[[" + strings.Repeat("x.", n) + "y]]\nz = 1\n",
		"arrays":        "[book]\nx = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"mixed":         "[a.b]\nc.d = " + strings.Repeat("[{e.f = ", n/4) + "1" + strings.Repeat("}]", n/4) + "\n",
		"after strings": "[book]\ntitle = \"\\\"{[\" # ]}\ns = '''x'''''\nm = \"\"\"\n]}\\\"\"\"\"\"\nx = [\"]\", '}', " + strings.Repeat("[", n) + strings.Repeat("]", n) + "]\n",
		"quoted keys":   "[book]\n" + strings.Repeat("\"x.y\".'z'.", n/2) + "w = 1\n",
	} {
		if _, err := toml.Decode(doc, new(map[string]any)); err != nil {
			t.Fatalf("%s: the test's TOML is not valid: %v", name, err)
		}
		_, err := read(t, MdBook{}, book(doc))
		if !errors.Is(err, manifest.ErrTooDeep) {
			t.Errorf("%s: error %v, want the depth bound's", name, err)
			continue
		}
		// The refusal names the line that nests: the longest.
		line, longest := 0, 0
		for i, l := range strings.Split(doc, "\n") {
			if len(l) > longest {
				line, longest = i+1, len(l)
			}
		}
		wantError(t, err, "book.toml", line, "deeper than the bound of 64", "--max-nav-depth")
	}
	// Within the bound, and with what looks like nesting inside strings
	// and comments, the file reads.
	doc := "[book]\ntitle = \"T {{{{ [[[[\" # {{{{ [[[[\nsrc = 'src'\nm = \"\"\"\n" + strings.Repeat("[{", n) + "\n\"\"\"\nl = '''\n" + strings.Repeat("[{", n) + "'''\n" +
		"x = " + strings.Repeat("[", 30) + strings.Repeat("]", 30) + "\ny = " + strings.Repeat("{a = ", 30) + "1" + strings.Repeat("}", 30) + "\n" +
		"[output.html.redirect]\n\"a.html\" = \"b.html\"\n"
	tree := mustRead(t, MdBook{}, book(doc))
	if tree.Name != "T {{{{ [[[[" || len(tree.Redirects) != 1 {
		t.Errorf("name %q, redirects %v", tree.Name, tree.Redirects)
	}
	// The bound is the reader's depth bound.
	if _, err := (MdBook{}).Read(context.Background(), folder(t, book("[book]\nx = [[[[1]]]]\n")), Options{MaxDepth: 4}); !errors.Is(err, manifest.ErrTooDeep) {
		t.Errorf("five levels under a bound of 4: %v", err)
	}
}

// TestBookTOMLEntries: every key the parser records counts against the
// node bound, as many times as the levels it sits at, and the names it
// writes out against the byte bound, so a table of many keys, or a long
// table name over many keys, is refused before it is parsed.
func TestBookTOMLEntries(t *testing.T) {
	var b strings.Builder
	b.WriteString("[book]\ntitle = \"t\"\n[output.html.redirect]\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "\"/p%d.html\" = \"/q%d.html\"\n", 2000-i, i)
	}
	dir := folder(t, book(b.String()))
	_, err := MdBook{}.Read(context.Background(), dir, Options{MaxNodes: 1000})
	if !errors.Is(err, manifest.ErrTooManyNodes) || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Fatalf("2,000 redirects under a bound of 1,000 entries: %v", err)
	}
	// Within the bound the redirects are all read, ordered by source.
	tree, err := MdBook{}.Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Redirects) != 2000 || tree.Redirects[0].Source != "/p1" || tree.Redirects[1].Source != "/p10" || tree.Redirects[1999].Source != "/p999" {
		t.Errorf("%d redirects, first %v", len(tree.Redirects), tree.Redirects[:2])
	}
	// A long table name repeated by each key under it: the parser would
	// write it out once a key.
	long := "[" + strings.Repeat("n", 10_000) + "]\n" + strings.Repeat("k = 1\n", 1) + "j = 2\nl = 3\n"
	_, err = MdBook{}.Read(context.Background(), folder(t, book(long)), Options{MaxFileBytes: 30_000})
	if !errors.Is(err, sitefs.ErrTooLarge) || !strings.Contains(err.Error(), "--max-manifest-bytes") {
		t.Errorf("a 10,000-byte table name over three keys under a bound of 30,000 bytes: %v", err)
	}
}

// TestSortRedirects: the redirects are sorted in O(n log n) comparisons
// (an insertion sort took 110 s for 160,000), in order of source.
func TestSortRedirects(t *testing.T) {
	const n = 4096
	rs := make([]Redirect, n)
	for i := range rs {
		rs[i] = Redirect{Source: fmt.Sprintf("/%05d", n-i)}
	}
	compares := 0
	sortRedirectsBy(rs, func(a, b Redirect) int { compares++; return compareRedirects(a, b) })
	for i := 1; i < n; i++ {
		if rs[i-1].Source > rs[i].Source {
			t.Fatalf("not sorted at %d: %v", i, rs[i-1:i+1])
		}
	}
	// n log2 n is 49,152; an insertion sort of a reversed list makes
	// n²/2, over 8 million.
	if compares > 4*n*12 {
		t.Errorf("%d comparisons to sort %d redirects, want O(n log n)", compares, n)
	}
}

// TestBookTOMLCancel: every look at the context in reading book.toml
// (the scan's, the redirects') is obeyed: cancelled at the k-th look, the
// read returns context.Canceled, for every k up to the looks a whole read
// makes.
func TestBookTOMLCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("[book]\ntitle = \"t\"\nx = [" + strings.Repeat("1, ", 5000) + "]\n[output.html.redirect]\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "\"/p%d.html\" = \"/q.html\"\n", i)
	}
	dir := folder(t, book(b.String()))
	obeysEveryLook(t, MdBook{}, dir, 10)
	// A cancelled context stops the scan at its first step.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := scanTOML(ctx, "book.toml", []byte(b.String()), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("scan with a cancelled context: %v", err)
	}
}

// TestBookTOMLScanAcceptsValid: the scan refuses no valid TOML within the
// bounds: every document here the parser reads, the scan passes.
func TestBookTOMLScanAcceptsValid(t *testing.T) {
	for _, doc := range tomlSeeds {
		if _, err := toml.Decode(doc, new(map[string]any)); err != nil {
			continue
		}
		err := scanTOML(context.Background(), "book.toml", []byte(doc), Options{})
		if err != nil && !errors.Is(err, manifest.ErrTooDeep) {
			t.Errorf("valid TOML %q refused: %v", doc, err)
		}
	}
}

// tomlSeeds are TOML documents, valid and not, for the scan's tests and
// the fuzz target's seeds.
var tomlSeeds = []string{
	"",
	"[book]\ntitle = \"The Book\"\nsrc = \"src\"\n",
	"# comment\n[book] # c\ntitle='t' # c\n\n[output.html.redirect]\n\"/a.html\" = \"b.html\"\n",
	"a.b . c = 1\n[ x . \"y.z\" . 'w' ]\nk = [1, 2,\n  # c\n  3,]\n",
	"[[arr]]\nx = 1\n[[arr]]\nx = 2\n[arr.sub]\ny = {a = 1, b.c = [{d = 1}]}\n",
	"s1 = \"\\\"\\\\\\u00e9\"\ns2 = 'C:\\path'\ns3 = \"\"\"\nline \\\n  more \"\" \"\"\"\"\"\ns4 = '''\nraw ''' \n",
	"s = '''it's'''''\n",
	"d1 = 1979-05-27T07:32:00Z\nd2 = 1979-05-27 07:32:00\nd3 = 07:32:00\nf = -1.5e+3\ni = 0x1F\nb = true\nn = inf\n",
	"t = {\n  a = 1,\n  b = 2,\n}\n",
	"\"\" = 1\n'' . x = 2\n",
	"x = 1\r\ny = \"a\"\r\n",
	"[a]\n[a.b]\n[b]\nc.d.e = 1\nc.d.f = 2\n",
	"x = [[1, 2], [\"a\", 'b'], [{}, {a = []}]]\n",
	"x = {a = 1\n",
	"x = [1, 2\n",
	"x = \"unclosed\n",
	"x = '''unclosed\n",
	"[x\n",
	"[[x]\n",
	"x = 1 y = 2\n",
	"x = {a = {a = {a = {a = 1}}}}\n",
	"x = 1{a={a=1}}\n",
	"= 1\n",
	"x =\n",
	"x = \"\"\"a\"\"\"\"\"\"\n",
	"[book]\ntitle = \"t\"\nx = " + strings.Repeat("{a=", 70) + "1" + strings.Repeat("}", 70) + "\n",
	strings.Repeat("x.", 70) + "y = 1\n",
}

// aliasNav is an mkdocs.yml whose nav is levels levels of ten aliases
// each, down to a section labelled by its index page's title: a few
// hundred bytes describing 10^levels sections.
func aliasNav(levels int) string {
	y := "site_name: S\nx0: &a0 {\"\": [index.md]}\n"
	for l := 1; l <= levels; l++ {
		y += fmt.Sprintf("x%d: &a%d [%s]\n", l, l, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", l-1), 10), ","))
	}
	return y + fmt.Sprintf("nav: *a%d\n", levels)
}

// TestMkDocsAliasTitleOnce: a section's index page is read for its title
// once, however often aliases repeat the section (a 460-byte mkdocs.yml
// made ingest read a 15 MB page 250,000 times).
func TestMkDocsAliasTitleOnce(t *testing.T) {
	reads := 0
	defer func(f func(context.Context, *sitefs.Folder, string, Options) string) { readPageTitle = f }(readPageTitle)
	readPageTitle = func(ctx context.Context, dir *sitefs.Folder, file string, opts Options) string {
		reads++
		return pageTitle(ctx, dir, file, opts)
	}
	tree := mustRead(t, MkDocs{}, map[string]string{"mkdocs.yml": aliasNav(3), "docs/index.md": "# Home page\n"})
	if reads != 1 {
		t.Errorf("the index page was read %d times for its title, want once", reads)
	}
	if len(tree.Pages) != 1 || strings.Join(tree.Pages[0].Group, "/") != "Home page" {
		t.Errorf("pages %v", paths(tree))
	}
}

// TestMkDocsAliasNodes: every entry an alias repeats counts against the
// node bound, a mapping's entries each too, so the navigation aliases
// describe is bounded by what it expands to, not by the file's few
// bytes.
func TestMkDocsAliasNodes(t *testing.T) {
	var m strings.Builder
	m.WriteString("m: &m {")
	for i := range 50 {
		fmt.Fprintf(&m, "p%d: p%d.md, ", i, i)
	}
	m.WriteString("}\nnav: [" + strings.TrimSuffix(strings.Repeat("*m, ", 30), ", ") + "]\n")
	dir := folder(t, map[string]string{"mkdocs.yml": m.String(), "docs/p0.md": "# P\n"})
	_, err := MkDocs{}.Read(context.Background(), dir, Options{MaxNodes: 1000})
	if !errors.Is(err, manifest.ErrTooManyNodes) || !strings.Contains(err.Error(), "--max-nav-nodes") {
		t.Errorf("1,500 entries by alias under a bound of 1,000: %v", err)
	}
	_, err = MkDocs{}.Read(context.Background(), folder(t, map[string]string{"mkdocs.yml": aliasNav(4), "docs/index.md": "# Home\n"}), Options{MaxNodes: 10_000})
	if !errors.Is(err, manifest.ErrTooManyNodes) {
		t.Errorf("10,000 sections by alias under a bound of 10,000 entries: %v", err)
	}
	// Aliases side by side in one mapping do not nest: seventy sections
	// aliasing one list read, deeper than the depth bound of 64 though
	// their count is.
	var s strings.Builder
	s.WriteString("s: &s [a.md]\nnav:\n  - {")
	for i := range 70 {
		fmt.Fprintf(&s, "k%d: *s, ", i)
	}
	s.WriteString("}\n")
	tree := mustRead(t, MkDocs{}, map[string]string{"mkdocs.yml": s.String(), "docs/a.md": "# A\n"})
	if len(tree.Pages) != 1 || len(tree.Warnings) != 69 {
		t.Errorf("pages %v, %d warnings", paths(tree), len(tree.Warnings))
	}
}

// TestMkDocsCancel: every look at the context in reading a nav is
// obeyed: cancelled at the k-th look, the read returns context.Canceled.
func TestMkDocsCancel(t *testing.T) {
	dir := folder(t, map[string]string{"mkdocs.yml": aliasNav(2), "docs/index.md": "# Home\n"})
	obeysEveryLook(t, MkDocs{}, dir, 100)
}

// TestSummariseWarnings: past perKind warnings of one kind, one line
// counts the rest; a kind is the wording less names, paths and numbers,
// so "the page a is listed again" and "the page b is listed again" are
// one kind, and other kinds keep all of theirs, in order.
func TestSummariseWarnings(t *testing.T) {
	var ws []string
	for i := range 100 {
		ws = append(ws, fmt.Sprintf("SUMMARY.md:%d: the page p%d is listed again (first at SUMMARY.md:1); the second entry is left out, remove one of the two", i+2, i%7))
		if i%40 == 0 {
			ws = append(ws, fmt.Sprintf("SUMMARY.md:%d: %q names no Markdown page and is left out; link a .md file", i+2, fmt.Sprint("x", i, ".txt")))
		}
	}
	got := SummariseWarnings(ws, 5)
	if len(got) != 5+1+3 {
		t.Fatalf("%d warnings kept, want 5 of the listed-again kind, a line counting 95 more, and 3 of the other:\n%s", len(got), strings.Join(got, "\n"))
	}
	if !strings.HasPrefix(got[6], "SUMMARY.md: 95 more warnings like the one above are left out") || !strings.Contains(got[6], "--max-warnings") {
		t.Errorf("the summary line is %q", got[6])
	}
	if !strings.Contains(got[1], "x0.txt") || !strings.Contains(got[5], "SUMMARY.md:6:") || !strings.Contains(got[7], "x40.txt") || !strings.Contains(got[8], "x80.txt") {
		t.Errorf("order not kept:\n%s", strings.Join(got, "\n"))
	}
	// Within the bound nothing changes; 0 is the default bound.
	if got := SummariseWarnings(ws[:4], 0); !slices.Equal(got, ws[:4]) {
		t.Errorf("four warnings became %q", got)
	}
	if got := SummariseWarnings(ws, 0); len(got) != DefaultMaxWarnings+1+3 {
		t.Errorf("default bound: %d warnings", len(got))
	}
}
