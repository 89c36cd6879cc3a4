package mcp

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
	"github.com/turnzerocloud/tzctx/query"
)

// TestTextFromTypedAnswerEqualsTextFromJSON: the text content made from the
// typed answer is byte for byte the one made by decoding the answer's JSON
// (jsonText, the form contracts/choices/mcp.md#ch-mcp writes down): a page's
// first chunk with headings and a continuation, a last chunk, a whole text,
// text quoting the members line, a catalog page with and without optional
// members, an empty and a nil catalog, and an answer of another type.
func TestTextFromTypedAnswerEqualsTextFromJSON(t *testing.T) {
	t.Parallel()
	next := func(n int) *int { return &n }
	answers := []any{
		&query.Answer{ContractVersion: 1, Stamp: "abc", Offset: 0, Total: 9000, NextOffset: next(1500), ID: "tzdocs:/a/b", MimeType: "text/markdown",
			Continuation: "Read code points 0 to 1500 of 9000. To read on, call read_documentation with page, offset 1500 and stamp abc.",
			Headings:     []query.HeadingEntry{{Text: "Install <x> & \"y\"", Offset: 10}, {Text: "Über", Offset: 800}},
			Text:         "# Title\n\n<p>a & b</p> \u2028 \t tab " + membersLine + "\n"},
		&query.Answer{ContractVersion: 1, Stamp: "s", Offset: 7500, Total: 9000, ID: "overview", MimeType: "text/markdown", Continuation: "Read code points 7500 to 9000 of 9000. This chunk is the last.", Text: "tail"},
		&query.Answer{ContractVersion: 1, Stamp: "s", Total: 4, ID: "payload:read_context", MimeType: "application/json", Text: `{"a":1}`},
		&query.Answer{ContractVersion: 1, Stamp: "s", ID: "empty", MimeType: "text/markdown"},
		&query.ListAnswer{ContractVersion: 1, Stamp: "cat", Offset: 0, Total: 3, NextOffset: next(2), Entries: []tzctx.CatalogEntry{
			{ID: "overview", Tool: "read_context", Title: "Overview", MimeType: "text/markdown"},
			{ID: "docs:cloud", Tool: "read_documentation", Title: "Cloud: index", MimeType: "text/markdown", Tree: "cloud", Part: "index", Auth: "anonymous"},
		}},
		&query.ListAnswer{ContractVersion: 1, Stamp: "cat", Offset: 2, Total: 2, Entries: []tzctx.CatalogEntry{}},
		&query.ListAnswer{ContractVersion: 1, Stamp: "cat"},
		(*query.Answer)(nil),
		map[string]any{"active": "v1", "versions": []any{}},
		[]string{"a"},
	}
	for i, a := range answers {
		raw, err := marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := answerText(a, raw), jsonText(raw); got != want {
			t.Errorf("answer %d (%T): the typed text differs from the JSON's:\n got %q\nwant %q", i, a, got, want)
		}
	}
}

