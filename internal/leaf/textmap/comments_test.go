package textmap

import (
	"slices"
	"testing"
)

// TestScanComments checks the block-level HTML comments Scan records in
// the pass that finds the fences: offsets in code points, a comment's
// fence markers and a fence's comment markers being content.
func TestScanComments(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		comments []Comment
		fences   int
	}{
		{"none", "# a\ntext\n", nil, 0},
		{"one line", "a\n<!-- x -->\nb\n", []Comment{{Start: 2, End: 13, Closed: true}}, 0},
		{"several lines, code points", "é\n<!-- x\n```\n-->\nb\n", []Comment{{Start: 2, End: 17, Closed: true}}, 0},
		{"unterminated runs to the end", "a\n  <!-- x\ny", []Comment{{Start: 2, End: 12}}, 0},
		{"inside a fence it is content", "```\n<!-- x\n```\nb\n", nil, 1},
		{"indented four spaces is no comment", "    <!-- x\n", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Scan(tt.text)
			if !slices.Equal(m.Comments, tt.comments) {
				t.Errorf("comments = %+v, want %+v", m.Comments, tt.comments)
			}
			if len(m.Fences) != tt.fences {
				t.Errorf("%d fences, want %d", len(m.Fences), tt.fences)
			}
		})
	}
}
