package mcp

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx"
)

// membersLine opens the members block of a result's text content: the
// block is everything after the last such line (contracts/choices.md,
// "MCP", "Text content"). Nothing the block holds can be this line, so a
// chunk that quotes it is never taken for the block.
const membersLine = "--- answer members ---"

// textAnswer is what the text content of an answer shows: a text read's
// members (read_context, read_documentation) or a catalog page's
// (list_context). A nil Text and nil Entries is any other answer.
type textAnswer struct {
	Stamp        string               `json:"stamp"`
	Offset       int                  `json:"offset"`
	Total        int                  `json:"total"`
	NextOffset   *int                 `json:"next_offset"`
	ID           string               `json:"id"`
	MimeType     string               `json:"mime_type"`
	Continuation string               `json:"continuation"`
	Headings     []headingLine        `json:"headings"`
	Text         *string              `json:"text"`
	Entries      []tzctx.CatalogEntry `json:"entries"`
}

// headingLine is one entry of a page read's headings.
type headingLine struct {
	Text   string `json:"text"`
	Offset int    `json:"offset"`
}

// answerText is the text content of an answer, the HTTP body raw: for a
// text read its chunk, then the members block; for a catalog page one
// line per entry, then the members block; for any other answer its JSON.
func answerText(raw json.RawMessage) string {
	var a textAnswer
	if json.Unmarshal(raw, &a) != nil {
		return string(raw)
	}
	switch {
	case a.Text != nil:
		return a.readText()
	case a.Entries != nil:
		return a.catalogText()
	}
	return string(raw)
}

// readText is a text read's text content: the chunk first, then its
// members, one a line, then its headings, one a line, in order.
func (a *textAnswer) readText() string {
	var b strings.Builder
	b.Grow(len(*a.Text) + 512 + 64*len(a.Headings))
	b.WriteString(*a.Text)
	b.WriteString("\n\n" + membersLine + "\n")
	b.WriteString("id: " + a.ID + "\n")
	b.WriteString("mime_type: " + a.MimeType + "\n")
	a.paging(&b, "this chunk ends the text")
	if a.Continuation != "" {
		b.WriteString("\ncontinuation: " + a.Continuation)
	}
	if len(a.Headings) > 0 {
		b.WriteString("\nheadings (offset: heading; read from an offset with this stamp to start at its heading):")
		for _, h := range a.Headings {
			b.WriteString("\n" + strconv.Itoa(h.Offset) + ": " + h.Text)
		}
	}
	return b.String()
}

// catalogText is a catalog page's text content: one line per entry, in
// catalog order, `- <id> (<tool>, <mime_type>[, tree <tree>, part <part>,
// auth <auth>]): <title>`, then the page's members.
func (a *textAnswer) catalogText() string {
	var b strings.Builder
	for _, e := range a.Entries {
		b.WriteString("- " + e.ID + " (" + e.Tool + ", " + e.MimeType)
		if e.Tree != "" {
			b.WriteString(", tree " + e.Tree)
		}
		if e.Part != "" {
			b.WriteString(", part " + e.Part)
		}
		if e.Auth != "" {
			b.WriteString(", auth " + e.Auth)
		}
		b.WriteString("): " + e.Title + "\n")
	}
	b.WriteString("\n" + membersLine + "\n")
	a.paging(&b, "this page ends the catalog")
	return b.String()
}

// paging writes the paging members every paged answer shares: offset,
// total, stamp and next_offset, the last without a line end.
func (a *textAnswer) paging(b *strings.Builder, last string) {
	b.WriteString("offset: " + strconv.Itoa(a.Offset) + "\n")
	b.WriteString("total: " + strconv.Itoa(a.Total) + "\n")
	b.WriteString("stamp: " + a.Stamp + "\n")
	if a.NextOffset == nil {
		b.WriteString("next_offset: null (" + last + ")")
	} else {
		b.WriteString("next_offset: " + strconv.Itoa(*a.NextOffset))
	}
}
