package query

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// readWhole pages a read_documentation request to its end at the largest
// limit and returns the joined text and the first answer.
func readWhole(t *testing.T, r *Reader, req DocRequest) (string, *Answer) {
	t.Helper()
	lim := r.cfg.Limits.TextMaxLimit
	req.Limit = &lim
	var b strings.Builder
	var first *Answer
	for {
		a, _, err := r.ReadDocumentation(context.Background(), req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		if first == nil {
			first = a
		}
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			return b.String(), first
		}
		req.Offset, req.Stamp = a.NextOffset, &a.Stamp
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./query -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; rerun with -update if the change is intended\n got: %q", name, clip(got))
	}
}

func str(s string) *string { return &s }

// sampleStore is the sample site's version, shared by the package's tests.
var sampleStore *store.Store

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "tzctx-query-")
	if err != nil {
		panic(err)
	}
	if sampleStore, err = testkit.SampleStoreIn(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	sampleStore.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

func sampleReader(t *testing.T) *Reader {
	return NewReader(Config{Limits: testLimits(), Origin: "https://turnzero.ai"}, FromStore(sampleStore))
}

// TestGolden pins the index, outline and page reads of the sample site.
func TestGolden(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	for _, tree := range []string{"cloud", "tzdocs"} {
		for _, part := range []string{"index", "outline"} {
			got, _ := readWhole(t, r, DocRequest{Tree: str(tree), Part: str(part)})
			golden(t, tree+"-"+part+".md", got)
		}
	}
	for _, page := range []string{"/cloud/", "/cloud/guides/reading/", "/tzdocs/markdown/code-fences/"} {
		got, _ := readWhole(t, r, DocRequest{Page: str(page)})
		golden(t, "page"+strings.ReplaceAll(strings.TrimSuffix(page, "/"), "/", "_")+".md", got)
	}
	// The first chunk of a long page, with its headings, as JSON-ish text.
	lim := 2000
	a, _, err := r.ReadDocumentation(context.Background(), DocRequest{Page: str("/cloud/reference/http/"), Paging: Paging{Limit: &lim}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("id: " + a.ID + "\ncontinuation: " + a.Continuation + "\n")
	for _, h := range a.Headings {
		b.WriteString("heading: " + h.Text + " @" + itoa(h.Offset) + "\n")
	}
	b.WriteString("text:\n" + a.Text)
	golden(t, "page_cloud_reference_http.first-chunk.txt", b.String())
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// TestSearchCases runs the data-driven search cases of
// testdata/search_cases.txt on the sample site: each case is a "query:"
// line, an optional "tree:" line, then the answer's lines in order, cases
// separated by a blank line.
func TestSearchCases(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	path := filepath.Join("testdata", "search_cases.txt")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(string(raw)), "\n\n") {
		lines := strings.Split(block, "\n")
		q, ok := strings.CutPrefix(lines[0], "query: ")
		if !ok {
			t.Fatalf("case %q does not start with 'query: '", lines[0])
		}
		req := DocRequest{Query: str(q)}
		head := lines[:1]
		want := lines[1:]
		if len(want) > 0 && strings.HasPrefix(want[0], "tree: ") {
			req.Tree = str(strings.TrimPrefix(want[0], "tree: "))
			head, want = lines[:2], want[1:]
		}
		got, _ := readWhole(t, r, req)
		gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if got == "" {
			gotLines = nil
		}
		if strings.Join(gotLines, "\n") != strings.Join(want, "\n") {
			t.Errorf("query %q:\n got\n%s\n want\n%s", q, strings.Join(gotLines, "\n"), strings.Join(want, "\n"))
		}
		out.WriteString(strings.Join(append(head, gotLines...), "\n") + "\n\n")
	}
	if *update {
		os.WriteFile(path, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644)
	}
}
