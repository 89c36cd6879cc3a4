package jslit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// folder writes files (path → content) into a new folder and opens it
// through the folder reader.
func folder(t *testing.T, files map[string]string) *sitefs.Folder {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := sitefs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return dir
}
