package textmap

import (
	"slices"
	"strings"
	"testing"
)

// chunkCase is one chunk asked of a layout and the chunk expected.
type chunkCase struct {
	offset, limit int
	begin, end    int
}

// TestChunkReadingExamples pins the examples readings give.
func TestChunkReadingExamples(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		cases []chunkCase
	}{
		{
			// a chunk asked off a place may hold up to 2*limit-1.
			name: "A-01 abcdefghij",
			text: "abcdefghij",
			cases: []chunkCase{
				{offset: 6, limit: 4, begin: 4, end: 10},
				{offset: 0, limit: 4, begin: 0, end: 4},
				{offset: 4, limit: 4, begin: 4, end: 8},
				{offset: 8, limit: 4, begin: 8, end: 10},
				{offset: 10, limit: 4, begin: 10, end: 10},
			},
		},
		{
			// A-02 point 1: the '\n' counts in a line's length, so
			// "abcd\n" is longer than 4 and holds a place at 4.
			name: "A-02 abcd ef",
			text: "abcd\nef\n",
			cases: []chunkCase{
				{offset: 0, limit: 4, begin: 0, end: 4},
				{offset: 4, limit: 4, begin: 4, end: 8},
				{offset: 3, limit: 4, begin: 0, end: 5},
			},
		},
		{
			// A-01's counterexample to reading (b): places 0, 10, 105,
			// 200 under limit 100; asked at 100 the chunk runs to 200.
			name: "A-01 places 0 10 105 200",
			text: strings.Repeat("a", 9) + "\n" + strings.Repeat("b", 94) + "\n" + strings.Repeat("c", 95),
			cases: []chunkCase{
				{offset: 0, limit: 100, begin: 0, end: 10},
				{offset: 100, limit: 100, begin: 10, end: 200},
				{offset: 200, limit: 100, begin: 200, end: 200},
			},
		},
		{
			// CTX-07: a block longer than the limit holds the last line
			// start within the limit of its opening line, and of each
			// such place; lines are 4 code points long.
			name: "fence chain",
			text: "```\naaa\nbbb\nccc\nddd\n```\nzz\n",
			cases: []chunkCase{
				{offset: 0, limit: 10, begin: 0, end: 8},
				{offset: 8, limit: 10, begin: 8, end: 16},
				{offset: 16, limit: 10, begin: 16, end: 24},
				{offset: 24, limit: 10, begin: 24, end: 27},
				{offset: 5, limit: 10, begin: 0, end: 8},
				{offset: 0, limit: 24, begin: 0, end: 24},
			},
		},
		{
			// A-02 point 2: a long line inside a block continues the chain
			// from the last place produced, a limit's length at a time:
			// places 0, 4, 14, 24, then the last line start within the
			// limit (32, not 30), then 36.
			name: "long line in a fence",
			text: "```\n" + strings.Repeat("x", 25) + "\ny\n```\n",
			cases: []chunkCase{
				{offset: 0, limit: 10, begin: 0, end: 4},
				{offset: 4, limit: 10, begin: 4, end: 14},
				{offset: 14, limit: 10, begin: 14, end: 24},
				{offset: 24, limit: 10, begin: 24, end: 32},
				{offset: 32, limit: 10, begin: 32, end: 36},
				{offset: 30, limit: 10, begin: 24, end: 36},
			},
		},
		{
			name: "astral code points are one each",
			text: "😀😀😀😀😀😀😀😀😀😀",
			cases: []chunkCase{
				{offset: 0, limit: 3, begin: 0, end: 3},
				{offset: 7, limit: 3, begin: 6, end: 10},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Scan(tt.text)
			for _, c := range tt.cases {
				b, e := Chunk(m, c.offset, c.limit)
				if b != c.begin || e != c.end {
					t.Errorf("Chunk(%d, %d) = [%d,%d), want [%d,%d)", c.offset, c.limit, b, e, c.begin, c.end)
				}
			}
		})
	}
}

