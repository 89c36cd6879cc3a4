package mcp_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestSearchDocumentationTool: search_documentation is a tool whose
// structured content is the HTTP answer byte for byte, and whose text
// content is the packed text, then the members line and every member an
// agent acts on; a client reading the text alone reads on from a cited
// section with read_documentation and gets the section's text.
func TestSearchDocumentationTool(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	args := map[string]any{"query": "how do I read on from a stamp and an offset?", "budget": 1500}
	body := f.postAPI(t, "search_documentation", args, "")
	for name, c := range f.transports(t, "") {
		res := callTool(t, c, "search_documentation", args)
		if res.IsError {
			t.Fatalf("%s: refused: %s", name, textOf(t, res))
		}
		structured, _ := json.Marshal(res.StructuredContent)
		var got, want any
		if json.Unmarshal(structured, &got) != nil || json.Unmarshal(body, &want) != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: structured content\n%.300s\nis not the HTTP answer\n%.300s", name, structured, body)
		}
		var a struct {
			Text     string `json:"text"`
			Sections []struct {
				Route  string `json:"route"`
				Offset int    `json:"offset"`
				Length int    `json:"length"`
				Stamp  string `json:"stamp"`
			} `json:"sections"`
		}
		if err := json.Unmarshal(body, &a); err != nil || len(a.Sections) == 0 {
			t.Fatalf("answer %s: %v", body, err)
		}
		text := textOf(t, res)
		i := strings.LastIndex(text, "\n"+membersLine+"\n")
		if i < 0 || text[:i] != a.Text+"\n" && text[:i] != a.Text {
			t.Fatalf("%s: the text content does not start with the packed text:\n%.400s", name, text)
		}
		// The first section's line in the members block, as a client
		// reading the text alone finds it.
		members := text[i+len(membersLine)+2:]
		s := a.Sections[0]
		line := ""
		for _, l := range strings.Split(members, "\n") {
			if strings.HasPrefix(l, s.Route) && strings.Contains(l, "stamp "+s.Stamp) {
				line = l
				break
			}
		}
		if line == "" || !strings.Contains(line, "offset "+strconv.Itoa(s.Offset)+", length "+strconv.Itoa(s.Length)) {
			t.Fatalf("%s: no member line for the first section in\n%s", name, members)
		}
		read := callTool(t, c, "read_documentation", map[string]any{"page": s.Route, "offset": s.Offset, "stamp": s.Stamp, "limit": 16000})
		if read.IsError {
			t.Fatalf("%s: reading the section: %s", name, textOf(t, read))
		}
		chunk := parseText(t, textOf(t, read)).body
		first := string([]rune(a.Text[strings.IndexByte(a.Text, '\n')+1:])[:s.Length])
		if !strings.HasPrefix(chunk, first) {
			t.Fatalf("%s: read_documentation from the section's offset reads\n%.200q\nnot the section\n%.200q", name, chunk, first)
		}
	}
}

// TestTypeScriptClientSearchesAndReadsOn runs the official TypeScript SDK
// client (testdata/ts/searchonly.mjs) against the fixture's /mcp as an
// agent that reads text content alone: it answers a question with one
// search_documentation call, takes the best cited section's route#anchor,
// offset, length and stamp from the text and the section's text from
// after its lead line, reads on with read_documentation from that page,
// offset and stamp, and checks that the text read begins with the
// section's. The script fails where the text content lacks anything it
// needs; this test then checks what it found against the structured
// answer and the page's served text. It skips, saying why, where node or
// the SDK is absent (make test installs the SDK where node is present),
// except under CI.
func TestTypeScriptClientSearchesAndReadsOn(t *testing.T) {
	node, dir := testkit.TSSDK(t)
	const question = "how do I read on from where a chunk ends with the stamp?"
	f := newFixture(t)
	stdout := runTSScript(t, node, dir, "searchonly.mjs", f.base+"/mcp", question)
	var out struct {
		Version string `json:"version"`
		Cited   int    `json:"cited"`
		Section struct {
			Ref    string `json:"ref"`
			Route  string `json:"route"`
			Anchor string `json:"anchor"`
			Offset int    `json:"offset"`
			Length int    `json:"length"`
			Stamp  string `json:"stamp"`
		} `json:"section"`
		Lead        string `json:"lead"`
		SectionText string `json:"sectionText"`
		FirstOffset int    `json:"firstOffset"`
		Chunks      int    `json:"chunks"`
		Read        string `json:"read"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("searchonly output is not JSON: %v\n%s", err, stdout)
	}
	t.Logf("the text-only client cited %s (offset %d, length %d, one of %d) and read on in %d chunks from %d", out.Section.Ref, out.Section.Offset, out.Section.Length, out.Cited, out.Chunks, out.FirstOffset)

	// One search_documentation call over MCP answered the question.
	calls := 0
	for _, r := range f.rec.all() {
		if r.Action == "search_documentation" {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("the client made %d search_documentation calls, want 1", calls)
	}

	// What the client read from the text is the answer's best section.
	var a struct {
		Version  string `json:"version"`
		Sections []struct {
			Route  string `json:"route"`
			Anchor string `json:"anchor"`
			Offset int    `json:"offset"`
			Length int    `json:"length"`
			Stamp  string `json:"stamp"`
		} `json:"sections"`
	}
	body := f.postAPI(t, "search_documentation", map[string]any{"query": question, "budget": 2000}, "")
	if err := json.Unmarshal(body, &a); err != nil || len(a.Sections) == 0 {
		t.Fatalf("answer %.300s: %v", body, err)
	}
	s := a.Sections[0]
	if out.Version != a.Version || out.Cited != len(a.Sections) || out.Section.Route != s.Route || out.Section.Anchor != s.Anchor ||
		out.Section.Offset != s.Offset || out.Section.Length != s.Length || out.Section.Stamp != s.Stamp {
		t.Fatalf("the text-only client cited %+v of %d sections in version %q; the answer's best is %+v of %d in %q", out.Section, out.Cited, out.Version, s, len(a.Sections), a.Version)
	}

	// The section's packed text is the page's served text at its offset,
	// and the client read on from there.
	page := []rune(f.wholeText(t, "read_documentation", map[string]any{"page": s.Route}, ""))
	if s.Offset+s.Length > len(page) || out.SectionText != string(page[s.Offset:s.Offset+s.Length]) {
		t.Errorf("the section's packed text %.200q is not the page's text at %d (%d code points)", out.SectionText, s.Offset, s.Length)
	}
	if out.FirstOffset != s.Offset || !strings.HasPrefix(out.Read, out.SectionText) || !strings.HasPrefix(string(page[s.Offset:]), out.Read) {
		t.Errorf("the client read on from %d: %.200q; want the page's text from %d", out.FirstOffset, out.Read, s.Offset)
	}
}
