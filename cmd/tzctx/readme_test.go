package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// workedExamplePage is the page holding the worked example of
// credentials, the access map and the operator actions.
const workedExamplePage = "docs/security.md"

// readmeBlock returns the worked example page's sh block whose first
// line is the comment "# worked example: NAME".
func readmeBlock(t *testing.T, readme []byte, name string) string {
	t.Helper()
	for _, b := range shellBlocks(readme) {
		if first, _, _ := strings.Cut(b, "\n"); first == "# worked example: "+name {
			return b
		}
	}
	t.Fatalf("%s has no sh block starting # worked example: %s", workedExamplePage, name)
	return ""
}

// expectedRE reads what a call line's comment says comes back: the
// status, and the error code where there is one.
var expectedRE = regexp.MustCompile(`# (\d{3})(?: ([a-z_]+):)?`)

// answerRE splits the calls' output: each answer, then a space and its
// status on the line's end.
var answerRE = regexp.MustCompile(`(?s)(.*?) (\d{3})\n`)

// TestReadmeWorkedExample runs the worked example of credentials,
// the access map and the operator actions (docs/security.md, which the
// README links): its configuration block as
// written, then a server started with that file, then its calls block,
// holding each call's status and error code to the comment beside it, and
// the refusal of blueprint to the detail that says why.
func TestReadmeWorkedExample(t *testing.T) {
	tier.Long(t, "runs the worked example against a tzctx child process")
	needTools(t, "bash", "curl", "jq")
	readme, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(workedExamplePage)))
	if err != nil {
		t.Fatal(err)
	}
	config, calls := readmeBlock(t, readme, "configuration"), readmeBlock(t, readme, "calls")
	bin := buildBinary(t)
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(work, "bin", "tzctx")); err != nil {
		t.Fatal(err)
	}
	runGuide(t, "worked example: configuration", []byte("```sh\n"+config+"```\n"), work, nil)

	srv := startProc(t, bin, nil, "--data", filepath.Join(work, "data"), "serve", "--config", filepath.Join(work, "tzctx.json"), "--addr", "127.0.0.1:0")
	addr := awaitServing(t, srv)
	if !waitFor(60*time.Second, func() bool { c, _, _ := health("http://" + addr); return c == 200 }) {
		t.Fatalf("the server serves no version:\n%s", srv.stderr.String())
	}
	var want [][]string
	for _, l := range strings.Split(calls, "\n") {
		if strings.HasPrefix(l, "curl ") {
			m := expectedRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s call %q has no comment saying its status", workedExamplePage, l)
			}
			want = append(want, m[1:])
		}
	}
	script := strings.ReplaceAll(calls, "127.0.0.1:8080", addr)
	out := runGuide(t, "worked example: calls", []byte("```sh\n"+script+"```\n"), work, nil)
	got := answerRE.FindAllStringSubmatch(out, -1)
	if len(got) != len(want) || len(want) < 6 {
		t.Fatalf("%d answers for %d calls:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		body, status := got[i][1], got[i][2]
		if status != w[0] || w[1] != "" && !strings.Contains(body, `"code":"`+w[1]+`"`) {
			t.Errorf("call %d: %s %s, %s says %s %s", i+1, status, body, workedExamplePage, w[0], w[1])
		}
		// The refusal of blueprint says why, and how to read it.
		if strings.Contains(body, "tree blueprint is not readable") && !strings.Contains(body, "the access map (the trees member of the server configuration) grants it only to credentials holding the product profile blueprint") {
			t.Errorf("call %d: the refusal does not say what the access map grants blueprint to: %s", i+1, body)
		}
	}
	if !strings.Contains(out, "tree blueprint is not readable") {
		t.Errorf("no call was refused blueprint:\n%s", out)
	}
}
