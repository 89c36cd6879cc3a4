package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// exported ingests the sample site as version one into a new data
// directory and exports it to a file, returning both.
func exported(t *testing.T) (data, file string) {
	t.Helper()
	data = t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "one", "--activate")
	file = filepath.Join(t.TempDir(), "one.tar.gz")
	r := mustCLI(t, data, "export", "one", file)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatalf("export wrote no %s: %v", file, err)
	}
	if want := fmt.Sprintf("exported one to %s (%d bytes)\n", file, fi.Size()); r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if _, err := os.Stat(file + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("export left %s.tmp: %v", file, err)
	}
	return data, file
}

func TestExportImport(t *testing.T) {
	_, file := exported(t)
	// A replica's data directory need not exist yet.
	replica := filepath.Join(t.TempDir(), "replica")
	if r := mustCLI(t, replica, "import", file); r.stdout != "imported one\n" {
		t.Errorf("import stdout = %q, want \"imported one\\n\"", r.stdout)
	}
	rows := parseVersions(t, mustCLI(t, replica, "versions").stdout)
	if len(rows) != 1 || rows[0].name != "one" || rows[0].state != "ok" || rows[0].active {
		t.Fatalf("replica versions = %+v, want one, ok, not active", rows)
	}
	if r := mustCLI(t, replica, "verify", "one"); !strings.HasPrefix(r.stdout, "one: ok") {
		t.Errorf("verify = %q", r.stdout)
	}
	// Again, with --activate: nothing is imported, and it is activated.
	r := mustCLI(t, replica, "import", file, "--activate")
	if want := "version one is present already; nothing imported; activated one\n"; r.stdout != want {
		t.Errorf("re-import stdout = %q, want %q", r.stdout, want)
	}
	if a := activeName(t, replica); a != "one" {
		t.Errorf("ACTIVE = %q, want one", a)
	}
	if n := dirNames(t, filepath.Join(replica, "staging")); len(n) != 0 {
		t.Errorf("staging holds %v", n)
	}

	// A fresh replica, imported and activated in one step.
	fresh := t.TempDir()
	if r := mustCLI(t, fresh, "import", file, "--activate"); r.stdout != "imported one; activated one\n" {
		t.Errorf("import --activate stdout = %q", r.stdout)
	}
	if a := activeName(t, fresh); a != "one" {
		t.Errorf("ACTIVE = %q, want one", a)
	}
}

// TestExportImportServes: the imported version serves what the exported
// one does, read over HTTP as a client reads it.
func TestExportImportServes(t *testing.T) {
	data, file := exported(t)
	replica := t.TempDir()
	mustCLI(t, replica, "import", file, "--activate")
	a := startServer(t, data, testConfig(time.Second))
	b := startServer(t, replica, testConfig(time.Second))
	for _, req := range []map[string]any{
		{"tree": "cloud", "part": "full", "limit": 16000},
		{"tree": "tzdocs", "part": "outline"},
		{"tree": "cloud"},
		{"page": "/cloud/reference/http/", "limit": 1500},
	} {
		ta, sa := readWhole(t, a.base, req)
		tb, sb := readWhole(t, b.base, req)
		if ta != tb || sa != sb {
			t.Errorf("read %v: the replica serves other text (stamp %s, source %s)", req, sb, sa)
		}
	}
	// Search, which reads the index, answers the same.
	q := map[string]any{"tree": "cloud", "query": "stamp offset"}
	if sa, sb := mustRead(t, a.base, q), mustRead(t, b.base, q); sa.Text != sb.Text || sa.Text == "" {
		t.Errorf("search %v: the replica answers %q, the source %q", q, sb.Text, sa.Text)
	}
}

func TestExportStdout(t *testing.T) {
	data, file := exported(t)
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := mustCLI(t, data, "export", "one", "-")
	if r.stdout != string(want) {
		t.Errorf("export to stdout wrote %d bytes, not the %d of the file export", len(r.stdout), len(want))
	}
	if wantErr := fmt.Sprintf("exported one to stdout (%d bytes)\n", len(want)); r.stderr != wantErr {
		t.Errorf("stderr = %q, want %q", r.stderr, wantErr)
	}
}

func TestExportRefused(t *testing.T) {
	data := t.TempDir()
	mustCLI(t, data, "ingest", testkit.SampleSite(t), "--version", "one", "--activate")
	dir := t.TempDir()
	file := filepath.Join(dir, "x.tar.gz")

	r := runCLI(t, data, "export", "absent", file)
	if r.err == nil || !strings.Contains(r.err.Error(), `"absent"`) || !strings.Contains(r.err.Error(), "'tzctx versions'") {
		t.Errorf("export of an absent version: %v", r.err)
	}
	if r := runCLI(t, data, "export", "one", filepath.Join(dir, "no-such-dir", "x.tar.gz")); r.err == nil {
		t.Error("export into a missing folder succeeded")
	}
	if r := runCLI(t, data, "export", "one"); r.err == nil {
		t.Error("export without a FILE succeeded")
	}

	// A damaged version is refused, named, and leaves no file.
	p := filepath.Join(data, "versions", "one", "aux.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, data, "export", "one", file)
	if r.err == nil || !strings.Contains(r.err.Error(), `version "one" is damaged`) || !strings.Contains(r.err.Error(), "aux.bin") {
		t.Errorf("export of a damaged version: %v", r.err)
	}
	if r.stdout != "" {
		t.Errorf("a refused export printed %q", r.stdout)
	}
	if n := dirNames(t, dir); len(n) != 0 {
		t.Errorf("a refused export left %v", n)
	}
}
