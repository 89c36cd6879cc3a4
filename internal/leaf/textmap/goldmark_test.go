package textmap

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// commonmarkExample is one example of testdata/commonmark_examples.json.
type commonmarkExample struct {
	Example  int    `json:"example"`
	Section  string `json:"section"`
	Markdown string `json:"markdown"`
}

// fenceLines is a fenced block as line indices: its opening line and the
// lines of its content (the lines after the opening line and before the
// closing line, or to the end when it is unterminated).
type fenceLines struct {
	Open    int
	Content []int
}

// headingLine is an ATX heading as a line index, a depth and a raw text.
type headingLine struct {
	Line  int
	Depth int
	Text  string
}

// lineOfByte answers the index of the line holding byte offset pos.
func lineOfByte(src []byte, pos int) int {
	return strings.Count(string(src[:pos]), "\n")
}

// lineOfCodePoint answers the index of the line starting at or holding
// code-point offset cp.
func lineOfCodePoint(m *Map, cp int) int {
	return upperBound(m.LineStarts, cp) - 1
}

// goldmarkBlocks parses src with goldmark's CommonMark parser and answers
// its fenced code blocks and ATX headings. A setext heading is told apart by
// its text segment starting at the node's own position (an ATX heading's
// text starts after its '#' characters); setext headings are skipped, since
// A-19 does not recognise them.
func goldmarkBlocks(t *testing.T, src []byte) ([]fenceLines, []headingLine) {
	t.Helper()
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var fences []fenceLines
	var headings []headingLine
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if n.Pos() < 0 {
				return ast.WalkStop, fmt.Errorf("fenced code block without a position")
			}
			f := fenceLines{Open: lineOfByte(src, n.Pos())}
			for i := 0; i < n.Lines().Len(); i++ {
				f.Content = append(f.Content, lineOfByte(src, n.Lines().At(i).Start))
			}
			fences = append(fences, f)
		case *ast.Heading:
			lines := n.Lines()
			if lines.Len() > 0 && lines.At(0).Start == n.Pos() {
				return ast.WalkSkipChildren, nil // setext
			}
			if lines.Len() > 1 {
				return ast.WalkStop, fmt.Errorf("ATX heading with %d lines", lines.Len())
			}
			h := headingLine{Line: lineOfByte(src, n.Pos()), Depth: n.Level}
			if lines.Len() == 1 {
				seg := lines.At(0)
				h.Text = string(seg.Value(src))
			}
			headings = append(headings, h)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatalf("walking goldmark's AST: %v", err)
	}
	return fences, headings
}

// scanBlocks answers Scan's fenced blocks and headings of src in the form
// goldmarkBlocks answers.
func scanBlocks(src string) ([]fenceLines, []headingLine) {
	m := Scan(src)
	var fences []fenceLines
	for _, f := range m.Fences {
		fl := fenceLines{Open: lineOfCodePoint(m, f.Start)}
		for _, s := range m.LineStarts {
			if int(s) <= f.Start || int(s) >= f.End {
				continue
			}
			fl.Content = append(fl.Content, lineOfCodePoint(m, int(s)))
		}
		if f.Closed {
			// The last line of a closed fence is its closing line.
			fl.Content = fl.Content[:len(fl.Content)-1]
		}
		fences = append(fences, fl)
	}
	var headings []headingLine
	for _, h := range m.Headings {
		headings = append(headings, headingLine{Line: lineOfCodePoint(m, h.Offset), Depth: h.Depth, Text: h.Text})
	}
	return fences, headings
}

// equalFences compares fence lists, reading a nil content as empty.
func equalFences(a, b []fenceLines) bool {
	return slices.EqualFunc(a, b, func(x, y fenceLines) bool {
		return x.Open == y.Open && slices.Equal(x.Content, y.Content)
	})
}

// checkGoldmarkParity compares Scan with goldmark on one container-free
// Markdown text and answers how many fences and headings goldmark found.
func checkGoldmarkParity(t *testing.T, src string) (nFences, nHeadings int) {
	t.Helper()
	gf, gh := goldmarkBlocks(t, []byte(src))
	sf, sh := scanBlocks(src)
	if !equalFences(sf, gf) {
		t.Errorf("fences: Scan %+v, goldmark %+v\nsource %q", sf, gf, src)
	}
	if !slices.Equal(sh, gh) {
		t.Errorf("headings: Scan %+v, goldmark %+v\nsource %q", sh, gh, src)
	}
	return len(gf), len(gh)
}

// TestGoldmarkParityCommonMark checks that Scan's fenced blocks and ATX
// headings agree with goldmark's AST on the container-free CommonMark spec
// examples of the sections "Fenced code blocks" and "ATX headings" (see
// testdata/README.md for the selection and the licence).
func TestGoldmarkParityCommonMark(t *testing.T) {
	raw, err := os.ReadFile("testdata/commonmark_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []commonmarkExample
	if err := json.Unmarshal(raw, &examples); err != nil {
		t.Fatal(err)
	}
	sections := map[string]int{}
	for _, ex := range examples {
		sections[ex.Section]++
	}
	if sections["Fenced code blocks"] != 28 || sections["ATX headings"] != 18 {
		t.Fatalf("testdata holds %v, want 28 fenced code block and 18 ATX heading examples", sections)
	}
	nFences, nHeadings := 0, 0
	for _, ex := range examples {
		t.Run(fmt.Sprintf("example %d", ex.Example), func(t *testing.T) {
			f, h := checkGoldmarkParity(t, ex.Markdown)
			nFences += f
			nHeadings += h
		})
	}
	// The comparison is not vacuous: goldmark finds 24 fenced blocks and
	// 27 ATX headings (example 141's setext heading skipped) in the set.
	if nFences != 24 || nHeadings != 27 {
		t.Errorf("goldmark found %d fences and %d ATX headings, want 24 and 27", nFences, nHeadings)
	}
}

// TestGoldmarkParityCorpus runs the same comparison over the corpus texts
// goldmark can judge: container-free, without a lone '\r' (a line end to
// CommonMark, content to A-32) and without a heading inside an HTML comment
// (raw HTML to CommonMark, a heading to A-03).
func TestGoldmarkParityCorpus(t *testing.T) {
	for _, tt := range trickyTexts {
		if tt.json || !tt.goldmark {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			checkGoldmarkParity(t, tt.text)
		})
	}
}

// TestGoldmarkParityDetectsDrift makes sure the comparison can fail: a
// heading inside an HTML comment is one on purpose, and goldmark
// reads it as raw HTML.
func TestGoldmarkParityDetectsDrift(t *testing.T) {
	src := "<!--\n## in comment\n-->\n"
	_, gh := goldmarkBlocks(t, []byte(src))
	_, sh := scanBlocks(src)
	if len(gh) != 0 || len(sh) != 1 {
		t.Fatalf("goldmark headings %+v, Scan headings %+v; want none and one", gh, sh)
	}
}
