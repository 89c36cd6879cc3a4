package textmap

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMaxRunes bounds a fuzzed text, so that the brute-force oracles,
// quadratic in the text, keep the executions fast.
const fuzzMaxRunes = 1200

// fuzzText makes a fuzzed string a text Scan is meant for: valid UTF-8
// (invalid bytes become U+FFFD, as no ingested text holds them) and at
// most fuzzMaxRunes code points.
func fuzzText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) > fuzzMaxRunes {
		s = string([]rune(s)[:fuzzMaxRunes])
	}
	return s
}

// fuzzLimit maps a fuzzed integer to a limit: mostly small ones, which
// make many chunks and chain places, sometimes one past the text.
func fuzzLimit(n int, total int) int {
	if n < 0 {
		n = -(n + 1)
	}
	if n%17 == 0 {
		return total + 1 + n%3
	}
	return 1 + n%97
}

// addCorpusSeeds adds every text of the property corpus as a seed.
func addCorpusSeeds(f *testing.F, add func(tt trickyText)) {
	for _, tt := range trickyTexts {
		if runeLen(tt.text) <= fuzzMaxRunes {
			add(tt)
		}
	}
}

// FuzzChunk pages a fuzzed text, laid out as plain text or as a JSON
// entry, under a fuzzed limit, and holds Chunk to the brute-force oracle
// of at every offset: the chunks read with next_offset from 0
// join to the whole text with each within the limit, chunks asked at
// multiples of the limit join with no gap or overlap, consecutive places
// are at most a limit apart, and a chunk asked at a heading begins there.
func FuzzChunk(f *testing.F) {
	addCorpusSeeds(f, func(tt trickyText) { f.Add(tt.text, 7, tt.json) })
	f.Add("abcd\nef\n", 3, false)
	f.Add("{\"a\": [1,\n2], \"b\": {\"c\":\n\"d\"}}", 5, true)
	f.Add("```\n"+strings.Repeat("x", 40)+"\n```\n# h\n", 6, false)
	f.Fuzz(func(t *testing.T, raw string, n int, asJSON bool) {
		text := fuzzText(raw)
		runes := []rune(text)
		total := len(runes)
		limit := fuzzLimit(n, total)
		plain := Scan(text)
		m := plain
		if asJSON {
			l, ok := ScanJSON(text, limit)
			if ok {
				m = l.(*Map)
			} else if _, ok := JSONMembers(text); ok {
				t.Fatalf("ScanJSON refused a text JSONMembers accepts")
			}
		}
		if m.Total() != total {
			t.Fatalf("Total() = %d, want %d", m.Total(), total)
		}
		var starts []int
		for _, s := range m.LineStarts {
			starts = append(starts, int(s))
		}
		if want := oracleLineStarts(text); !slices.Equal(starts, want) {
			t.Fatalf("line starts = %v, want %v", starts, want)
		}
		if len(m.Bases) == 0 || m.Bases[0] != 0 || !slices.IsSorted(m.Bases) {
			t.Fatalf("bases %v do not start at 0 in ascending order", m.Bases)
		}
		places := oraclePlaces(total, m.LineStarts, m.Bases, limit)
		checkPlaceGaps(t, places, total, limit)
		checkEveryOffset(t, m, oracleLastPlace(places, total), limit)
		checkPaging(t, m, runes, limit)
		checkMultiples(t, m, limit)
		if m == plain {
			for _, h := range plain.Headings {
				if b, _ := Chunk(m, h.Offset, limit); b != h.Offset {
					t.Fatalf("limit %d: chunk asked at heading offset %d begins at %d", limit, h.Offset, b)
				}
			}
		}
		// Out-of-range offsets and limits are clamped, never a panic.
		if b, e := Chunk(m, total+5, limit); b != total || e != total {
			t.Fatalf("chunk past the end = [%d,%d), want [%d,%d)", b, e, total, total)
		}
		if b, e := Chunk(m, -3, 0); b != 0 || (total > 0 && e > 1) {
			t.Fatalf("chunk at -3 under limit 0 = [%d,%d), want [0,<=1)", b, e)
		}
	})
}

// atxLine is the ATX heading syntax of A-19 as a regular expression over
// one line's content, the oracle of parseATX: 0 to 3 spaces, 1 to 6 '#',
// then a space, a tab or the end.
var atxLine = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t](.*))?$`)

// oracleHeadingText is A-19's heading text by its definition: the rest
// trimmed of spaces and tabs, and a closing '#' run removed where it is
// the whole rest or follows a space or a tab.
func oracleHeadingText(rest string) string {
	t := strings.Trim(rest, " \t")
	closing := regexp.MustCompile(`(^|[ \t])#+$`)
	if loc := closing.FindStringIndex(t); loc != nil {
		t = strings.TrimRight(t[:loc[0]], " \t")
	}
	return t
}

