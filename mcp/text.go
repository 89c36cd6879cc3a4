package mcp

import (
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
)

// membersLine opens the members block of a result's text content: the block is
// everything after the last such line (contracts/choices/mcp.md#ch-mcp, "Text
// content"). Nothing the block holds can be this line, so a chunk that quotes
// it is never taken for the block.
const membersLine = "--- answer members ---"

// answerText is the text content of the answer res, whose JSON (the HTTP
// body) is raw: for a text read its chunk, then the members block; for a
// catalog page one line per entry, then the members block; for any other
// answer its JSON. It is made from the typed answer, never by decoding
// raw again.
func answerText(res any, raw []byte) string {
	if string(raw) == "null" {
		return "null" // a nil answer: nothing to call its methods on
	}
	switch a := res.(type) {
	case dispatch.TextChunk:
		return readText(a)
	case dispatch.PlacedCatalogPage:
		if entries, _, _ := a.CatalogPage(); entries != nil {
			return catalogText(a)
		}
	case linesAnswer:
		text, members := a.TextMembers()
		return text + "\n\n" + membersLine + "\n" + strings.Join(members, "\n")
	}
	return string(raw)
}

// linesAnswer is an answer that says itself in lines (a
// search_documentation pack, a list_library page): its text, and its
// members as the lines of the members block.
type linesAnswer interface {
	TextMembers() (text string, members []string)
}

// readText is a text read's text content: the chunk first, then its
// members, one a line, then its headings, one a line, in order.
func readText(a dispatch.TextChunk) string {
	text, _, _, _ := a.Chunk()
	_, _, _, continuation := a.ChunkPlace()
	b := make([]byte, 0, len(text)+512+len(continuation))
	return string(appendMembers(append(b, text...), a))
}

// appendMembers appends what a text read's text content holds after its
// chunk: the members block, its headings last.
func appendMembers(b []byte, a dispatch.TextChunk) []byte {
	_, mime, stamp, next := a.Chunk()
	id, offset, total, continuation := a.ChunkPlace()
	b = append(b, "\n\n"+membersLine+"\n"...)
	b = append(append(append(b, "id: "...), id...), '\n')
	b = append(append(append(b, "mime_type: "...), mime...), '\n')
	b = paging(b, offset, total, stamp, next, "this chunk ends the text")
	if c := shortContinuation(continuation, stamp); c != "" {
		b = append(append(b, "\ncontinuation: "...), c...)
	}
	first := true
	for off, h := range a.HeadingLines() {
		if first {
			b = append(b, "\nheadings (offset: heading; read from an offset with this stamp to start at its heading):"...)
			first = false
		}
		b = append(strconv.AppendInt(append(b, '\n'), int64(off), 10), ": "...)
		b = append(b, h...)
	}
	return b
}

// catalogText is a catalog page's text content: one line per entry, in
// catalog order, `- <id> (<tool>, <mime_type>[, tree <tree>, part <part>,
// auth <auth>]): <title>`, then the page's members.
func catalogText(a dispatch.PlacedCatalogPage) string {
	entries, stamp, next := a.CatalogPage()
	offset, total := a.PagePlace()
	b := make([]byte, 0, 128*len(entries)+256)
	for _, e := range entries {
		b = append(append(append(append(append(append(b, "- "...), e.ID...), " ("...), e.Tool...), ", "...), e.MimeType...)
		if e.Tree != "" {
			b = append(append(b, ", tree "...), e.Tree...)
		}
		if e.Part != "" {
			b = append(append(b, ", part "...), e.Part...)
		}
		if e.Auth != "" {
			b = append(append(b, ", auth "...), e.Auth...)
		}
		b = append(append(append(b, "): "...), e.Title...), '\n')
	}
	b = append(b, "\n"+membersLine+"\n"...)
	return string(paging(b, offset, total, stamp, next, "this page ends the catalog"))
}

// paging appends the paging members every paged answer shares: offset,
// total, stamp and next_offset, the last without a line end.
func paging(b []byte, offset, total int, stamp string, next *int, last string) []byte {
	b = append(strconv.AppendInt(append(b, "offset: "...), int64(offset), 10), '\n')
	b = append(strconv.AppendInt(append(b, "total: "...), int64(total), 10), '\n')
	b = append(append(append(b, "stamp: "...), stamp...), '\n')
	if next == nil {
		return append(append(append(b, "next_offset: null ("...), last...), ')')
	}
	return strconv.AppendInt(append(b, "next_offset: "...), int64(*next), 10)
}

// shortContinuation is what the members block says of a continuation:
// the sentence without what the block's other members already say, its
// opening "Read code points a to b of n." (offset, next_offset, total),
// "This chunk is the last." (next_offset null) and the stamp, which the
// stamp line prints once ("and stamp <stamp>" reads "and the stamp
// above"). What is left is how to read on: the call, and the headings or
// query for a section.
func shortContinuation(c, stamp string) string {
	if rest, ok := strings.CutPrefix(c, "Read code points "); ok {
		_, c, _ = strings.Cut(rest, ". ")
	}
	c = strings.TrimPrefix(strings.TrimPrefix(c, "This chunk is the last."), " ")
	if stamp != "" {
		c = strings.Replace(c, "stamp "+stamp, "the stamp above", 1)
	}
	return c
}
