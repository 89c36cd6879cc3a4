package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestIngestDocsVersion: tzctx ingest, run as a process, reads a
// versioned Docusaurus site at the version its site serves (lastVersion,
// here 1.0 of 2.0 and 1.0) and names it in the summary; --docs-version
// current reads the docs folder; a version the site lacks is refused
// listing its versions, by ingest and by check.
func TestIngestDocsVersion(t *testing.T) {
	t.Parallel() // a child process of its own on its own data directory
	tree := filepath.Join(t.TempDir(), "tzdocs")
	testkit.WriteFiles(t, tree, map[string]string{
		"docusaurus.config.js":                "module.exports = {presets: [['classic', {docs: {lastVersion: '1.0'}}]]}\n",
		"versions.json":                       `["2.0", "1.0"]`,
		"versioned_docs/version-2.0/intro.md": "# Intro 2.0\n",
		"versioned_docs/version-1.0/intro.md": "# Intro 1.0\n",
		"docs/intro.md":                       "# Intro next\n",
		"docs/next-only.md":                   "# Next\n",
	})
	bin := buildBinary(t)
	data := t.TempDir()
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, append([]string{"--data", data}, args...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	out, errOut, err := run("ingest", "--tree", "tzdocs="+tree)
	if err != nil || !strings.Contains(out, "tree tzdocs        1 pages") || !strings.Contains(out, "docs version 1.0, the site's default (its lastVersion)") {
		t.Errorf("default: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run("ingest", "--tree", "tzdocs="+tree, "--docs-version", "current")
	if err != nil || !strings.Contains(out, "tree tzdocs        2 pages") || !strings.Contains(out, "docs version current (the docs folder), chosen by --docs-version") {
		t.Errorf("current: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run("ingest", "--tree", "tzdocs="+tree, "--docs-version", "tzdocs=3.0")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(errOut, `no version "3.0"`) || !strings.Contains(errOut, "2.0, 1.0, current") {
		t.Errorf("3.0: %v\n%s%s", err, out, errOut)
	}
	r := runCLI(t, data, "check", "--tree", "tzdocs="+tree, "--docs-version", "3.0")
	if r.err == nil || !strings.Contains(r.stdout+r.stderr+r.err.Error(), "2.0, 1.0, current") {
		t.Errorf("check 3.0: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	r = runCLI(t, data, "check", "--tree", "tzdocs="+tree, "--docs-version", "cloud=2.0")
	if r.err == nil || !strings.Contains(r.err.Error(), "no tree cloud") {
		t.Errorf("check cloud=2.0: %v", r.err)
	}
}
