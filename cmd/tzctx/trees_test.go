package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestIngestAnyTreeName: ingest takes any valid tree name, from --tree
// and from a site's folders, and refuses an invalid or reserved one
// naming the rule; it reads no server configuration.
func TestIngestAnyTreeName(t *testing.T) {
	cloud := filepath.Join(testkit.SampleSite(t), "cloud")
	r := runCLI(t, t.TempDir(), "ingest", "--tree", "mcp="+cloud, "--tree", "power-shell2="+cloud)
	if r.err != nil || !strings.Contains(r.stdout, "mcp") || !strings.Contains(r.stdout, "power-shell2") {
		t.Fatalf("ingest of two named trees: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	site := t.TempDir()
	testkit.CopyTree(t, cloud, filepath.Join(site, "mintlify"))
	if r := runCLI(t, t.TempDir(), "ingest", site); r.err != nil || !strings.Contains(r.stdout, "mintlify") {
		t.Fatalf("ingest of a site folder with a mintlify tree: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	for name, want := range map[string]string{
		"search":                `"search" is not a tree name: it is reserved`,
		"meta":                  `"meta" is not a tree name: it is reserved`,
		"a:b":                   `"a:b" is not a tree name: it holds ":"`,
		"-x":                    `"-x" is not a tree name: it does not start with a lower-case letter`,
		strings.Repeat("a", 33): "is longer than 32 characters",
	} {
		r := runCLI(t, t.TempDir(), "ingest", "--tree", name+"="+cloud)
		if r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("--tree %s: %v; want %q", name, r.err, want)
		}
	}
	bad := t.TempDir()
	if err := os.Mkdir(filepath.Join(bad, "Guides"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, t.TempDir(), "ingest", bad); r.err == nil || !strings.Contains(r.err.Error(), `folder "Guides" is not a tree name`) {
		t.Errorf("a site folder's Guides folder: %v", r.err)
	}
}