// TestA02PlaceSet pins the full place set of A-02's example as the oracle
// enumerates it, so the oracle itself is held to the reading.
func TestA02PlaceSet(t *testing.T) {
	m := Scan("abcd\nef\n")
	got := oraclePlaces(m.Len, m.LineStarts, m.Bases, 4)
	if want := []int{0, 4, 5, 8}; !slices.Equal(got, want) {
		t.Fatalf("places = %v, want %v", got, want)
	}
	if s := Slice("abcd\nef\n", 0, 4) + "|" + Slice("abcd\nef\n", 4, 8); s != "abcd|\nef\n" {
		t.Fatalf("chunks = %q", s)
	}
}

// jMembers is a J_MEMBERS-like entry: member "a" runs from 2 to 39, 37 code
// points, and holds the line starts 11, 23 and 34.
const jMembers = "{\n  \"a\": {\n    \"x\": 1,\n    \"y\": 2\n  },\n  \"b\": 2\n}"

// jShared chains short members that share lines: "a" [2,24), "b" [11,37),
// "c" [24,50), "d" [37,63), "e" [50,66); total 67.
const jShared = "{\n\"a\": [1,\n2], \"b\": [3,\n4], \"c\": [5,\n6], \"d\": [7,\n8], \"e\": [9,\n0]\n}"

// jRootArray holds members of depth 2 ("a" [6,18), "b" [18,62) in an
// object in the root array), 3 ("c", "d", and "x" [77,129) in an object in
// an array in the root array) and 4 ("y", "z"). Its line starts are 0, 2, 6,
// 18, 29, 43, 56, 62, 67, 71, 77, 90, 106, 121, 129, 135, 139; total 141.
const jRootArray = "[\n  {\n    \"a\": 1,\n    \"b\": {\n      \"c\": 2,\n      \"d\": 3\n    }\n  },\n  [\n    {\n      \"x\": {\n        \"y\": 1,\n        \"z\": 2\n      }\n    }\n  ]\n]\n"

// jNested nests members in the root object: "o" [2,89) depth 1, "p"
// [11,37) and "q" [37,85) depth 2, "r" [48,79) depth 3. Its line starts are
// 0, 2, 11, 22, 30, 37, 48, 61, 71, 79, 85, 89; total 90.
const jNested = "{\n  \"o\": {\n    \"p\": [\n      1\n    ],\n    \"q\": {\n      \"r\": [\n        2\n      ]\n    }\n  }\n}"

