package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PutSources records the folder each tree of the version was read from,
// by tree name. The record stays beside the version on this machine: it is
// not part of the version's content, nor of an archive of it.
func (b *Builder) PutSources(folders map[string]string) {
	b.sources = folders
}

// sourcesPath is where the record of version name's folders lies.
func (s *Store) sourcesPath(name string) string {
	return filepath.Join(s.dir, sourcesDir, name+".json")
}

// putSources writes the record of version name's folders, or removes a
// stale one where there are none to record.
func (s *Store) putSources(name string, folders map[string]string) error {
	p := s.sourcesPath(name)
	if len(folders) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	raw, err := json.MarshalIndent(folders, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(p, raw)
}

// Sources returns the folder each tree of the version name was read from,
// by tree name: none where the version records none (built before the
// record was kept, or brought by an archive or a follower).
func (s *Store) Sources(name string) (map[string]string, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(s.sourcesPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out map[string]string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("version %s: the record of its folders is unreadable: %w", name, err)
	}
	return out, nil
}
