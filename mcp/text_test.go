package mcp_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// textForm is a result's text content read as contracts/choices/mcp.md#ch-mcp
// ("Text content") writes it, and nothing else: what comes before the last
// members line, the members by name, and the headings and catalog lines in
// order.
type textForm struct {
	body     string
	members  map[string]string
	headings []struct {
		offset int
		text   string
	}
}

const membersLine = "--- answer members ---"

func parseText(t *testing.T, text string) textForm {
	t.Helper()
	i := strings.LastIndex(text, "\n"+membersLine+"\n")
	if i < 0 {
		t.Fatalf("the text content has no members line:\n%.400s", text)
	}
	f := textForm{body: text[:i], members: map[string]string{}}
	inHeadings := false
	for _, line := range strings.Split(text[i+len(membersLine)+2:], "\n") {
		if inHeadings {
			off, h, ok := strings.Cut(line, ": ")
			n, err := strconv.Atoi(off)
			if !ok || err != nil {
				t.Fatalf("heading line %q is not <offset>: <heading>", line)
			}
			f.headings = append(f.headings, struct {
				offset int
				text   string
			}{n, h})
			continue
		}
		if strings.HasPrefix(line, "headings ") {
			inHeadings = true
			continue
		}
		name, value, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("member line %q is not <name>: <value>", line)
		}
		f.members[name] = value
	}
	return f
}

