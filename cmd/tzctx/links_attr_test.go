package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
)

// checkFindings runs tzctx check --json on one tree and returns its errors
// and warnings, each as "FILE:LINE: RULE: MESSAGE" with FILE relative to
// the tree folder.
func checkFindings(t *testing.T, tree string, args ...string) (errs, warns []string) {
	t.Helper()
	r := runCLI(t, t.TempDir(), append([]string{"check", "--json", "--tree", "tzdocs=" + tree}, args...)...)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	show := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			rel, _ := filepath.Rel(tree, f.File)
			out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(f.Line)+": "+f.Rule+": "+f.Message)
		}
		return out
	}
	return show(rep.Errors), show(rep.Warnings)
}

// TestCheckAttributeListAnchor: an MkDocs heading whose attribute list
// sets an id its text does not slug to (FastAPI's "About
// `**user_in.model_dump()`" { #about-user-in-model-dump }) is named by
// that id: check reports no broken anchor (it reported one, offering the
// slug of the text, which no reader's link names).
func TestCheckAttributeListAnchor(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"mkdocs.yml":                    "nav:\n  - index.md\n  - tutorial/extra-models.md\n",
		"docs/index.md":                 "# Home\n\nSee [the models](tutorial/extra-models.md#about-user-in-model-dump).\n",
		"docs/tutorial/extra-models.md": "# Extra Models\n\n### About `**user_in.model_dump()` { #about-user-in-model-dump }\n\nText.\n",
	})
	if errs, _ := checkFindings(t, tree); len(errs) != 0 {
		t.Errorf("check reports:\n%s", strings.Join(errs, "\n"))
	}
}
