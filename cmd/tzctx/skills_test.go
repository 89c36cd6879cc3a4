package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/action/skills"
	"github.com/turnzerocloud/tzctx/schemas"
)

// skillSets returns the names of the skills this build generates, split
// into those whose every action the default dispatcher registers and the
// rest.
func skillSets(t *testing.T) (live, notLive []string) {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	ss, err := skills.Generate(c)
	if err != nil {
		t.Fatal(err)
	}
	names, err := plane.Registered()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		all := true
		for _, a := range s.Actions {
			all = all && slices.Contains(names, a)
		}
		if all {
			live = append(live, s.Name)
		} else {
			notLive = append(notLive, s.Name)
		}
	}
	return live, notLive
}

// readSkillDir parses every DIR/<name>/SKILL.md as an agent client does:
// its front matter must name the folder and hold a description.
func readSkillDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		if !e.IsDir() {
			t.Errorf("%s is not a skill folder", e.Name())
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "SKILL.md"))
		if err != nil {
			t.Error(err)
			continue
		}
		rest, ok := strings.CutPrefix(string(raw), "---\n")
		block, _, ok2 := strings.Cut(rest, "\n---\n")
		if !ok || !ok2 {
			t.Errorf("%s/SKILL.md opens with no front matter", e.Name())
			continue
		}
		var fm struct {
			Name        string `yaml:"name"`
			Description string `yaml:"description"`
		}
		if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
			t.Errorf("%s/SKILL.md: front matter: %v", e.Name(), err)
			continue
		}
		if fm.Name != e.Name() || fm.Description == "" || len(fm.Description) > 1024 {
			t.Errorf("%s/SKILL.md: front matter name %q, description %q", e.Name(), fm.Name, fm.Description)
		}
		got = append(got, fm.Name)
	}
	slices.Sort(got)
	return got
}

// TestSkillsExport drives tzctx skills export: the live skills are
// written, each a folder whose SKILL.md an agent client parses; a second
// export into the now non-empty folder is refused; --force --all writes
// every skill, replaces an edited one and leaves a foreign folder alone.
func TestSkillsExport(t *testing.T) {
	live, notLive := skillSets(t)
	if len(live) == 0 {
		t.Fatal("no skill is live in this build")
	}
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "skills")
	r := mustCLI(t, data, "skills", "export", dir)
	want := slices.Sorted(slices.Values(live))
	if got := readSkillDir(t, dir); !slices.Equal(got, want) {
		t.Errorf("exported %v, want the live skills %v", got, want)
	}
	for _, name := range notLive {
		if !strings.Contains(r.stdout, name+" is not live in this build") {
			t.Errorf("the output does not say %s is not live:\n%s", name, r.stdout)
		}
	}

	r = runCLI(t, data, "skills", "export", dir)
	if !errors.Is(r.err, skills.ErrDirNotEmpty) || !strings.Contains(r.err.Error(), "--force") {
		t.Errorf("a second export into a non-empty folder: %v, want a refusal naming --force", r.err)
	}

	foreign := filepath.Join(dir, "someone-elses", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foreign, []byte("---\nname: someone-elses\ndescription: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, live[0], "SKILL.md")
	fresh, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, live[0], "leftover.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, data, "skills", "export", "--force", "--all", dir)
	want = slices.Sorted(slices.Values(append(append([]string{"someone-elses"}, live...), notLive...)))
	if got := readSkillDir(t, dir); !slices.Equal(got, want) {
		t.Errorf("after --force --all: %v, want %v", got, want)
	}
	if b, err := os.ReadFile(edited); err != nil || string(b) != string(fresh) {
		t.Errorf("the edited SKILL.md was not replaced: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, live[0], "leftover.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced folder kept a file of the old one: %v", err)
	}
	if b, err := os.ReadFile(foreign); err != nil || !strings.Contains(string(b), "someone-elses") {
		t.Errorf("the foreign skill was touched: %q, %v", b, err)
	}
	if r := runCLI(t, data, "skills", "export"); r.err == nil {
		t.Error("skills export with no DIR succeeded")
	}
}
