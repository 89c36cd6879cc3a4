package textmap

import "math"

// Layout is what Chunk needs to know about a text.
//
// *Map implements it; an on-disk zero-copy table may implement it too.
// Offsets are code points. Base places are the limit-independent places of
// A-02's "base" set without the text's end: 0 and the line starts allowed by
// the fence rule (plain text) or the member rule (JSON).
type Layout interface {
	// Total answers the text's length in code points.
	Total() int
	// LastBaseAtOrBefore answers the largest base place <= x (0 always
	// qualifies).
	LastBaseAtOrBefore(x int) int
	// NextBaseAfter answers the smallest base place > x, or Total() if none.
	NextBaseAfter(x int) int
	// LastLineStartIn answers the largest line start s (any line start, also
	// one that is not a base place) with lo < s <= hi.
	LastLineStartIn(lo, hi int) (int, bool)
}

// Total answers the text's length in code points.
func (m *Map) Total() int { return m.Len }

// LastBaseAtOrBefore answers the largest base place <= x; 0 always qualifies.
func (m *Map) LastBaseAtOrBefore(x int) int {
	i := upperBound(m.Bases, x)
	if i == 0 {
		return 0
	}
	return int(m.Bases[i-1])
}

// NextBaseAfter answers the smallest base place > x, or Total() if none.
func (m *Map) NextBaseAfter(x int) int {
	i := upperBound(m.Bases, x)
	if i == len(m.Bases) {
		return m.Len
	}
	return int(m.Bases[i])
}

// LastLineStartIn answers the largest line start s with lo < s <= hi.
func (m *Map) LastLineStartIn(lo, hi int) (int, bool) {
	i := upperBound(m.LineStarts, hi)
	if i == 0 {
		return 0, false
	}
	s := int(m.LineStarts[i-1])
	if s <= lo {
		return 0, false
	}
	return s, true
}

// upperBound answers the index of the first element of a greater than x.
func upperBound(a []uint32, x int) int {
	if x < 0 {
		return 0
	}
	if x >= math.MaxUint32 {
		return len(a)
	}
	v := uint32(x)
	lo, hi := 0, len(a)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] <= v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Chunk answers the chunk [begin, end) asked at offset under limit.
//
// The places are the base places of l, Total(), and the chain places of A-02:
// for consecutive base places a < b (b may be Total()), p starts at a and,
// while b-p > limit, moves to the last line start s with p < s <= p+limit, or
// to p+limit when there is none, each such p being a place. The chunk begins
// at the last place <= offset and ends at the last place <= offset+limit
// (capped at Total()), as A-01 reads CTX-07.
//
// Chain places are computed lazily from the base place at or before the
// point, so the cost is O(log n) plus the chain steps inside the one or two
// base gaps touched; a run of places along a long line is one step.
// An offset outside [0, Total()] is clamped into it, and a limit below 1 is
// read as 1.
func Chunk(l Layout, offset, limit int) (begin, end int) {
	total := l.Total()
	if limit < 1 {
		limit = 1
	}
	offset = min(max(offset, 0), total)
	if offset == total {
		return total, total
	}
	a := l.LastBaseAtOrBefore(offset)
	b := l.NextBaseAfter(a)
	begin = chainLastAtOrBefore(l, a, b, limit, offset)

	target := total
	if limit < total-offset {
		target = offset + limit
	}
	switch {
	case target == total:
		end = total
	case target < b:
		// Same base gap: continue the chain from begin, itself a chain place.
		end = chainLastAtOrBefore(l, begin, b, limit, target)
	default:
		a2 := l.LastBaseAtOrBefore(target)
		end = chainLastAtOrBefore(l, a2, l.NextBaseAfter(a2), limit, target)
	}
	return begin, end
}

// chainLastAtOrBefore walks the A-02 chain of the base gap ending at b from
// the place p (p <= target < b) and answers the last place of
// that chain that is <= target.
func chainLastAtOrBefore(l Layout, p, b, limit, target int) int {
	for b-p > limit {
		if s, ok := l.LastLineStartIn(p, p+limit); ok {
			if s > target {
				return p
			}
			p = s
			continue
		}
		// No line start within the limit: a long line. The places
		// p+limit, p+2*limit, ... follow while they stay before both the
		// next line start and b.
		m := nextLineStartAfter(l, p, b, limit)
		k := (m - p - 1) / limit // >= 1 because m > p+limit
		if kt := (target - p) / limit; kt < k {
			return p + kt*limit
		}
		p += k * limit
	}
	return p
}

// nextLineStartAfter answers min(b, the smallest line start > p), knowing
// that no line start lies in (p, p+limit] and that b > p+limit. It gallops
// and then bisects with LastLineStartIn, so it costs O(log(b-p)) calls.
func nextLineStartAfter(l Layout, p, b, limit int) int {
	gap := b - p
	lo := limit // (p, p+lo] holds no line start
	hi := lo
	for {
		if hi >= gap/2 {
			hi = gap
		} else {
			hi *= 2
		}
		if _, ok := l.LastLineStartIn(p, p+hi); ok {
			break
		}
		if hi == gap {
			return b
		}
		lo = hi
	}
	// (p, p+lo] holds none, (p, p+hi] holds one.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, ok := l.LastLineStartIn(p, p+mid); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return min(p+hi, b)
}