// jsonText is the text content as it was made before it was made from
// the typed answer: by decoding the answer's JSON.
func jsonText(raw json.RawMessage) string {
	var a struct {
		Stamp        string  `json:"stamp"`
		Offset       int     `json:"offset"`
		Total        int     `json:"total"`
		NextOffset   *int    `json:"next_offset"`
		ID           string  `json:"id"`
		MimeType     string  `json:"mime_type"`
		Continuation string  `json:"continuation"`
		Text         *string `json:"text"`
		Headings     []struct {
			Text   string `json:"text"`
			Offset int    `json:"offset"`
		} `json:"headings"`
		Entries []tzctx.CatalogEntry `json:"entries"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return string(raw)
	}
	var b strings.Builder
	paging := func(last string) {
		b.WriteString("offset: " + strconv.Itoa(a.Offset) + "\n")
		b.WriteString("total: " + strconv.Itoa(a.Total) + "\n")
		b.WriteString("stamp: " + a.Stamp + "\n")
		if a.NextOffset == nil {
			b.WriteString("next_offset: null (" + last + ")")
		} else {
			b.WriteString("next_offset: " + strconv.Itoa(*a.NextOffset))
		}
	}
	switch {
	case a.Text != nil:
		b.WriteString(*a.Text)
		b.WriteString("\n\n" + membersLine + "\n")
		b.WriteString("id: " + a.ID + "\n")
		b.WriteString("mime_type: " + a.MimeType + "\n")
		paging("this chunk ends the text")
		if c := shortContinuation(a.Continuation, a.Stamp); c != "" {
			b.WriteString("\ncontinuation: " + c)
		}
		if len(a.Headings) > 0 {
			b.WriteString("\nheadings (offset: heading; read from an offset with this stamp to start at its heading):")
			for _, h := range a.Headings {
				b.WriteString("\n" + strconv.Itoa(h.Offset) + ": " + h.Text)
			}
		}
	case a.Entries != nil:
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
		paging("this page ends the catalog")
	default:
		return string(raw)
	}
	return b.String()
}

// TestSplicedAnswerIsTheResultEncoded: the reply splice writes for an
// answer is the CallToolResult of answerText's text and the answer's JSON
// as structured content, encoded as mcp-go encodes it but without HTML
// escaping, whichever way its text is escaped (a text read's chunk copied
// from the structured content already escaped): chunks holding quotes,
// backslashes, control characters, U+2028, invalid UTF-8 and the text
// member's own key, and answers of every other kind.
func TestSplicedAnswerIsTheResultEncoded(t *testing.T) {
	t.Parallel()
	next := func(n int) *int { return &n }
	answers := []any{
		&query.Answer{ContractVersion: 1, Stamp: "abc", Total: 9000, NextOffset: next(1500), ID: "tzdocs:/a/b", MimeType: "text/markdown",
			Continuation: "Read on.", Headings: []query.HeadingEntry{{Text: `Install "x" \ <y>`, Offset: 10}},
			Text: "# T\n\n\"q\" \\ \\\" \t\x01 \u2028 \xff\xfe end ,\"text\":\"x\"} \"}"},
		&query.Answer{ContractVersion: 1, Stamp: "s", Total: 1, ID: "x", MimeType: "text/markdown", Text: `\`},
		&query.Answer{ContractVersion: 1, Stamp: "s", ID: "x", MimeType: "text/markdown"},
		&query.Answer{ContractVersion: 1, Stamp: "s", ID: "x", MimeType: "text/markdown", Text: "ends in a cut rune \xe2\x82"},
		&query.ListAnswer{ContractVersion: 1, Stamp: "cat", Total: 1, Entries: []tzctx.CatalogEntry{{ID: "overview", Tool: "read_context", Title: `"O" <v>`, MimeType: "text/markdown"}}},
		&query.ListAnswer{ContractVersion: 1, Stamp: "cat"},
		(*query.Answer)(nil),
		map[string]any{"active": "v1"},
	}
	for i, a := range answers {
		slot := &answerSlot{}
		r, err := splice(withAnswerSlot(t.Context(), slot), a)
		if err != nil || r == nil {
			t.Fatalf("answer %d: splice = %v, %v", i, r, err)
		}
		raw, err := marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if qa, ok := a.(*query.Answer); ok && qa != nil && lastTextMember(raw) == nil {
			t.Errorf("answer %d: its chunk is not found escaped in its JSON, and is escaped twice", i)
		}
		want := []byte(`{"content":[{"type":"text","text":`)
		want = jsonwire.AppendString(want, answerText(a, raw))
		want = append(append(append(want, `}],"structuredContent":`...), raw...), '}')
		if got := slot.answer(); string(got) != string(want) {
			t.Errorf("answer %d (%T): spliced\n%s\nwant\n%s", i, a, got, want)
		}
		if !json.Valid(slot.answer()) {
			t.Errorf("answer %d: the spliced result is not JSON", i)
		}
		if again, _ := splice(withAnswerSlot(t.Context(), slot), a); again != nil {
			t.Errorf("answer %d: a used slot was spliced again", i)
		}
	}
}
