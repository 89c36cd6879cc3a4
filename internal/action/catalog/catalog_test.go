package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/leaf/finding"
	"github.com/turnzerocloud/tzctx/schemas"
)

// copySet copies the embedded contract set to a temporary folder and
// returns it as Files, with the folder's path, for tests that damage it.
func copySet(t *testing.T) (Files, string) {
	t.Helper()
	root := t.TempDir()
	for name, fsys := range map[string]fs.FS{"contracts": Embedded().Contracts, "schemas": Embedded().Schemas} {
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			raw, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			dst := filepath.Join(root, name, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, raw, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return Files{Contracts: os.DirFS(filepath.Join(root, "contracts")), Schemas: os.DirFS(filepath.Join(root, "schemas"))}, root
}

func rules(ps []finding.Finding) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.File+" "+p.Rule)
	}
	return out
}

// TestEmbeddedSetIsClean: this build's contract set passes every check.
func TestEmbeddedSetIsClean(t *testing.T) {
	if ps := Check(Embedded(), CheckOptions{}); len(ps) > 0 {
		for _, p := range ps {
			t.Error(p)
		}
	}
}

// TestCheckBothWays: an index row naming a missing file fails, and so does
// a contract or schema file the index omits (CTX-01); the failure names
// the file.
func TestCheckBothWays(t *testing.T) {
	files, root := copySet(t)
	if ps := Check(files, CheckOptions{}); len(ps) != 0 {
		t.Fatalf("the copy is not clean: %v", rules(ps))
	}
	if err := os.Remove(filepath.Join(root, "contracts", "guides", "operating.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schemas", "extra.json"), []byte(`{"description":"Turn Zero Cloud"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "contracts", "notes.md"), []byte("# Turn Zero Cloud notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rules(Check(files, CheckOptions{})), "\n")
	for _, want := range []string{"contracts/guides/operating.md " + RuleMissing, "schemas/extra.json " + RuleUnindexed, "contracts/notes.md " + RuleUnindexed} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	// Build refuses the missing file too.
	c, _ := schemas.Load()
	if _, err := Build(files, c, nil); err == nil || !strings.Contains(err.Error(), "contracts/guides/operating.md") {
		t.Errorf("Build with a missing guide = %v", err)
	}
}

// TestCheckContent: a text that is not UTF-8, a JSON file that does not
// parse, a guide that stops teaching a command, a code name and a
// repository path are each reported with the file.
func TestCheckContent(t *testing.T) {
	files, root := copySet(t)
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	overview, _ := os.ReadFile(filepath.Join(root, "contracts", "overview.md"))
	write("contracts/overview.md", string(overview)+"\nOnce called Quasar; see internal/action/catalog/check.go.\n")
	write("contracts/choices.md", "# Choices\n\xff\n")
	write("schemas/skills.json", `{"skills": [`)
	guide, _ := os.ReadFile(filepath.Join(root, "contracts", "guides", "operating.md"))
	write("contracts/guides/operating.md", strings.ReplaceAll(string(guide), "tzctx verify", "tzctx check-it"))
	got := strings.Join(rules(Check(files, CheckOptions{CodeNames: []string{"Quasar"}})), "\n")
	for _, want := range []string{
		"contracts/overview.md " + RuleSurface + "-code-name",
		"contracts/overview.md " + RuleSurface + "-repo-path",
		"contracts/choices.md " + RuleEncoding,
		"schemas/skills.json " + RuleJSON,
		"contracts/guides/operating.md " + RuleGuide,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// TestBuildRefusesUnknownSkillAction: a skill naming an action the
// enumeration lacks fails the build (CTX-04).
func TestBuildRefusesUnknownSkillAction(t *testing.T) {
	c, _ := schemas.Load()
	_, err := Build(Embedded(), c, []Skill{{Name: "x", Title: "X", Markdown: "# X\n", Actions: []string{"read_context", "publish_library_entry"}}})
	if !errors.Is(err, ErrUnknownAction) || !strings.Contains(err.Error(), "publish_library_entry") {
		t.Errorf("Build = %v, want ErrUnknownAction naming publish_library_entry", err)
	}
}

// TestDedupeOnCleanedPath: index rows naming one file in two spellings
// give one source entry, at the first row's place.
func TestDedupeOnCleanedPath(t *testing.T) {
	files, root := copySet(t)
	idxPath := filepath.Join(root, "schemas", "served_context.json")
	raw, _ := os.ReadFile(idxPath)
	s := strings.Replace(string(raw), `"sources": [`, `"sources": [
    {"subject": "x", "path": "./schemas/actions.json", "title": "First"},`, 1)
	if err := os.WriteFile(idxPath, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := schemas.Load()
	cat, err := Build(files, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, first := 0, -1
	for i, it := range cat.Items() {
		if it.ID == "source:schemas/actions.json" {
			n++
			if first < 0 {
				first = i
			}
			if it.Title != "First" {
				t.Errorf("the kept row is titled %q, want the first row's", it.Title)
			}
		}
	}
	if n != 1 || first != 4 {
		t.Errorf("source:schemas/actions.json listed %d times, first at %d; want once, at 4", n, first)
	}
}
