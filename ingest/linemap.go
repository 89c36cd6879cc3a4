package ingest

import "strings"

// maxLineMapCells bounds the work of mapping a served copy's lines to its
// file's (lineMap): the lines between the two texts' common first and
// last lines, multiplied. Past it, those lines are mapped as one run put
// in the place of another.
const maxLineMapCells = 8 << 20

// lineMap maps each line of a page's served copy (0-based) to the line of
// its copy as written (0-based) it comes from: a line both texts hold to
// its own line; a line an include or a cleaning put in its place to the
// line it replaced (the directive's line), line for line where as many
// lines were replaced as put in, else to the first of them; a line put in
// where none was taken out to the line before it. The texts are aligned
// by their longest common subsequence of lines. It is nil where the two
// texts are the same.
func lineMap(written, served string) []int32 {
	if written == served {
		return nil
	}
	a, b := strings.Split(written, "\n"), strings.Split(served, "\n")
	// The common prefix and suffix need no alignment.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// match[j] is the written line served line pre+j is, -1 for none.
	match := make([]int, len(mb))
	for j := range match {
		match[j] = -1
	}
	if n, m := len(ma), len(mb); n > 0 && m > 0 && n*m <= maxLineMapCells {
		// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
		w := m + 1
		lcs := make([]int32, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				switch {
				case ma[i] == mb[j]:
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
					lcs[i*w+j] = lcs[(i+1)*w+j]
				default:
					lcs[i*w+j] = lcs[i*w+j+1]
				}
			}
		}
		// Where a written line could match more than one served line, the
		// later is taken: what an include puts in comes before the lines
		// after its directive (a blank line in an included text is not
		// the blank line after the directive).
		for i, j := 0, 0; i < n && j < m; {
			switch {
			case lcs[i*w+j+1] == lcs[i*w+j]:
				j++
			case ma[i] == mb[j]:
				match[j] = pre + i
				i++
				j++
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				i++
			default:
				j++
			}
		}
	}
	out := make([]int32, len(b))
	for j := range pre {
		out[j] = int32(j)
	}
	for j := range suf {
		out[len(b)-1-j] = int32(len(a) - 1 - j)
	}
	// Each run of unmatched served lines lies between two matched ones
	// (or the ends of the middle); it takes the written lines between
	// them.
	prevA := pre - 1 // the written line of the last matched served line
	for j := 0; j < len(mb); {
		if match[j] >= 0 {
			out[pre+j] = int32(match[j])
			prevA = match[j]
			j++
			continue
		}
		k := j
		for k < len(mb) && match[k] < 0 {
			k++
		}
		nextA := len(a) - suf // the written line of the next matched one
		if k < len(mb) {
			nextA = match[k]
		}
		gap := nextA - prevA - 1 // written lines replaced
		for x := j; x < k; x++ {
			switch {
			case gap == k-j:
				out[pre+x] = int32(prevA + 1 + x - j)
			case gap > 0:
				out[pre+x] = int32(prevA + 1)
			default:
				out[pre+x] = int32(max(prevA, 0))
			}
		}
		j = k
	}
	return out
}
