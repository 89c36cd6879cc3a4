package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	sampledata "github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// shellBlocks returns the contents of a Markdown text's fenced code
// blocks whose info string is sh, in order, as a CommonMark parser reads
// them.
func shellBlocks(md []byte) []string {
	var out []string
	doc := goldmark.New().Parser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || string(fc.Language(md)) != "sh" {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for i := 0; i < fc.Lines().Len(); i++ {
			seg := fc.Lines().At(i)
			b.Write(seg.Value(md))
		}
		out = append(out, b.String())
		return ast.WalkContinue, nil
	})
	return out
}

// needTools skips the test where a tool the guides use is missing, and
// fails it in CI, whose script installs them.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; .ci/run installs it", tool)
			}
			t.Skipf("the guides' examples use %s, which is not installed (apt-get install %s)", tool, tool)
		}
	}
}

// runGuide runs every sh block of a guide, in order, in one bash shell
// with errexit and pipefail, and returns what it printed.
func runGuide(t *testing.T, name string, md []byte, dir string, env []string) string {
	t.Helper()
	blocks := shellBlocks(md)
	if len(blocks) == 0 {
		t.Fatalf("guide %s has no sh example", name)
	}
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for i, b := range blocks {
		script.WriteString("echo '=== example " + strconv.Itoa(i+1) + "' >&2\n")
		script.WriteString(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("guide %s: an example failed (%v)\nstdout:\n%s\nstderr (the last example named is the one that failed):\n%s", name, err, out.String(), errb.String())
	}
	return out.String()
}

// TestGuidesRunAgainstAServer executes every example of every guide the
// index names against a real server and the real command, so a guide
// cannot teach a call that fails (CTX-06), then checks what each guide
// claims to have done.
func TestGuidesRunAgainstAServer(t *testing.T) {
	tier.Long(t, "runs the guides against tzctx child processes")
	needTools(t, "bash", "curl", "jq", "awk")
	bin := buildBinary(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	env := []string{"TZCTX_DATA=" + data, "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	runProc(t, bin, env, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startProc(t, bin, env, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
	var base string
	if !waitFor(60*time.Second, func() bool {
		if m := servingRE.FindStringSubmatch(srv.stderr.String()); m != nil {
			base = "http://" + m[1]
		}
		return base != ""
	}) {
		t.Fatalf("the server did not start:\n%s", srv.stderr.String())
	}
	env = append(env, "TZCTX_URL="+base, "SITE="+changedSite(t))

	idx, err := catalog.ReadIndex(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]string{}
	for _, g := range idx.Guides {
		md, err := catalog.Embedded().ReadFile(g.Path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(work, "guide-"+g.Subject)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ran[g.Subject] = runGuide(t, g.Subject, md, dir, env)
		t.Logf("guide %s: %d examples ran", g.Subject, len(shellBlocks(md)))
	}

	// The reading guide read the overview to its end into a file, chunk by
	// chunk, and read one section of a page from its headings offset.
	overview, _ := catalog.Embedded().ReadFile("contracts/overview.md")
	got, err := os.ReadFile(filepath.Join(work, "guide-reading", "overview.md"))
	if err != nil || string(got) != string(overview) {
		t.Errorf("the reading guide's paging loop wrote %d bytes, the overview has %d (%v)", len(got), len(overview), err)
	}
	if out := ran["reading"]; !strings.Contains(out, "overview\tread_context\ttext/markdown") || !strings.Contains(out, "context_not_found") {
		t.Errorf("the reading guide's catalog listing or refusal did not print:\n%s", out)
	}
	// The library-first guide took http-client into its project folder,
	// byte for byte, and list_library with its manifest answered current.
	if out, ok := ran["library-first"]; ok {
		if !strings.Contains(out, "http-client current") {
			t.Errorf("the library-first guide's proof did not answer current:\n%s", out)
		}
		for _, f := range []string{"client.ts", "README.md"} {
			want, _ := fs.ReadFile(sampledata.Site(), "library/http-client/"+f)
			got, err := os.ReadFile(filepath.Join(work, "guide-library-first", "vendor", "library", "http-client", f))
			if err != nil || string(got) != string(want) {
				t.Errorf("the library-first guide vendored %s as %d bytes, the entry holds %d (%v)", f, len(got), len(want), err)
			}
		}
	}
	// The operating guide ingested v2 from SITE, activated it, rolled back
	// to A, activated v2 again and deleted A.
	if _, ok := ran["operating"]; ok {
		rows := parseVersions(t, runProc(t, bin, env, "versions").stdout.String())
		if len(rows) != 1 || rows[0].name != "v2" || !rows[0].active {
			t.Errorf("versions after the operating guide: %+v, want v2 alone, active", rows)
		}
		if !strings.Contains(ran["operating"], "activated A") {
			t.Errorf("the operating guide did not roll back to A:\n%s", ran["operating"])
		}
		if !strings.Contains(ran["operating"], "tzctx_served_version_info{version=") {
			t.Errorf("the operating guide's /metrics example printed no served version:\n%s", ran["operating"])
		}
		if !waitFor(10*time.Second, func() bool { _, v, _ := health(base); return v == "v2" }) {
			t.Errorf("the server does not serve v2 after the operating guide")
		}
		// Its records example listed the reading guide's calls.
		if out := ran["operating"]; !strings.Contains(out, "TRANSPORT") || !strings.Contains(out, "\thttp\tdocs:") {
			t.Errorf("the operating guide's records examples listed no call of the reading guide:\n%s", out)
		}
	}
}