// FuzzScan scans a fuzzed Markdown text and checks the layout against
// oracles: brute-force line starts; bases are exactly the line starts no
// fence holds strictly inside; fences and comments are ordered, disjoint
// and start at line starts; a heading is found exactly on the lines,
// outside fences and outside comment opening lines, that the A-19
// expression matches, with the text that definition gives; the same text
// with CRLF line ends lays out the same lines; and scanning the part
// after a line start where no block is open gives the same blocks.
func FuzzScan(f *testing.F) {
	addCorpusSeeds(f, func(tt trickyText) {
		if !tt.json {
			f.Add(tt.text)
		}
	})
	f.Add("# a #\n##\t b ##\n### ###\n####### no\n#no\n   # yes\n    # no\n")
	f.Add("<!-- a\n# in comment\n```\n-->\n```\n<!--\n```\n# h\n")
	f.Add("~~~ x\n~~\n~~~~ \n# after\n")
	f.Fuzz(func(t *testing.T, raw string) {
		text := fuzzText(raw)
		m := Scan(text)
		if m.Len != runeLen(text) {
			t.Fatalf("Len = %d, want %d", m.Len, runeLen(text))
		}
		var starts []int
		for _, s := range m.LineStarts {
			starts = append(starts, int(s))
		}
		if want := oracleLineStarts(text); !slices.Equal(starts, want) {
			t.Fatalf("line starts = %v, want %v", starts, want)
		}
		insideFence := func(s int) bool {
			for _, fc := range m.Fences {
				if s > fc.Start && s < fc.End {
					return true
				}
			}
			return false
		}
		var wantBases []uint32
		for _, s := range m.LineStarts {
			if !insideFence(int(s)) {
				wantBases = append(wantBases, s)
			}
		}
		if !slices.Equal(m.Bases, wantBases) {
			t.Fatalf("bases = %v, want %v (fences %+v)", m.Bases, wantBases, m.Fences)
		}
		type span struct{ start, end int }
		var blocks []span
		for _, fc := range m.Fences {
			blocks = append(blocks, span{fc.Start, fc.End})
		}
		for _, c := range m.Comments {
			blocks = append(blocks, span{c.Start, c.End})
		}
		slices.SortFunc(blocks, func(a, b span) int { return a.start - b.start })
		for i, b := range blocks {
			if _, ok := slices.BinarySearch(starts, b.start); !ok || b.end <= b.start || b.end > m.Len {
				t.Fatalf("block [%d,%d) does not start at a line start or is empty", b.start, b.end)
			}
			if _, ok := slices.BinarySearch(starts, b.end); !ok && b.end != m.Len {
				t.Fatalf("block [%d,%d) does not end at a line start or the end", b.start, b.end)
			}
			if i > 0 && blocks[i-1].end > b.start {
				t.Fatalf("blocks [%d,%d) and [%d,%d) overlap", blocks[i-1].start, blocks[i-1].end, b.start, b.end)
			}
		}
		// Headings: every line outside a fence (and not a fence's or a
		// comment's opening line) that the expression matches.
		lines := strings.Split(text, "\n")
		opensBlock := map[int]bool{}
		for _, b := range blocks {
			opensBlock[b.start] = true
		}
		var want []Heading
		for i, line := range lines {
			if i >= len(starts) {
				break // the empty "line" after a final '\n'
			}
			s := starts[i]
			if insideFence(s) || opensBlock[s] {
				continue
			}
			content := line
			if i < len(lines)-1 {
				content = strings.TrimSuffix(line, "\r")
			}
			if g := atxLine.FindStringSubmatch(content); g != nil {
				want = append(want, Heading{Depth: len(g[1]), Text: oracleHeadingText(g[2]), Offset: s})
			}
		}
		if !slices.Equal(m.Headings, want) {
			t.Fatalf("headings = %+v, want %+v", m.Headings, want)
		}
		// CRLF line ends lay out the same lines.
		if !strings.Contains(text, "\r") {
			crlf := Scan(strings.ReplaceAll(text, "\n", "\r\n"))
			if len(crlf.Headings) != len(m.Headings) || len(crlf.Fences) != len(m.Fences) || len(crlf.Comments) != len(m.Comments) || len(crlf.Bases) != len(m.Bases) {
				t.Fatalf("CRLF layout differs: %d headings, %d fences, %d comments, %d bases; LF %d, %d, %d, %d",
					len(crlf.Headings), len(crlf.Fences), len(crlf.Comments), len(crlf.Bases), len(m.Headings), len(m.Fences), len(m.Comments), len(m.Bases))
			}
			for i, h := range crlf.Headings {
				if h.Text != m.Headings[i].Text || h.Depth != m.Headings[i].Depth {
					t.Fatalf("CRLF heading %d = %+v, LF %+v", i, h, m.Headings[i])
				}
			}
		}
		// Splitting at a line start outside every block gives the same
		// blocks on each side.
		for _, s := range starts[1:] {
			in := false
			for _, b := range blocks {
				if s > b.start && s < b.end {
					in = true
				}
			}
			if in {
				continue
			}
			tail := Scan(string([]rune(text)[s:]))
			var hs []Heading
			for _, h := range m.Headings {
				if h.Offset >= s {
					h.Offset -= s
					hs = append(hs, h)
				}
			}
			if !slices.Equal(tail.Headings, hs) {
				t.Fatalf("the text after line start %d scans to headings %+v, want %+v", s, tail.Headings, hs)
			}
			break // one split per execution keeps it linear
		}
	})
}
