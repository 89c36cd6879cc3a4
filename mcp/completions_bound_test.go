package mcp_test

import (
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/mcp"
)

// TestCompletionPastItsBoundsAnswersNoValues: a value of more words than
// a completion matches (DefaultCompletionWords), each of which would
// begin a word of a page's title, completes to no values and reads no
// tree (no record), over the route template and the prompt argument
// alike; within the bound the same words still match. The work of the
// title match grew with the pages times the words: 100,000 words on
// 100,000 pages was 26 s of CPU.
func TestCompletionPastItsBoundsAnswersNoValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	anon, _ := f.stdioClientAt(t, "")
	page := mcpgo.ResourceReference{Type: "ref/resource", URI: "tzctx://docs/{tree}/page/{+route}"}
	section := mcpgo.PromptReference{Type: "ref/prompt", Name: "read-page-section"}
	within := "troubleshoot" + strings.Repeat(" t", mcp.DefaultCompletionWords-1)
	if got := completeRef(t, anon, page, "route", within, map[string]string{"tree": "cloud"}).Completion.Values; strings.Join(got, ",") != "help/troubleshooting" {
		t.Fatalf("%d words within the bound complete to %v, want help/troubleshooting", mcp.DefaultCompletionWords, got)
	}
	over := within + " t"
	before := len(f.rec.all())
	if got := completeRef(t, anon, page, "route", over, map[string]string{"tree": "cloud"}).Completion; len(got.Values) != 0 || got.Total != 0 || got.HasMore {
		t.Errorf("%d words, past the bound, complete to %+v; want no values", mcp.DefaultCompletionWords+1, got)
	}
	if got := completeRef(t, anon, section, "page", over, nil).Completion; len(got.Values) != 0 {
		t.Errorf("%d words of the prompt's page complete to %v; want no values", mcp.DefaultCompletionWords+1, got.Values)
	}
	long := strings.Repeat("t ", mcp.DefaultCompletionValueChars)
	if got := completeRef(t, anon, section, "page", long, nil).Completion; len(got.Values) != 0 {
		t.Errorf("a value of %d characters completes to %v; want no values", len(long), got.Values)
	}
	if recs := f.rec.all()[before:]; len(recs) != 0 {
		t.Errorf("completions past the bounds read the trees: %+v", recs)
	}
}
