package textmap

import (
	"slices"
	"testing"
)

// TestScanPinned pins the bases, fences and headings Scan answers for texts
// whose layout was worked out by hand from.
func TestScanPinned(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		bases    []uint32
		fences   []Fence
		headings []Heading
	}{
		{
			name:  "empty",
			text:  "",
			bases: []uint32{0},
		},
		{
			name:   "tilde fence holding a backtick fence",
			text:   "# Title\n\nintro\n~~~~md\n```go\n## not a heading\n```\n~~~\nstill inside\n~~~~\nafter\n## Real one\ntext\n",
			bases:  []uint32{0, 8, 9, 15, 71, 77, 89},
			fences: []Fence{{Start: 15, End: 71, Closed: true}},
			headings: []Heading{
				{Depth: 1, Text: "Title", Offset: 0},
				{Depth: 2, Text: "Real one", Offset: 77},
			},
		},
		{
			name:     "shorter fences inside a longer one",
			text:     "`````\n```\n## inner\n```\n````\n`````\n## After\nline\n",
			bases:    []uint32{0, 34, 43},
			fences:   []Fence{{Start: 0, End: 34, Closed: true}},
			headings: []Heading{{Depth: 2, Text: "After", Offset: 34}},
		},
		{
			name:     "a closing line with an info string is content",
			text:     "```\ncode\n```python\nstill code\n``` \t\nout\n### Out\n",
			bases:    []uint32{0, 36, 40},
			fences:   []Fence{{Start: 0, End: 36, Closed: true}},
			headings: []Heading{{Depth: 3, Text: "Out", Offset: 40}},
		},
		{
			name:   "the other fence character does not close",
			text:   "~~~\n```\n~~~~~\nx\n",
			bases:  []uint32{0, 14},
			fences: []Fence{{Start: 0, End: 14, Closed: true}},
		},
		{
			name:   "unterminated fence runs to the end",
			text:   "intro\n\n```js\nline1\n## nope\n",
			bases:  []uint32{0, 6, 7},
			fences: []Fence{{Start: 7, End: 27}},
		},
		{
			name:     "a backtick in a backtick info string is no fence",
			text:     "``` a`b\n## heading\n~~~ a`b\n",
			bases:    []uint32{0, 8, 19},
			fences:   []Fence{{Start: 19, End: 27}},
			headings: []Heading{{Depth: 2, Text: "heading", Offset: 8}},
		},
		{
			name:   "indentation of three spaces, four spaces and a tab",
			text:   "   ```\n# in\n   ```\n    ```\n## four spaces\n\n\t```\n## tab\n  ~~~\n",
			bases:  []uint32{0, 19, 27, 42, 43, 48, 55},
			fences: []Fence{{Start: 0, End: 19, Closed: true}, {Start: 55, End: 61}},
			headings: []Heading{
				{Depth: 2, Text: "four spaces", Offset: 27},
				{Depth: 2, Text: "tab", Offset: 48},
			},
		},
		{
			name:   "a fence marker inside a comment is content",
			text:   "<!--\n```\n## in comment\n-->\n## Visible\ntext\n```\nreal fence\n```\nend\n",
			bases:  []uint32{0, 5, 9, 23, 27, 38, 43, 62},
			fences: []Fence{{Start: 43, End: 62, Closed: true}},
			headings: []Heading{
				{Depth: 2, Text: "in comment", Offset: 9},
				{Depth: 2, Text: "Visible", Offset: 27},
			},
		},
		{
			name:     "a comment opener inside a fence is content",
			text:     "```\n<!--\n```\n## Yes\n-->\ntail\n",
			bases:    []uint32{0, 13, 20, 24},
			fences:   []Fence{{Start: 0, End: 13, Closed: true}},
			headings: []Heading{{Depth: 2, Text: "Yes", Offset: 13}},
		},
		{
			name:     "a comment closed on its own line",
			text:     "  <!-- note --> \n```\n## code\n```\n## H\n",
			bases:    []uint32{0, 17, 33},
			fences:   []Fence{{Start: 17, End: 33, Closed: true}},
			headings: []Heading{{Depth: 2, Text: "H", Offset: 33}},
		},
		{
			name:     "an unterminated comment runs to the end",
			text:     "text\n<!-- open\n```\n## counted\nmore\n",
			bases:    []uint32{0, 5, 15, 19, 30},
			headings: []Heading{{Depth: 2, Text: "counted", Offset: 19}},
		},
		{
			name:     "an indented comment opener of four spaces is no comment",
			text:     "    <!--\n```\nx\n```\n",
			bases:    []uint32{0, 9},
			fences:   []Fence{{Start: 9, End: 19, Closed: true}},
			headings: nil,
		},
		{
			name:   "crlf line ends",
			text:   "# Title\r\n\r\n```\r\ncode\r\n## no\r\n```\r\n## Yes \r\nend\r\n",
			bases:  []uint32{0, 9, 11, 34, 43},
			fences: []Fence{{Start: 11, End: 34, Closed: true}},
			headings: []Heading{
				{Depth: 1, Text: "Title", Offset: 0},
				{Depth: 2, Text: "Yes", Offset: 34},
			},
		},
		{
			name:   "a lone carriage return is no line end",
			text:   "a\rb\r```\rc\n```\n## h\rx\n",
			bases:  []uint32{0, 10},
			fences: []Fence{{Start: 10, End: 21}},
		},
		{
			name:   "a lone carriage return after a closer is content",
			text:   "```\nx\n```\r",
			bases:  []uint32{0},
			fences: []Fence{{Start: 0, End: 10}},
		},
		{
			name:     "astral characters count as one code point",
			text:     "😀😀\n```\n🚀🚀🚀\n```\n## 𝒳 😀\n",
			bases:    []uint32{0, 3, 15},
			fences:   []Fence{{Start: 3, End: 15, Closed: true}},
			headings: []Heading{{Depth: 2, Text: "𝒳 😀", Offset: 15}},
		},
		{
			name:     "no final line end",
			text:     "abc\n```\ndef\n```\n## end",
			bases:    []uint32{0, 4, 16},
			fences:   []Fence{{Start: 4, End: 16, Closed: true}},
			headings: []Heading{{Depth: 2, Text: "end", Offset: 16}},
		},
		{
			name:   "closing line is the last line",
			text:   "x\n```\ny\n```",
			bases:  []uint32{0, 2},
			fences: []Fence{{Start: 2, End: 11, Closed: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Scan(tt.text)
			if !slices.Equal(m.Bases, tt.bases) {
				t.Errorf("bases = %v, want %v", m.Bases, tt.bases)
			}
			if !slices.Equal(m.Fences, tt.fences) {
				t.Errorf("fences = %+v, want %+v", m.Fences, tt.fences)
			}
			if !slices.Equal(m.Headings, tt.headings) {
				t.Errorf("headings = %+v, want %+v", m.Headings, tt.headings)
			}
		})
	}
}

