package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestExportFile: the archive lands whole at its name, the size answered
// is its size and its bytes are Export's; a failed export leaves neither
// the file nor its .tmp, and an existing file as it was.
func TestExportFile(t *testing.T) {
	st, name := sample(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "v.tar")
	n, err := st.ExportFile(t.Context(), name, file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) != n || !bytes.Equal(got, export(t, st, name)) {
		t.Errorf("exported %d bytes, answered %d; equal to Export: %v", len(got), n, bytes.Equal(got, export(t, st, name)))
	}
	var b bytes.Buffer
	if m, err := st.ExportTo(t.Context(), name, &b); err != nil || m != n {
		t.Errorf("ExportTo: %d bytes, %v; want %d", m, err, n)
	}
	if _, err := st.ExportFile(t.Context(), "absent", file); err == nil {
		t.Fatal("exporting an absent version succeeded")
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, got) {
		t.Error("a failed export changed the file already there")
	}
	if _, err := os.Stat(file + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s.tmp (%v)", file, err)
	}
	other := filepath.Join(dir, "none.tar")
	if _, err := st.ExportFile(t.Context(), "absent", other); err == nil {
		t.Fatal("exporting an absent version succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed export left files: %v", ents)
	}
}
