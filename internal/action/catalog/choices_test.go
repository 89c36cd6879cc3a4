package catalog

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/contracts"
)

// choicesTitle opens the title of every file of the choices in the index.
const choicesTitle = "How this build reads the open places of the contract: "

// TestChoicesServedBySubject: the choices are served as their contents
// page, source:contracts/choices.md, and one entry per subject file,
// source:contracts/choices/<file>.md, each the file's text under the
// site's name, titled by its index row, listed in service_contracts and
// in the bundle; the contents page names each entry's ID.
func TestChoicesServedBySubject(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.ReadDir(contracts.FS, "choices")
	if err != nil || len(files) == 0 {
		t.Fatalf("the build embeds no subject file of the choices: %v", err)
	}
	contents, ok := cat.Item("source:contracts/choices.md")
	if !ok {
		t.Fatal("the catalog lacks the choices' contents page, source:contracts/choices.md")
	}
	service, _ := cat.Item(IDServiceContracts)
	bundle, _ := cat.Item(IDBundle)
	for _, f := range files {
		id := "source:contracts/choices/" + f.Name()
		it, ok := cat.Item(id)
		if !ok {
			t.Errorf("the catalog lacks %s", id)
			continue
		}
		want, err := Embedded().ReadFile(path.Join("contracts", "choices", f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if it.Text != string(want) || it.Tool != ToolReadContext || it.MimeType != MimeMarkdown {
			t.Errorf("%s is not the file's text as Markdown read with read_context: tool %s, type %s, %d of %d bytes", id, it.Tool, it.MimeType, len(it.Text), len(want))
		}
		if !strings.HasPrefix(it.Title, choicesTitle) {
			t.Errorf("%s is titled %q, not %q and its subject", id, it.Title, choicesTitle)
		}
		if !strings.Contains(contents.Text, "`"+id+"`") {
			t.Errorf("the contents page does not name %s", id)
		}
		if !strings.Contains(service.Text, "`"+id+"`: "+it.Title) {
			t.Errorf("service_contracts does not list %s", id)
		}
		if !strings.Contains(bundle.Text, `"id": "`+id+`"`) || !strings.Contains(bundle.Text, `"stamp": "`+Stamp(it.Text)+`"`) {
			t.Errorf("the bundle does not list %s with its stamp", id)
		}
	}
}

// TestChoicesSubjectFileNeedsARow: a subject file of the choices that the
// index does not name is a CTX-01 defect, as any contract file is, so a
// new subject cannot be added without its catalog entry.
func TestChoicesSubjectFileNeedsARow(t *testing.T) {
	files, root := copySet(t)
	const name = "more.md"
	extra := "# " + choicesTitle + "more\n\nPart of how this build of Turn Zero Cloud reads the contract.\n"
	if err := os.WriteFile(filepath.Join(root, "contracts", "choices", name), []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rules(Check(files, CheckOptions{})), "\n")
	if want := "contracts/choices/" + name + " " + RuleUnindexed; !strings.Contains(got, want) {
		t.Errorf("problems lack %q:\n%s", want, got)
	}
}
