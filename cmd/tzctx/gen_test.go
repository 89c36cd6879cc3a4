package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committedReference is the sample site's generated reference, from this
// package's folder.
const committedReference = "../../data/site/cloud/reference/actions"

// TestGenReferenceWriteThenCheck drives tzctx gen reference: it writes one
// page per action into an empty folder, --check then passes, an edited,
// a removed and an added file each make --check fail naming the file and
// the command that rewrites the folder, and writing again repairs it.
func TestGenReferenceWriteThenCheck(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "actions")
	r := mustCLI(t, data, "gen", "reference", dir)
	for _, a := range []string{"list_context", "read_context", "read_documentation", "search_documentation", "list_library", "read_library_entry"} {
		if !strings.Contains(r.stdout, "wrote "+filepath.Join(dir, a+".md")) {
			t.Errorf("gen reference did not report writing %s.md:\n%s", a, r.stdout)
		}
	}
	if r := mustCLI(t, data, "gen", "reference", "--check", dir); !strings.Contains(r.stdout, "is up to date: 6 pages") {
		t.Errorf("--check after writing: %q", r.stdout)
	}
	page := filepath.Join(dir, "read_context.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, []byte(strings.Replace(string(b), "Registered in this build.", "Not registered in this build.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "list_context.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, data, "gen", "reference", "--check", dir)
	if r.err == nil {
		t.Fatalf("--check passed on an edited folder:\n%s", r.stdout)
	}
	for _, want := range []string{
		page + " is stale",
		filepath.Join(dir, "list_context.md") + " is missing",
		filepath.Join(dir, "notes.txt") + " is extra",
		"tzctx gen reference --write " + dir,
		"go run ./cmd/tzctx gen reference --write " + dir,
	} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("--check error does not say %q:\n%v", want, r.err)
		}
	}
	r = mustCLI(t, data, "gen", "reference", "--write", dir)
	if !strings.Contains(r.stdout, "wrote "+page) || !strings.Contains(r.stdout, "wrote "+filepath.Join(dir, "list_context.md")) {
		t.Errorf("--write did not rewrite the stale and missing pages:\n%s", r.stdout)
	}
	// The extra file is no page: --write leaves it, --check still names it.
	r = runCLI(t, data, "gen", "reference", "--check", dir)
	if r.err == nil || !strings.Contains(r.err.Error(), "notes.txt is extra") || strings.Contains(r.err.Error(), "stale") {
		t.Errorf("--check with only an extra file left: %v", r.err)
	}
	if err := os.Remove(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, data, "gen", "reference", "--check", dir)
}

// TestGenReferenceFlags: --check and --write exclude each other, and DIR
// is required.
func TestGenReferenceFlags(t *testing.T) {
	data := t.TempDir()
	if r := runCLI(t, data, "gen", "reference", "--check", "--write", t.TempDir()); r.err == nil || !strings.Contains(r.err.Error(), "exclude each other") {
		t.Errorf("--check --write: %v", r.err)
	}
	if r := runCLI(t, data, "gen", "reference"); r.err == nil {
		t.Error("gen reference with no DIR succeeded")
	}
}

// TestGenReferenceCheckCommitted runs the command's check on the pages
// the sample site commits, as a developer would before committing.
func TestGenReferenceCheckCommitted(t *testing.T) {
	if r := runCLI(t, t.TempDir(), "gen", "reference", "--check", committedReference); r.err != nil {
		t.Errorf("the committed reference is stale: %v", r.err)
	}
}

// TestGenReferenceTrees drives gen reference's --trees: the pages name
// the given trees, in their order, and no tree of the contract's; --check
// holds a folder to the trees it was written for and names the flag in
// the command it gives; the contract's three give the committed pages;
// a bad list is refused, naming what is wrong.
func TestGenReferenceTrees(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "actions")
	mustCLI(t, data, "gen", "reference", "--trees", "redux, vite", dir)
	all := ""
	for _, a := range []string{"list_context", "read_documentation", "search_documentation"} {
		b, err := os.ReadFile(filepath.Join(dir, a+".md"))
		if err != nil {
			t.Fatal(err)
		}
		all += string(b)
		if !strings.Contains(string(b), "`[\"redux\",\"vite\"]`") {
			t.Errorf("%s.md does not enumerate redux and vite", a)
		}
	}
	if !strings.Contains(all, "such as /redux/,") {
		t.Error("read_documentation.md's page example is not a redux route")
	}
	for _, gone := range []string{`"cloud"`, `"blueprint"`, `"tzdocs"`, "/cloud/"} {
		if strings.Contains(all, gone) {
			t.Errorf("the pages for --trees redux,vite name %s", gone)
		}
	}
	mustCLI(t, data, "gen", "reference", "--trees", "redux,vite", "--check", dir)
	r := runCLI(t, data, "gen", "reference", "--check", dir)
	if r.err == nil || !strings.Contains(r.err.Error(), "is stale") {
		t.Errorf("--check for the contract's trees passed on pages written for redux,vite: %v", r.err)
	}
	r = runCLI(t, data, "gen", "reference", "--trees", "redux", "--check", dir)
	if r.err == nil || !strings.Contains(r.err.Error(), "tzctx gen reference --trees redux --write "+dir) {
		t.Errorf("--check with --trees does not give the command with the flag: %v", r.err)
	}
	if r := runCLI(t, data, "gen", "reference", "--trees", "cloud,blueprint,tzdocs", "--check", committedReference); r.err != nil {
		t.Errorf("--trees naming the contract's three does not give the committed pages: %v", r.err)
	}
	for flag, want := range map[string]string{
		"redux,,vite": "a tree name is empty",
		"redux,redux": `"redux" is given twice`,
		"Redux":       "--trees \"Redux\"",
	} {
		if r := runCLI(t, data, "gen", "reference", "--trees", flag, t.TempDir()); r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("--trees %q: %v, want an error saying %q", flag, r.err, want)
		}
	}
}
