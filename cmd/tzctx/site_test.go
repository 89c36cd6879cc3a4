package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestCheckSiteName: tzctx check fills --site-name into the contract set
// and holds it to that name; a misspelt placeholder fails the check
// naming the file, and a bad name is refused naming the flag.
func TestCheckSiteName(t *testing.T) {
	if r := mustCLI(t, t.TempDir(), "check", "--site-name", "Acme Docs"); r.stdout != "0 errors, 0 warnings\n" {
		t.Errorf("the embedded contract set as Acme Docs: %q", r.stdout)
	}
	if r := runCLI(t, t.TempDir(), "check", "--site-name", "Acme\nDocs"); r.err == nil || !strings.Contains(r.err.Error(), "--site-name") {
		t.Errorf("a name spanning lines: %v", r.err)
	}
	root := filepath.Join("..", "..")
	dir := t.TempDir()
	testkit.CopyTree(t, filepath.Join(root, "contracts"), filepath.Join(dir, "contracts"))
	testkit.CopyTree(t, filepath.Join(root, "schemas"), filepath.Join(dir, "schemas"))
	p := filepath.Join(dir, "contracts", "overview.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "{{site.name}}", "{{site.nmae}}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, t.TempDir(), "check", "--contracts", dir)
	if r.err == nil || !strings.Contains(r.stdout, "contracts/overview.md:1: ctx-08-placeholder: {{site.nmae}}") {
		t.Errorf("a misspelt placeholder: %v\n%s", r.err, r.stdout)
	}
}

// TestGenReferenceSiteName: the generated pages name --site-name where
// they name the product, and a stale folder's fix repeats the flag.
func TestGenReferenceSiteName(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "actions")
	mustCLI(t, data, "gen", "reference", "--site-name", "Acme Docs", dir)
	b, err := os.ReadFile(filepath.Join(dir, "list_context.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Part of the Acme Docs served context.") || strings.Contains(string(b), "Turn Zero Cloud") || strings.Contains(string(b), "{{") {
		t.Errorf("the page as Acme Docs:\n%.600s", b)
	}
	r := runCLI(t, data, "gen", "reference", "--check", dir)
	if r.err == nil || !strings.Contains(r.err.Error(), "is stale") {
		t.Errorf("--check of Acme Docs pages under the default name: %v", r.err)
	}
	r = runCLI(t, data, "gen", "reference", "--check", "--site-name", "Acme Docs", dir)
	if r.err != nil {
		t.Errorf("--check under the same name: %v", r.err)
	}
}
