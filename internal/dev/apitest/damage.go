package apitest

import (
	"os"
	"path/filepath"
	"testing"
)

// DamageFile inverts one byte in the middle of a version's file.
func DamageFile(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// PointAt writes the ACTIVE pointer by hand, as an older tzctx, a restore
// from backup or an editor could: the activate command refuses a damaged
// version.
func PointAt(t *testing.T, data, version string) {
	t.Helper()
	tmp := filepath.Join(data, "ACTIVE.hand")
	if err := os.WriteFile(tmp, []byte(version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(data, "ACTIVE")); err != nil {
		t.Fatal(err)
	}
}
