package textmap

import "unicode/utf8"

// ByteCheckpoints answers the byte offset of every every-th code point of
// text: index k holds the byte offset of code point k*every, for every k with
// k*every <= the text's length in code points (so the last checkpoint may be
// len(text)). With it ByteOffset maps a code-point offset to a byte offset in
// O(every) time. It panics when every < 1.
func ByteCheckpoints(text string, every int) []uint32 {
	if every < 1 {
		panic("textmap: ByteCheckpoints needs every >= 1")
	}
	out := make([]uint32, 0, len(text)/every+1)
	cp := 0
	for i := range text { // i steps over the start byte of each code point
		if cp%every == 0 {
			out = append(out, uint32(i))
		}
		cp++
	}
	if cp%every == 0 {
		out = append(out, uint32(len(text)))
	}
	return out
}

// ByteOffset answers the byte offset in text of code-point offset cp, using
// the checkpoints ByteCheckpoints answered for the same text and every. An
// offset past the end answers len(text); a negative one answers 0.
func ByteOffset(text string, checkpoints []uint32, every, cp int) int {
	if cp <= 0 || len(checkpoints) == 0 {
		return 0
	}
	k := min(cp/every, len(checkpoints)-1)
	i := int(checkpoints[k])
	for n := cp - k*every; n > 0 && i < len(text); n-- {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return i
}

// Slice answers the code points [begin, end) of text. Offsets are clamped
// into [0, length], and an end before begin answers "".
func Slice(text string, begin, end int) string {
	if end <= begin || end <= 0 {
		return ""
	}
	begin = max(begin, 0)
	b, e := len(text), len(text)
	cp := 0
	for i := range text {
		if cp == begin {
			b = i
		}
		if cp == end {
			e = i
			break
		}
		cp++
	}
	if b > e {
		return ""
	}
	return text[b:e]
}
