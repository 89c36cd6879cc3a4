package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrDirNotEmpty is the error, in the chain of Export's, of a folder that
// holds entries where Export was not told to write beside them.
var ErrDirNotEmpty = errors.New("the folder holds other entries")

// SkillFile is the name of a skill's main file in its folder.
const SkillFile = "SKILL.md"

// Export writes each skill into dir as an agent client installs it: a
// folder named for the skill holding its SKILL.md and a <part>.md file
// per part. dir must be absent or empty unless force is set; with force,
// each skill's folder is replaced and every other entry of dir is left
// as it is. A skill's folder is built beside its place and renamed into
// it, so no reader sees a half-written one.
// Export returns the paths of the files it wrote.
func Export(dir string, ss []Skill, force bool) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(ents) > 0 && !force {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return nil, fmt.Errorf("%s: %w (%s): export into an empty folder, or give --force to replace the skills' folders and leave the rest", dir, ErrDirNotEmpty, strings.Join(names, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, s := range ss {
		files, err := exportOne(dir, s)
		if err != nil {
			return written, fmt.Errorf("export skill %s: %w", s.Name, err)
		}
		written = append(written, files...)
	}
	return written, nil
}

// exportOne writes one skill's folder through a temporary folder renamed
// into place.
func exportOne(dir string, s Skill) ([]string, error) {
	tmp, err := os.MkdirTemp(dir, "."+s.Name+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	files := []struct{ name, text string }{{SkillFile, s.Markdown}}
	for _, p := range s.Parts {
		if p.Name == "" || strings.ContainsAny(p.Name, `/\`) || p.Name+".md" == SkillFile {
			return nil, fmt.Errorf("part %q cannot be a file name", p.Name)
		}
		files = append(files, struct{ name, text string }{p.Name + ".md", p.Markdown})
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	final := filepath.Join(dir, s.Name)
	if _, err := os.Lstat(final); err == nil {
		old, err := os.MkdirTemp(dir, "."+s.Name+".old-")
		if err != nil {
			return nil, err
		}
		aside := filepath.Join(old, s.Name)
		if err := os.Rename(final, aside); err != nil {
			os.Remove(old)
			return nil, err
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		out = append(out, filepath.Join(final, f.name))
	}
	return out, nil
}
