package surface

import (
	"fmt"
	"testing"
)

// TestCheck is data-driven: each text with the findings it must give, as
// rule@line:column.
func TestCheck(t *testing.T) {
	opts := Options{MustName: true, CodeNames: []string{"Quasar", "tz-internal"}, Allowed: []string{"schemas/served_context.json", "contracts/overview.md"}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Turn Zero Cloud serves context.", nil},
		{"The service serves context.", []string{"public-name@0:0"}},
		{"Turn Zero Cloud, once Quasar, serves.", []string{"code-name@1:23"}},
		{"Turn Zero Cloud\nsee quasar docs", []string{"code-name@2:5"}},
		{"Turn Zero Cloud quasars are stars", nil}, // not the whole word
		{"Turn Zero Cloud: tz-internal.", []string{"code-name@1:18"}},
		{"Turn Zero Cloud: read internal/leaf/textmap/chunk.go first.", []string{"repo-path@1:23"}},
		{"Turn Zero Cloud: the `cmd/tzctx` command.", []string{"repo-path@1:23"}},
		{"Turn Zero Cloud: run ./scripts/deploy.sh", []string{"repo-path@1:22"}},
		{"Turn Zero Cloud: see pkg/server/main.go.", []string{"repo-path@1:22"}},
		{"Turn Zero Cloud: the index schemas/served_context.json lists it.", nil},
		{"Turn Zero Cloud: read `contracts/overview.md`.", nil},
		{"Turn Zero Cloud: POST /api/v1/actions/read_context", nil},
		{"Turn Zero Cloud: https://example.com/src/app.ts", nil},
		{"Turn Zero Cloud: Node.js and docs.json and PATH.mdx", nil},
		{"Turn Zero Cloud: a folder named tests is fine", nil},
		{"Turn Zero Cloud: .github/workflows/ci.yml", []string{"repo-path@1:18"}},
	} {
		var got []string
		for _, f := range Check(tc.text, opts) {
			got = append(got, fmt.Sprintf("%s@%d:%d", f.Rule, f.Line, f.Column))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Check(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestSentencesNeedNoName: a sentence the service writes need not name the
// product, but holds no path.
func TestSentencesNeedNoName(t *testing.T) {
	if f := Check("Read code points 0 to 10 of 20.", Options{}); len(f) != 0 {
		t.Errorf("findings %v", f)
	}
	if f := Check("see internal/action/dispatch for why", Options{}); len(f) != 1 || f[0].Rule != RuleRepoPath {
		t.Errorf("findings %v", f)
	}
}
