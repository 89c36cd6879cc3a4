package console_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/internal/console"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/query"
)

// harness runs the console's score module under node: it reads queries
// and texts as JSON on stdin and prints what the module makes of them.
const harness = `import { queryWords, goLower, atxHeadings, breakdown } from './score.mjs';
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => {
  const { queries, texts, title } = JSON.parse(input);
  const out = {
    words: queries.map((q) => queryWords(q)),
    lower: texts.map((t) => goLower(t)),
    headings: texts.map((t) => atxHeadings(t).map((h) => ({ depth: h.depth, text: h.text }))),
    scores: queries.map((q) => texts.map((t) => breakdown(queryWords(q), title, t).total)),
  };
  process.stdout.write(JSON.stringify(out));
});
`

type heading struct {
	Depth int    `json:"depth"`
	Text  string `json:"text"`
}

// TestScoreModuleFollowsTheServer: the browser's search rule (words,
// lower-casing, the headings outside fences) gives what the server's own
// functions give, on the sample site's pages and on the cases the
// readings name (İ, final sigma, U+0085, U+00A0, U+FEFF, rule codes,
// fences, comments). The page's scores are only worth showing if it
// reads the text as the server does.
func TestScoreModuleFollowsTheServer(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("no node to run the console's score module with: %v", err)
	}
	w := httptestGet(t, console.Prefix+"score.js")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "score.mjs"), w, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness.mjs"), []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"stamp offset", "  Stamp\u00a0OFFSET  ", "ΟΔΟΣ", "İstanbul", "a\u0085b", "a\ufeffb", "a\u200bb", "a\u3000b\u2028c",
		"CTX-07", "(CTX-07)", " (API-L0-09) ", "ctx-07", "(CTX-07", "CTX-07 paging", "system:FTR-L0-26", "CTX-nn",
		"error errors error", "`code`", "ǅ Ǳ ẞ", "\t\v\f\r\n",
	}
	texts := []string{
		"# T\n\n## A ##\n### B #\n#### C#\n####### no\n#no\n    ## indented\n   ## three\n",
		"## a\n```\n## in fence\n```\n## b\n~~~~\n## in tilde\n~~~\n## still\n~~~~~\n## c\n",
		"## a\r\n<!-- x\n## in comment\n```\n-->\n## after\n``` js `x`\n## not a fence\n",
		"```\nunterminated\n## hidden\n",
		"## İ Σ ΟΔΟΣ\n\tno tab\n## tab\theading\n",
	}
	site, err := data.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".mdx") || strings.HasSuffix(p, ".md")) {
			b, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			texts = append(texts, string(b))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]any{"queries": queries, "texts": texts, "title": "Stamp and OFFSET İ"})
	cmd := exec.Command(node, "harness.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("node harness.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		Words    [][]string  `json:"words"`
		Lower    []string    `json:"lower"`
		Headings [][]heading `json:"headings"`
		Scores   [][]int     `json:"scores"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		want := query.QueryWords(q)
		if len(want) == 0 {
			want = []string{}
		}
		if !reflect.DeepEqual(got.Words[i], want) {
			t.Errorf("words of %q: the page %q, the server %q", q, got.Words[i], want)
		}
	}
	title := strings.ToLower("Stamp and OFFSET İ")
	for i, text := range texts {
		if got.Lower[i] != strings.ToLower(text) {
			t.Errorf("text %d lower-cased differs from strings.ToLower", i)
		}
		want := []heading{}
		var hs strings.Builder
		for _, h := range textmap.Scan(text).Headings {
			want = append(want, heading{h.Depth, h.Text})
			if h.Depth >= 2 {
				hs.WriteString(strings.ToLower(h.Text) + "\n")
			}
		}
		if !reflect.DeepEqual(got.Headings[i], want) {
			t.Errorf("text %d (%.40q): headings %v, the server's scanner %v", i, text, got.Headings[i], want)
		}
		// The score by the contract's rule over the server's own pieces.
		lower := strings.ToLower(text)
		for j, q := range queries {
			s := 0
			for _, w := range query.QueryWords(q) {
				if strings.Contains(title, w) {
					s += 3
				}
				if strings.Contains(hs.String(), w) {
					s += 2
				}
				if strings.Contains(lower, w) {
					s++
				}
			}
			if got.Scores[j][i] != s {
				t.Errorf("query %q on text %d: the page scores %d, the rule over the server's pieces %d", q, i, got.Scores[j][i], s)
			}
		}
	}
	t.Logf("%d queries on %d texts (%d of them the sample site's pages) agree", len(queries), len(texts), len(texts)-5)
}

func httptestGet(t *testing.T, path string) []byte {
	t.Helper()
	r := get(t, console.Handler(), http.MethodGet, path)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, r.StatusCode)
	}
	return []byte(body(t, r))
}