// TestTextContentCarriesTheAnswer: a text read's text content is its
// chunk, then every member an agent acts on (id, mime_type, offset,
// total, stamp, next_offset, continuation and, on a page's first chunk,
// the headings with their offsets, in order), equal to the structured
// content's; a catalog page's is one line per entry, then its paging
// members; and a client reading the text alone jumps to a section by a
// heading's offset.
func TestTextContentCarriesTheAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, c := range f.transports(t, "") {
		for _, call := range []struct {
			action string
			args   map[string]any
		}{
			{"read_documentation", map[string]any{"page": "/cloud/reference/http/", "limit": 1500}},
			{"read_documentation", map[string]any{"tree": "cloud", "query": "stamp offset"}},
			{"read_documentation", map[string]any{"tree": "tzdocs", "part": "outline", "limit": 3000}},
			{"read_context", map[string]any{"id": "overview", "limit": 500}},
			{"read_context", map[string]any{"id": "payload:read_context"}},
		} {
			res := callTool(t, c, call.action, call.args)
			var a struct {
				Stamp        string `json:"stamp"`
				Offset       int    `json:"offset"`
				Total        int    `json:"total"`
				NextOffset   *int   `json:"next_offset"`
				ID           string `json:"id"`
				MimeType     string `json:"mime_type"`
				Continuation string `json:"continuation"`
				Headings     []struct {
					Text   string `json:"text"`
					Offset int    `json:"offset"`
				} `json:"headings"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(res.RawStructuredContent, &a); err != nil {
				t.Fatal(err)
			}
			form := parseText(t, textOf(t, res))
			next := "null (this chunk ends the text)"
			if a.NextOffset != nil {
				next = strconv.Itoa(*a.NextOffset)
			}
			want := map[string]string{"id": a.ID, "mime_type": a.MimeType, "offset": strconv.Itoa(a.Offset), "total": strconv.Itoa(a.Total), "stamp": a.Stamp, "next_offset": next}
			if _, how, ok := strings.Cut(a.Continuation, ". "); ok && a.NextOffset != nil {
				// The members block says the continuation once: without
				// "Read code points …" and with the stamp printed once,
				// on its own line (issue 31).
				want["continuation"] = strings.Replace(how, "stamp "+a.Stamp, "the stamp above", 1)
			}
			if n := strings.Count(textOf(t, res), a.Stamp); n != 1 {
				t.Errorf("%s %s %v: the text content prints the stamp %d times, want once", name, call.action, call.args, n)
			}
			if fmt.Sprint(form.members) != fmt.Sprint(want) {
				t.Errorf("%s %s %v: text members %v, want %v", name, call.action, call.args, form.members, want)
			}
			if form.body != a.Text+"\n" {
				t.Errorf("%s %s %v: the text content does not begin with the chunk", name, call.action, call.args)
			}
			if len(form.headings) != len(a.Headings) {
				t.Fatalf("%s %s %v: %d heading lines, want %d", name, call.action, call.args, len(form.headings), len(a.Headings))
			}
			for i, h := range a.Headings {
				if form.headings[i].offset != h.Offset || form.headings[i].text != h.Text {
					t.Errorf("%s: heading line %d is %v, want %+v", name, i, form.headings[i], h)
				}
			}
		}

		// A client of the text alone jumps to a section.
		first := parseText(t, textOf(t, callTool(t, c, "read_documentation", map[string]any{"page": "/cloud/reference/http/", "limit": 1500})))
		if len(first.headings) < 2 {
			t.Fatalf("%s: the page's first chunk lists %d headings, want several", name, len(first.headings))
		}
		h := first.headings[len(first.headings)-1]
		sec := parseText(t, textOf(t, callTool(t, c, "read_documentation", map[string]any{"page": "/cloud/reference/http/", "limit": 500, "offset": h.offset, "stamp": first.members["stamp"]})))
		line, _, _ := strings.Cut(sec.body, "\n")
		if strings.TrimSpace(strings.TrimLeft(line, "#")) != h.text || sec.members["offset"] != strconv.Itoa(h.offset) {
			t.Errorf("%s: reading from heading %q's offset %d starts %q at %s", name, h.text, h.offset, line, sec.members["offset"])
		}

		// A catalog page: one line per entry, then its members.
		res := callTool(t, c, "list_context", map[string]any{})
		var page struct {
			Stamp      string `json:"stamp"`
			Offset     int    `json:"offset"`
			Total      int    `json:"total"`
			NextOffset *int   `json:"next_offset"`
			Entries    []struct {
				ID, Tool, Title string
			} `json:"entries"`
		}
		if err := json.Unmarshal(res.RawStructuredContent, &page); err != nil {
			t.Fatal(err)
		}
		form := parseText(t, textOf(t, res))
		lines := strings.Split(strings.TrimSuffix(form.body, "\n"), "\n")
		if len(lines) != len(page.Entries) {
			t.Fatalf("%s: list_context's text holds %d lines, want one per entry (%d)", name, len(lines), len(page.Entries))
		}
		for i, e := range page.Entries {
			if !strings.HasPrefix(lines[i], "- "+e.ID+" ("+e.Tool+", ") || !strings.HasSuffix(lines[i], "): "+e.Title) {
				t.Errorf("%s: catalog line %q, want entry %+v", name, lines[i], e)
			}
		}
		if form.members["stamp"] != page.Stamp || form.members["total"] != strconv.Itoa(page.Total) || form.members["offset"] != "0" || form.members["next_offset"] == "" {
			t.Errorf("%s: list_context's text members %v", name, form.members)
		}
	}
}

// TestTypeScriptClientReadsTextAlone runs the official TypeScript SDK
// client (testdata/ts/textonly.mjs) against the fixture's /mcp. It reads
// nothing but text content: it lists the catalog, reads a page's first
// chunk, finds a heading line and its offset in the text, reads from that
// offset with the stamp the text gives and checks that the answer starts
// with the heading. It skips, saying why, where node or the SDK is absent
// (make test installs the SDK where node is present), except under CI.
func TestTypeScriptClientReadsTextAlone(t *testing.T) {
	node, dir := testkit.TSSDK(t)
	f := newFixture(t)
	stdout := runTSScript(t, node, dir, "textonly.mjs", f.base+"/mcp", "/cloud/reference/http/")
	var out struct {
		CatalogLines int    `json:"catalogLines"`
		Headings     int    `json:"headings"`
		Heading      string `json:"heading"`
		Offset       int    `json:"offset"`
		AnswerOffset int    `json:"answerOffset"`
		FirstLine    string `json:"firstLine"`
		Joined       string `json:"joined"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("textonly output is not JSON: %v\n%s", err, stdout)
	}
	if out.CatalogLines != len(f.listedIDs(t, "")) {
		t.Errorf("the catalog's text lines %d, list_context lists %d entries", out.CatalogLines, len(f.listedIDs(t, "")))
	}
	if out.Headings < 2 || out.AnswerOffset != out.Offset || strings.TrimSpace(strings.TrimLeft(out.FirstLine, "#")) != out.Heading {
		t.Errorf("the text-only client jumped to %q at %d and read %q from %d (%d headings)", out.Heading, out.Offset, out.FirstLine, out.AnswerOffset, out.Headings)
	}
	if want := f.wholeText(t, "read_documentation", map[string]any{"page": "/cloud/reference/http/"}, ""); out.Joined != want {
		t.Errorf("the text-only client joined the page's chunks into %d bytes, want the page's %d", len(out.Joined), len(want))
	}
}