// TestScanHeadingSyntax pins A-19's ATX syntax one line at a time.
func TestScanHeadingSyntax(t *testing.T) {
	tests := []struct {
		line  string
		depth int // 0: no heading
		text  string
	}{
		{"# foo", 1, "foo"},
		{"###### foo", 6, "foo"},
		{"####### foo", 0, ""},
		{"#5 bolt", 0, ""},
		{"#hashtag", 0, ""},
		{"\\## foo", 0, ""},
		{"# foo *bar* \\*baz\\*", 1, "foo *bar* \\*baz\\*"},
		{"#                  foo                     ", 1, "foo"},
		{"   # foo", 1, "foo"},
		{"    # foo", 0, ""},
		{"\t# foo", 0, ""},
		{" \t# foo", 0, ""},
		{"#\tfoo\t", 1, "foo"},
		{"## foo ##", 2, "foo"},
		{"  ###   bar    ###", 3, "bar"},
		{"# foo ##################################", 1, "foo"},
		{"### foo ###     ", 3, "foo"},
		{"### foo ### b", 3, "foo ### b"},
		{"# foo#", 1, "foo#"},
		{"### foo \\###", 3, "foo \\###"},
		{"## foo #\\##", 2, "foo #\\##"},
		{"## foo\t##", 2, "foo"},
		{"## ", 2, ""},
		{"#", 1, ""},
		{"### ###", 3, ""},
		{"# #", 1, ""},
		{"## #foo", 2, "#foo"},
		{"<!-- # x -->", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			for _, end := range []string{"", "\n", "\r\n"} {
				m := Scan("para\n" + tt.line + end)
				switch {
				case tt.depth == 0 && len(m.Headings) != 0:
					t.Errorf("end %q: headings = %+v, want none", end, m.Headings)
				case tt.depth == 0:
				case len(m.Headings) != 1:
					t.Errorf("end %q: headings = %+v, want one", end, m.Headings)
				default:
					want := Heading{Depth: tt.depth, Text: tt.text, Offset: 5}
					if m.Headings[0] != want {
						t.Errorf("end %q: heading = %+v, want %+v", end, m.Headings[0], want)
					}
				}
			}
		})
	}
}

// TestScanAgreesWithOracles checks Scan's layout of every corpus text
// against brute-force line starts and against its own fence list.
func TestScanAgreesWithOracles(t *testing.T) {
	for _, tt := range trickyTexts {
		if tt.json {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			m := Scan(tt.text)
			if m.Len != runeLen(tt.text) || m.Total() != m.Len {
				t.Fatalf("Len = %d, Total() = %d, want %d", m.Len, m.Total(), runeLen(tt.text))
			}
			var got []int
			for _, s := range m.LineStarts {
				got = append(got, int(s))
			}
			if want := oracleLineStarts(tt.text); !slices.Equal(got, want) {
				t.Fatalf("line starts = %v, want %v", got, want)
			}
			// A line start is a base exactly when no fence holds it
			// strictly after its opening line and before its end.
			var want []uint32
			for _, s := range m.LineStarts {
				inside := false
				for _, f := range m.Fences {
					if int(s) > f.Start && int(s) < f.End {
						inside = true
					}
				}
				if !inside {
					want = append(want, s)
				}
			}
			if !slices.Equal(m.Bases, want) {
				t.Fatalf("bases = %v, want %v (fences %+v)", m.Bases, want, m.Fences)
			}
			for _, h := range m.Headings {
				if _, found := slices.BinarySearch(m.Bases, uint32(h.Offset)); !found {
					t.Errorf("heading %+v does not start at a base place", h)
				}
			}
		})
	}
}
