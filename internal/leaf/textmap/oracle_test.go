package textmap

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file holds the brute-force oracles the tests compare the package
// against, and the corpus of tricky texts the property tests run over.

// oracleLineStarts answers every line start of text by brute force: 0 and
// the code-point offset after each '\n' that is not the text's end.
func oracleLineStarts(text string) []int {
	out := []int{0}
	cp := 0
	rs := []rune(text)
	for i, r := range rs {
		cp++
		if r == '\n' && i+1 < len(rs) {
			out = append(out, cp)
		}
	}
	return out
}

// oraclePlaces enumerates the place set of A-02 by brute force from a
// layout's line starts and base places:
//
//	base = bases ∪ {total}
//	for consecutive base places a < b: p = a; while b-p > limit { p = last
//	line start in (p, p+limit] else p+limit; add p }
func oraclePlaces(total int, lineStarts, bases []uint32, limit int) []int {
	base := []int{}
	for _, b := range bases {
		base = append(base, int(b))
	}
	base = append(base, total)
	slices.Sort(base)
	base = slices.Compact(base)
	places := slices.Clone(base)
	for i := 0; i+1 < len(base); i++ {
		a, b := base[i], base[i+1]
		p := a
		for b-p > limit {
			s := -1
			for _, ls := range lineStarts {
				if int(ls) > p && int(ls) <= p+limit {
					s = int(ls)
				}
			}
			if s < 0 {
				s = p + limit
			}
			p = s
			places = append(places, p)
		}
	}
	slices.Sort(places)
	return slices.Compact(places)
}

// oracleLastPlace answers, for every x in [0, total], the last place <= x.
func oracleLastPlace(places []int, total int) []int {
	last := make([]int, total+1)
	j := 0
	for x := 0; x <= total; x++ {
		for j+1 < len(places) && places[j+1] <= x {
			j++
		}
		last[x] = places[j]
	}
	return last
}

// oracleChunk answers the chunk of A-01 from the oracle's last-place table:
// begin is the last place <= offset, end the last place <= offset+limit
// (capped at total).
func oracleChunk(last []int, offset, limit int) (begin, end int) {
	total := len(last) - 1
	return last[offset], last[min(offset+limit, total)]
}

// trickyText is one text of the property-test corpus.
type trickyText struct {
	name string
	text string
	json bool // laid out with ScanJSON rather than Scan
	// goldmark marks plain texts whose fences and headings goldmark must
	// agree with (no lone '\r', no heading inside an HTML comment).
	goldmark bool
}

// longLine is the 20,000-character line of the corpus.
var longLine = strings.Repeat("0123456789", 2000)

