package skills_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/skills"
)

// TestExportWritesParts: a skill's parts are written beside its SKILL.md
// as <part>.md, and a part name that is no plain file name is refused
// without touching the skill's folder.
func TestExportWritesParts(t *testing.T) {
	dir := t.TempDir()
	s := skills.Skill{Name: "paged", Markdown: "---\nname: paged\n---\n", Parts: []skills.Part{{Name: "details", Markdown: "# Details\n"}}}
	files, err := skills.Export(dir, []skills.Skill{s}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Errorf("wrote %v", files)
	}
	for name, want := range map[string]string{"SKILL.md": s.Markdown, "details.md": "# Details\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, "paged", name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	for _, bad := range []string{"", "../x", "SKILL"} {
		s.Parts = []skills.Part{{Name: bad, Markdown: "x"}}
		if _, err := skills.Export(dir, []skills.Skill{s}, true); err == nil {
			t.Errorf("part name %q was accepted", bad)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "paged", "details.md")); err != nil || string(b) != "# Details\n" {
		t.Errorf("a refused export changed the folder: %q, %v", b, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary folders left behind: %v", ents)
	}
	if _, err := skills.Export(dir, []skills.Skill{s}, false); !errors.Is(err, skills.ErrDirNotEmpty) {
		t.Errorf("export into a non-empty folder without force: %v", err)
	}
}
