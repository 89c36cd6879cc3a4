package mcp_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestSearchDocumentationTool: search_documentation is a tool whose
// structured content is the HTTP answer byte for byte, and whose text
// content is the packed text, then the members line and every member an
// agent acts on; a client reading the text alone reads on from a cited
// section with read_documentation and gets the section's text.
func TestSearchDocumentationTool(t *testing.T) {
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
