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

// Sources returns the folder each tree of the version name was read from,
// by tree name: none where the version records none (built before the
// record was kept, or brought by an archive or a follower).
func (s *Store) Sources(name string) (map[string]string, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(s.versionDir(name), sourcesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out map[string]string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("version %s: %s is unreadable: %w", name, sourcesFile, err)
	}
	return out, nil
}
