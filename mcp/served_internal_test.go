package mcp

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
)

// TestInstructionsBound: instructions listing more trees than fit in
// InstructionsMaxChars keep to it, list the trees in order while they
// fit, and count the rest with how to list them.
func TestInstructionsBound(t *testing.T) {
	t.Parallel()
	var trees []tzctx.TreeSummary
	for i := range 60 {
		trees = append(trees, tzctx.TreeSummary{Name: "tree" + strconv.Itoa(i), Title: "Title " + strconv.Itoa(i), Description: strings.Repeat("d", 80), Pages: i})
	}
	ins := instructionsText("Orbit", trees, true, DefaultInstructionsMaxChars)
	if n := utf8.RuneCountInString(ins); n > DefaultInstructionsMaxChars {
		t.Fatalf("the instructions are %d code points, over %d", n, DefaultInstructionsMaxChars)
	}
	if small := instructionsText("Orbit", trees, true, MinInstructionsMaxChars); utf8.RuneCountInString(small) > MinInstructionsMaxChars || !strings.Contains(small, "- tree0: ") {
		t.Errorf("at the smallest bound the instructions are %d code points, or list no tree:\n%s", utf8.RuneCountInString(small), small)
	}
	listed := strings.Count(ins, "\n- tree")
	if listed == 0 || listed == len(trees) || !strings.Contains(ins, "- and "+strconv.Itoa(len(trees)-listed)+" more trees: list_context lists every tree's index.") {
		t.Errorf("%d trees listed, the rest not counted:\n%s", listed, ins)
	}
	if !strings.HasPrefix(ins, "Orbit serves this documentation:\n- tree0: Title 0 — ") || !strings.Contains(ins, "search_documentation") {
		t.Errorf("the instructions do not start with the trees or lack how to find an answer:\n%s", ins)
	}
	if none := instructionsText("Acme Docs", nil, false, DefaultInstructionsMaxChars); !strings.HasPrefix(none, "Acme Docs' served context holds no documentation") {
		t.Errorf("no tree: %s", none)
	}
}