// prettyJSON is a pretty-printed JSON entry with members of depths 1 to 4.
var prettyJSON = func() string {
	v := map[string]any{
		"contract_version": "1.4.0",
		"name":             "read_context",
		"request": map[string]any{
			"type":     "object",
			"required": []string{"id"},
			"properties": map[string]any{
				"id":     map[string]any{"type": "string", "maxLength": 200},
				"offset": map[string]any{"type": "integer", "minimum": 0},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": 20000},
			},
		},
		"shapes": []any{
			map[string]any{"name": "stamp", "pattern": "^[0-9a-f]{64}$"},
			map[string]any{"name": "héading 😀", "items": []any{1, 2, 3}},
		},
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}()

// trickyTexts is the corpus the property tests run over.
var trickyTexts = []trickyText{
	{name: "empty", text: "", goldmark: true},
	{name: "blank lines", text: "\n\n\n", goldmark: true},
	{name: "plain no line end", text: "abcdefghij", goldmark: true},
	{name: "plain long no line end", text: strings.Repeat("lorem ipsum ", 40), goldmark: true},
	{name: "A-02 example", text: "abcd\nef\n", goldmark: true},
	{name: "nested backtick in tilde", goldmark: true, text: "# Title\n\nintro\n~~~~md\n```go\n## not a heading\n```\n~~~\nstill inside\n~~~~\nafter\n## Real one\ntext\n"},
	{name: "shorter fence inside longer", goldmark: true, text: "`````\n```\n## inner\n```\n````\n`````\n## After\nline\n"},
	{name: "closing line with info string", goldmark: true, text: "```\ncode\n```python\nstill code\n``` \t\nout\n### Out\n"},
	{name: "unterminated fence", goldmark: true, text: "intro\n\n```js\nline1\nline2\n## nope\n" + strings.Repeat("x = 1;\n", 30)},
	{name: "backtick in info string", goldmark: true, text: "``` a`b\n## heading\n```\n"},
	{name: "indentation", goldmark: true, text: "   ```\n# in\n   ```\n    ```\n## four spaces\n\n\t```\n## tab\n"},
	{name: "fence inside comment", text: "<!--\n```\n## in comment\n-->\n## Visible\ntext\n```\nreal fence\n```\nend\n"},
	{name: "comment inside fence", goldmark: true, text: "```\n<!--\n```\n## Yes\n-->\ntail\n"},
	{name: "one-line comment", goldmark: true, text: "<!-- note --> \n```\n## code\n```\n## H\n"},
	{name: "unterminated comment", text: "text\n<!-- open\n```\n## counted\nmore\n"},
	{name: "crlf", goldmark: true, text: "# Title\r\n\r\n```\r\ncode\r\n## no\r\n```\r\n## Yes \r\nend\r\n"},
	{name: "lone cr", text: "a\rb\r```\rc\n```\n## h\rx\n"},
	{name: "astral", goldmark: true, text: "😀😀😀 start\n```\n🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀\n🚀\n```\n## 𝒳 heading 😀\n" + strings.Repeat("𝄞", 70) + "\n"},
	{name: "no final line end", goldmark: true, text: "abc\n```\ndef\n```\n## end"},
	{name: "fence at end", goldmark: true, text: "abc\n```"},
	{name: "long fence of short lines", goldmark: true, text: "## Code\n```\n" + strings.Repeat("ab\ncd\nefgh\n", 40) + "```\nafter\n"},
	{name: "long line in fence", goldmark: true, text: "x\n```\n" + strings.Repeat("y", 250) + "\nz\n" + strings.Repeat("w", 130) + "\n```\nq\n"},
	{name: "20000-character line", goldmark: true, text: "# Big\n" + longLine + "\nshort\n```\n" + longLine[:3000] + "\n```\n"},
	{name: "20000-character text without line end", goldmark: true, text: longLine},
	{name: "json depths sharing lines", json: true, text: "{\"a\": 1, \"b\": {\"c\": [1, 2,\n3], \"d\": {\"e\": {\"f\": \"deep\",\n\"g\": 2}}}, \"h\": [{\"i\": 1,\n\"j\": 2}, {\"k\": \"x\"}],\n\"l\": \"last\"}"},
	{name: "json shared chain", json: true, text: "{\n\"a\": [1,\n2], \"b\": [3,\n4], \"c\": [5,\n6], \"d\": [7,\n8], \"e\": [9,\n0]\n}"},
	{name: "json root array", json: true, text: "[\n  {\n    \"a\": 1,\n    \"b\": {\n      \"c\": 2,\n      \"d\": 3\n    }\n  },\n  [\n    {\n      \"x\": {\n        \"y\": 1,\n        \"z\": 2\n      }\n    }\n  ]\n]\n"},
	{name: "json pretty", json: true, text: prettyJSON},
	{name: "json minified long line", json: true, text: strings.ReplaceAll(prettyJSON, "\n", "")},
	{name: "json escapes and astral", json: true, text: "{\n  \"q\": \"\\\"}{][\\\\\",\n  \"😀\": [\"🚀\", \"\\u00e9\"],\n  \"n\": {\"m\": null, \"t\": true}\n}"},
	{name: "json scalar", json: true, text: "  42\n"},
}

// runeLen answers the length of s in code points.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
