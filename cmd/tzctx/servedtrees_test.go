package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/server"
)

// TestOwnTreeServedWithoutConfiguration is issue 31's "done when": from a
// fresh data directory, `tzctx ingest --tree redux=<the Redux docs>`, then
// `tzctx mcp` with no configuration, and the official TypeScript SDK
// client (testdata/ts/owntree.mjs) finds the tree in read_documentation's
// tree enumeration, reads its index and a page it links. It skips, saying
// why, where the corpora, node or the SDK are absent (not under CI).
func TestOwnTreeServedWithoutConfiguration(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	corpus := filepath.Join(testkit.Corpora(t), "redux-docs")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus redux-docs is absent from the corpora folder: %v", err)
	}
	node, dir := testkit.TSSDK(t)
	bin := buildBinary(t)
	data := t.TempDir()
	ing := runProc(t, bin, nil, "--data", data, "ingest", "--tree", "redux="+corpus, "--activate")
	if !strings.Contains(ing.stdout.String(), `docusaurus "Redux"`) {
		t.Errorf("ingest does not print the tree's format and title:\n%s", ing.stdout.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "owntree.mjs", "redux", bin, "--data", data, "mcp")
	cmd.Dir = dir
	var stdout, stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node owntree.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var out struct {
		TreeEnum  []string `json:"treeEnum"`
		IndexHead string   `json:"indexHead"`
		Route     string   `json:"route"`
		PageHead  string   `json:"pageHead"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
		t.Fatalf("owntree output is not JSON: %v\n%s", err, stdout.String())
	}
	if !slices.Contains(out.TreeEnum, "redux") {
		t.Errorf("read_documentation's tree enumeration %v lacks redux", out.TreeEnum)
	}
	if !strings.HasPrefix(out.IndexHead, "# Redux\n") || !strings.HasPrefix(out.Route, "/redux/") || strings.TrimSpace(out.PageHead) == "" {
		t.Errorf("the client read the index %.200q and the page %s: %.200q", out.IndexHead, out.Route, out.PageHead)
	}
	// The process said at start which trees it serves, and to whom.
	if want := `trees="redux (anonymous callers)"`; !strings.Contains(stderr.String(), want) {
		t.Errorf("tzctx mcp's stderr does not say %s:\n%s", want, stderr.String())
	}
}

// hostileTitle is an MkDocs site_name a hostile or careless docs folder
// may hold: a right-to-left override, a zero-width space, a line break, a
// control character and 500 code points.
var hostileTitle = "Acme\u202e Docs\u200b\nfor\x07 you " + strings.Repeat("é", 500)

// cleanTitle is hostileTitle served: one line of 120 code points with
// none of those characters.
var cleanTitle = "Acme Docs for you " + strings.Repeat("é", 120-len("Acme Docs for you "))

// mkdocsTree writes an MkDocs folder of two pages whose site_name is
// name, and returns it.
func mkdocsTree(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	quoted, _ := json.Marshal(name) // a YAML double-quoted scalar
	testkit.WriteFiles(t, dir, map[string]string{
		"mkdocs.yml":     "site_name: " + string(quoted) + "\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - Elsewhere: https://example.com/\n",
		"docs/index.md":  "# Home\n\nWelcome.\n",
		"docs/guide.md":  "# Guide\n\nHow to do things.\n",
		"docs/unused.md": "# Unused\n",
	})
	return dir
}

// docEntries returns the documentation entries of the catalog an
// anonymous caller of base lists: ID → title.
func docEntries(t *testing.T, base string) map[string]string {
	t.Helper()
	code, raw, err := postRaw(base, "list_context", map[string]any{})
	if err != nil || code != 200 {
		t.Fatalf("list_context: %d %v %s", code, err, raw)
	}
	var a struct{ Entries []struct{ ID, Title string } }
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range a.Entries {
		if strings.HasPrefix(e.ID, "docs:") {
			out[e.ID] = e.Title
		}
	}
	return out
}

// TestServeWithoutTreesOnLoopbackAndBeyond: with no configuration, tzctx
// serve on a loopback address serves a tree ingest stored under any name
// to anonymous callers, titled by its generator's name cleaned to one
// line of 120 characters (ingest prints the same title), says so at
// start, and serves the tree set of a version activated later without a
// restart; on an address other hosts reach, the tree is served to no one
// and the start line and the warning say so.
func TestServeWithoutTreesOnLoopbackAndBeyond(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	bin := buildBinary(t)
	data := t.TempDir()
	ing := runProc(t, bin, nil, "--data", data, "ingest", "--tree", "acme="+mkdocsTree(t, hostileTitle), "--version", "v1", "--activate")
	if want := fmt.Sprintf("mkdocs %q\n    1 nav link skipped (external URL)\n", cleanTitle); !strings.Contains(ing.stdout.String(), want) {
		t.Errorf("ingest's summary lacks %q:\n%s", want, ing.stdout.String())
	}

	start := func(addr string) (*proc, string) {
		t.Helper()
		port := freePort(t)
		p := startProc(t, bin, nil, "--data", data, "serve", "--addr", fmt.Sprintf("%s:%d", addr, port))
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		if !waitFor(60*time.Second, func() bool { c, _, _ := health(base); return c == 200 }) {
			t.Fatalf("tzctx serve --addr %s did not answer within 60 s:\n%s", addr, p.stderr.String())
		}
		return p, base
	}

	// Loopback: served to anyone, under the cleaned title.
	p, base := start("127.0.0.1")
	entries := docEntries(t, base)
	if got := entries["docs:acme"]; got != cleanTitle+": index" {
		t.Errorf("docs:acme is titled %q, want %q", got, cleanTitle+": index")
	}
	if n := utf8.RuneCountInString(strings.TrimSuffix(entries["docs:acme"], ": index")); n != 120 {
		t.Errorf("the title is %d code points, want 120", n)
	}
	code, raw, err := postRaw(base, "read_documentation", map[string]any{"page": "/acme/guide/"})
	if err != nil || code != 200 || !strings.Contains(string(raw), "How to do things.") {
		t.Errorf("reading /acme/guide/: %d %v %s", code, err, raw)
	}
	if want := "serving every tree of the served version"; !strings.Contains(p.stderr.String(), want) || !strings.Contains(p.stderr.String(), `trees="acme (anonymous callers)"`) {
		t.Errorf("serve's start line does not say which trees it serves to whom:\n%s", p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "is not served") {
		t.Errorf("serve on loopback warns of a tree it serves:\n%s", p.stderr.String())
	}

	// A version with another tree set is served without a restart.
	runProc(t, bin, nil, "--data", data, "ingest", "--tree", "beta="+mkdocsTree(t, "Beta Book"), "--version", "v2", "--activate")
	if !waitFor(60*time.Second, func() bool { _, ok := docEntries(t, base)["docs:beta"]; return ok }) {
		t.Fatalf("the activated version's tree beta is not listed within 60 s: %v", docEntries(t, base))
	}
	if entries := docEntries(t, base); entries["docs:beta"] != "Beta Book: index" || entries["docs:acme"] != "" {
		t.Errorf("after activating v2, the catalog's documentation entries are %v", entries)
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.wait(t, time.Minute)

	// An address other hosts reach: the tree is served to no one.
	runProc(t, bin, nil, "--data", data, "activate", "v1")
	p, base = start("0.0.0.0")
	if entries := docEntries(t, base); len(entries) != 0 {
		t.Errorf("on 0.0.0.0 the catalog lists %v, want no documentation entry", entries)
	}
	code, raw, _ = postRaw(base, "read_documentation", map[string]any{"tree": "acme"})
	if code != 400 || !strings.Contains(string(raw), "invalid_request") {
		t.Errorf("reading tree acme on 0.0.0.0: %d %s, want invalid_request", code, raw)
	}
	logs := p.stderr.String()
	for _, want := range []string{"a tree of the version is not served, to anyone", "tree=acme", "serving the contract's trees (cloud, blueprint, tzdocs) alone"} {
		if !strings.Contains(logs, want) {
			t.Errorf("serve on 0.0.0.0 does not log %q:\n%s", want, logs)
		}
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.wait(t, time.Minute)
}

// TestConfiguredTreeWithoutTitle: a listed tree's title is optional; it
// is then served under its generator's name, cleaned, as an unlisted one
// is.
func TestConfiguredTreeWithoutTitle(t *testing.T) {
	data := t.TempDir()
	mustCLI(t, data, "ingest", "--tree", "acme="+mkdocsTree(t, hostileTitle), "--tree", "beta="+mkdocsTree(t, "Beta Book"), "--activate")
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(`{"trees": [{"name": "acme", "access": "anonymous"}, {"name": "beta", "access": "anonymous", "title": "Configured Beta"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.LoadConfig(f)
	if err != nil {
		t.Fatalf("a tree without a title: %v", err)
	}
	cfg.WatchInterval = server.Duration(time.Second)
	s := startServer(t, data, cfg)
	entries := docEntries(t, s.base)
	if entries["docs:acme"] != cleanTitle+": index" || entries["docs:beta"] != "Configured Beta: index" {
		t.Errorf("documentation entries %v; want acme under its cleaned generator's name, beta under its configured title", entries)
	}
}
