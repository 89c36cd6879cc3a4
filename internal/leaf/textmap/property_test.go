package textmap

import (
	"strings"
	"testing"
)

// propertyLimits are the limits the property tests run every corpus text
// under: every limit from 1 to 60 and a few large ones.
var propertyLimits = func() []int {
	var out []int
	for l := 1; l <= 60; l++ {
		out = append(out, l)
	}
	return append(out, 64, 100, 1000, 4096, 25000, 1<<30)
}()

// layoutFor answers the layout of a corpus text under limit.
func layoutFor(t *testing.T, tt trickyText, plain *Map, limit int) *Map {
	t.Helper()
	if !tt.json {
		return plain
	}
	l, ok := ScanJSON(tt.text, limit)
	if !ok {
		t.Fatalf("ScanJSON: not valid JSON")
	}
	return l.(*Map)
}

// TestChunkProperties checks over the corpus under every
// property limit: the oracle's places are at most one limit apart, Chunk
// agrees with the oracle at every offset, paging by next_offset reads at
// most a limit per chunk and reaches the end, chunks asked at multiples of
// the limit join with no gap or overlap, and a chunk asked anywhere else
// starts less than one limit before the offset asked.
func TestChunkProperties(t *testing.T) {
	for _, tt := range trickyTexts {
		t.Run(tt.name, func(t *testing.T) {
			var plain *Map
			if !tt.json {
				plain = Scan(tt.text)
			}
			runes := []rune(tt.text)
			total := len(runes)
			for _, limit := range propertyLimits {
				m := layoutFor(t, tt, plain, limit)
				if m.Total() != total {
					t.Fatalf("limit %d: Total() = %d, want %d", limit, m.Total(), total)
				}
				places := oraclePlaces(total, m.LineStarts, m.Bases, limit)
				checkPlaceGaps(t, places, total, limit)
				last := oracleLastPlace(places, total)
				checkEveryOffset(t, m, last, limit)
				checkPaging(t, m, runes, limit)
				checkMultiples(t, m, limit)
				if plain != nil {
					for _, h := range plain.Headings {
						if b, _ := Chunk(m, h.Offset, limit); b != h.Offset {
							t.Errorf("limit %d: chunk asked at heading offset %d begins at %d", limit, h.Offset, b)
						}
					}
				}
				if t.Failed() {
					t.Fatalf("limit %d: stopping after the first failing limit", limit)
				}
			}
		})
	}
}

// checkPlaceGaps checks that places run from 0 to total with consecutive
// places at most limit apart.
func checkPlaceGaps(t *testing.T, places []int, total, limit int) {
	t.Helper()
	if places[0] != 0 || places[len(places)-1] != total {
		t.Fatalf("limit %d: places run from %d to %d, want 0 to %d", limit, places[0], places[len(places)-1], total)
	}
	for i := 1; i < len(places); i++ {
		if places[i]-places[i-1] > limit {
			t.Fatalf("limit %d: places %d and %d are more than the limit apart", limit, places[i-1], places[i])
		}
	}
}

// checkEveryOffset compares Chunk with the oracle at every offset from 0 to
// the end and checks that the chunk holds the offset and starts less than
// one limit before it.
func checkEveryOffset(t *testing.T, l Layout, last []int, limit int) {
	t.Helper()
	total := len(last) - 1
	for off := 0; off <= total; off++ {
		begin, end := Chunk(l, off, limit)
		wb, we := oracleChunk(last, off, limit)
		if begin != wb || end != we {
			t.Fatalf("limit %d offset %d: Chunk = [%d,%d), oracle [%d,%d)", limit, off, begin, end, wb, we)
		}
		if off < total && (begin > off || off-begin >= limit || end <= off) {
			t.Fatalf("limit %d offset %d: chunk [%d,%d) does not hold the offset within a limit of its start", limit, off, begin, end)
		}
	}
}

// checkPaging pages from 0 by next_offset and checks that each chunk
// starts where the last ended, holds between 1 and limit code points, and
// that the chunks join to the whole text.
func checkPaging(t *testing.T, l Layout, runes []rune, limit int) {
	t.Helper()
	total := len(runes)
	var b strings.Builder
	off := 0
	for steps := 0; ; steps++ {
		if steps > total {
			t.Fatalf("limit %d: paging made no progress", limit)
		}
		begin, end := Chunk(l, off, limit)
		if begin != off {
			t.Fatalf("limit %d: chunk asked at next_offset %d begins at %d", limit, off, begin)
		}
		if end-begin > limit {
			t.Fatalf("limit %d: chunk [%d,%d) followed by next_offset holds more than the limit", limit, begin, end)
		}
		b.WriteString(string(runes[begin:end]))
		if end == total {
			break
		}
		if end <= begin {
			t.Fatalf("limit %d: chunk [%d,%d) makes no progress", limit, begin, end)
		}
		off = end
	}
	if b.String() != string(runes) {
		t.Fatalf("limit %d: paged chunks do not join to the text", limit)
	}
}

// checkMultiples checks that chunks asked at 0, limit, 2*limit, ... join
// with no gap or overlap and that the last one reaches the end.
func checkMultiples(t *testing.T, l Layout, limit int) {
	t.Helper()
	total := l.Total()
	prevEnd := 0
	for k := 0; k*limit <= total; k++ {
		begin, end := Chunk(l, k*limit, limit)
		if begin != prevEnd {
			t.Fatalf("limit %d: chunk asked at %d begins at %d, previous ended at %d", limit, k*limit, begin, prevEnd)
		}
		prevEnd = end
		if total-k*limit < limit {
			break // the next multiple lies past the end
		}
	}
	if prevEnd != total {
		t.Fatalf("limit %d: chunks asked at multiples end at %d, not %d", limit, prevEnd, total)
	}
}
