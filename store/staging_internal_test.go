package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCleanStagingTakesAnEmptyFolderAtOnce: a builder killed between
// making its staging folder and locking it leaves an empty folder, which
// the next build's clean removes at once (the kill harness's "staging
// holds build-… after the next run"); a folder holding files but no lock
// keeps its minute; a locked folder is never taken.
func TestCleanStagingTakesAnEmptyFolderAtOnce(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(s.dir, stagingDir)
	empty := filepath.Join(root, "build-killed")
	young := filepath.Join(root, "build-young")
	for _, d := range []string{empty, young} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(young, "texts.bin"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	live, lock, err := s.newStaging("build")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	s.cleanStaging()
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("an empty staging folder without a lock is still there after a clean: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a folder holding files without a lock went before its minute: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live builder's locked folder was taken: %v", err)
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(young, old, old); err != nil {
		t.Fatal(err)
	}
	s.cleanStaging()
	if _, err := os.Stat(young); !os.IsNotExist(err) {
		t.Errorf("a folder without a lock older than a minute is still there: %v", err)
	}
}