// TestJSONMembers pins member spans and depths (A-04 points 3 to 5).
func TestJSONMembers(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Member
	}{
		{
			name: "J_MEMBERS-like",
			text: jMembers,
			want: []Member{{2, 39, 1}, {11, 23, 2}, {23, 34, 2}, {39, 48, 1}},
		},
		{
			name: "nested in the root object",
			text: jNested,
			want: []Member{{2, 89, 1}, {11, 37, 2}, {37, 85, 2}, {48, 79, 3}},
		},
		{
			name: "members sharing lines",
			text: jShared,
			want: []Member{{2, 24, 1}, {11, 37, 1}, {24, 50, 1}, {37, 63, 1}, {50, 66, 1}},
		},
		{
			name: "root array depths",
			text: jRootArray,
			want: []Member{{6, 18, 2}, {18, 62, 2}, {29, 43, 3}, {43, 56, 3}, {77, 129, 3}, {90, 106, 4}, {106, 121, 4}},
		},
		{
			name: "last member without a following line ends at the total",
			text: "{\"a\": {\"b\": [1,\n2]}}",
			want: []Member{{0, 20, 1}, {0, 20, 2}},
		},
		{
			name: "one line",
			text: "{\"a\":1,\"b\":{\"c\":\"}\"}}\n",
			want: []Member{{0, 22, 1}, {0, 22, 1}, {0, 22, 2}},
		},
		{
			name: "scalar root",
			text: "\"x\"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := JSONMembers(tt.text)
			if !ok {
				t.Fatal("JSONMembers: not valid JSON")
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("members = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestScanJSONBases pins the base places of the member rule, including the
// strict 2*length < limit boundary of A-04 point 2.
func TestScanJSONBases(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []uint32
	}{
		// "a" is 37 long: not short at 74, short at 75.
		{"J_MEMBERS at 74", jMembers, 74, []uint32{0, 2, 11, 23, 34, 39, 48}},
		{"J_MEMBERS at 75", jMembers, 75, []uint32{0, 2, 39, 48}},
		// "x" and "y" (depth 2) span one line each and so remove nothing.
		{"J_MEMBERS at 1000", jMembers, 1000, []uint32{0, 2, 39, 48}},
		{"J_MEMBERS at 1", jMembers, 1, []uint32{0, 2, 11, 23, 34, 39, 48}},
		// "r" (depth 3, 31 long) is short at 63 but removes nothing;
		// "p" (26) does. "q" (48) is short from 97, "o" (87) from 175.
		{"nested at 63", jNested, 63, []uint32{0, 2, 11, 37, 48, 61, 71, 79, 85, 89}},
		{"nested at 96", jNested, 96, []uint32{0, 2, 11, 37, 48, 61, 71, 79, 85, 89}},
		{"nested at 97", jNested, 97, []uint32{0, 2, 11, 37, 85, 89}},
		{"nested at 175", jNested, 175, []uint32{0, 2, 89}},
		// "b", "c", "d" are 26 long: short from 53; "a" (22) from 45.
		{"shared at 52", jShared, 52, []uint32{0, 2, 24, 37, 50, 66}},
		{"shared at 53", jShared, 53, []uint32{0, 2, 66}},
		// Depth 2 "b" (44 long) removes 29, 43, 56 from limit 89 on;
		// depth 3 "x" removes nothing however short it is.
		{"root array at 88", jRootArray, 88, []uint32{0, 2, 6, 18, 29, 43, 56, 62, 67, 71, 77, 90, 106, 121, 129, 135, 139}},
		{"root array at 89", jRootArray, 89, []uint32{0, 2, 6, 18, 62, 67, 71, 77, 90, 106, 121, 129, 135, 139}},
		{"root array at 1000", jRootArray, 1000, []uint32{0, 2, 6, 18, 62, 67, 71, 77, 90, 106, 121, 129, 135, 139}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := ScanJSON(tt.text, tt.limit)
			if !ok {
				t.Fatal("ScanJSON: not valid JSON")
			}
			m := l.(*Map)
			if !slices.Equal(m.Bases, tt.want) {
				t.Fatalf("bases = %v, want %v", m.Bases, tt.want)
			}
		})
	}
}

// TestScanJSONSharedLineFallback pins A-04 point 7: without the fallback,
// jShared at limit 53 has places only at 0, 2, 66 and 67 and a read at 2
// could not progress; with it, 50 is a place.
func TestScanJSONSharedLineFallback(t *testing.T) {
	l, ok := ScanJSON(jShared, 53)
	if !ok {
		t.Fatal("ScanJSON: not valid JSON")
	}
	m := l.(*Map)
	if got, want := oraclePlaces(m.Len, m.LineStarts, m.Bases, 53), []int{0, 2, 50, 66, 67}; !slices.Equal(got, want) {
		t.Fatalf("places = %v, want %v", got, want)
	}
	for _, c := range []chunkCase{
		{offset: 0, limit: 53, begin: 0, end: 50},
		{offset: 2, limit: 53, begin: 2, end: 50},
		{offset: 50, limit: 53, begin: 50, end: 67},
		{offset: 49, limit: 53, begin: 2, end: 67},
	} {
		if b, e := Chunk(l, c.offset, c.limit); b != c.begin || e != c.end {
			t.Errorf("Chunk(%d, %d) = [%d,%d), want [%d,%d)", c.offset, c.limit, b, e, c.begin, c.end)
		}
	}
}

// TestScanJSONRejects checks that texts encoding/json rejects answer
// ok=false, so the caller falls back to Scan.
func TestScanJSONRejects(t *testing.T) {
	for _, text := range []string{
		"",
		"\ufeff{}",
		"{} x",
		"{\"a\": 1,}",
		"# Title\n",
		"{\"a\": \"line\nbreak\"}",
	} {
		if _, ok := ScanJSON(text, 10); ok {
			t.Errorf("ScanJSON(%q) ok, want not JSON", text)
		}
		if _, ok := JSONMembers(text); ok {
			t.Errorf("JSONMembers(%q) ok, want not JSON", text)
		}
	}
}
