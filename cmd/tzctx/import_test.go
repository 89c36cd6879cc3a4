package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/testkit"
)

// runCLIIn runs tzctx --data dataDir ARGS... in process with stdin.
func runCLIIn(t *testing.T, dataDir string, stdin []byte, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetIn(bytes.NewReader(stdin))
	root.SetArgs(append([]string{"--data", dataDir}, args...))
	err := root.Execute()
	return cliResult{stdout: out.String(), stderr: errb.String(), err: err}
}

// TestImportStdin: export to stdout piped into import from stdin.
func TestImportStdin(t *testing.T) {
	data, _ := exported(t)
	arch := mustCLI(t, data, "export", "one", "-").stdout
	replica := t.TempDir()
	r := runCLIIn(t, replica, []byte(arch), "import", "-", "--activate")
	if r.err != nil || r.stdout != "imported one; activated one\n" {
		t.Fatalf("import - = %q, %v", r.stdout, r.err)
	}
	if a := activeName(t, replica); a != "one" {
		t.Errorf("ACTIVE = %q, want one", a)
	}
	// Stdin cut short is refused, naming stdin.
	other := t.TempDir()
	r = runCLIIn(t, other, []byte(arch[:len(arch)/2]), "import", "-")
	if r.err == nil || !strings.Contains(r.err.Error(), "import stdin: archive refused") || !strings.Contains(r.err.Error(), "truncated") {
		t.Errorf("import of half an archive from stdin: %v", r.err)
	}
}

// TestImportRefused: a damaged, truncated or foreign file exits non-zero
// with a message saying what is wrong and what to do, and leaves the data
// directory as it was.
func TestImportRefused(t *testing.T) {
	_, file := exported(t)
	arch, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := bytes.Clone(arch)
	flipped[len(flipped)*2/3] ^= 0x10
	replica := t.TempDir()
	mustCLI(t, replica, "ingest", "--tree", "cloud="+filepath.Join(testkit.SampleSite(t), "cloud"), "--version", "other", "--activate")
	for _, c := range []struct {
		name string
		file string
		want []string
	}{
		{"truncated", write("cut.tar.gz", arch[:len(arch)-100]), []string{"archive refused", "truncated", "export the version again"}},
		{"flipped byte", write("flipped.tar.gz", flipped), []string{"archive refused", "nothing was imported"}},
		{"not an archive", write("notes.txt", []byte("hello\n")), []string{"not gzip-compressed", "'tzctx export'"}},
		{"empty", write("empty.tar.gz", nil), []string{"empty"}},
		{"missing", filepath.Join(dir, "absent.tar.gz"), []string{"absent.tar.gz", "no such file"}},
	} {
		r := runCLI(t, replica, "import", c.file, "--activate")
		if r.err == nil {
			t.Errorf("%s: import succeeded: %q", c.name, r.stdout)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, r.err, w)
			}
		}
		if r.stdout != "" {
			t.Errorf("%s: a refused import printed %q", c.name, r.stdout)
		}
		rows := parseVersions(t, mustCLI(t, replica, "versions").stdout)
		if len(rows) != 1 || rows[0].name != "other" || !rows[0].active {
			t.Errorf("%s: versions after a refused import: %+v", c.name, rows)
		}
		if n := dirNames(t, filepath.Join(replica, "staging")); len(n) != 0 {
			t.Errorf("%s: staging holds %v", c.name, n)
		}
	}
	if r := runCLI(t, replica, "import"); r.err == nil {
		t.Error("import without a FILE succeeded")
	}
}

// TestImportConflict: the archive's name taken by other content is
// refused, naming the conflict and the fix.
func TestImportConflict(t *testing.T) {
	_, file := exported(t)
	replica := t.TempDir()
	mustCLI(t, replica, "ingest", "--tree", "cloud="+filepath.Join(testkit.SampleSite(t), "cloud"), "--version", "one")
	before := parseVersions(t, mustCLI(t, replica, "versions").stdout)
	r := runCLI(t, replica, "import", file)
	if r.err == nil {
		t.Fatalf("import over another version one succeeded: %q", r.stdout)
	}
	for _, w := range []string{`version "one" is present already with other content`, "tzctx delete one"} {
		if !strings.Contains(r.err.Error(), w) {
			t.Errorf("error %q does not say %q", r.err, w)
		}
	}
	after := parseVersions(t, mustCLI(t, replica, "versions").stdout)
	if len(after) != 1 || after[0] != before[0] {
		t.Errorf("versions changed: %+v, was %+v", after, before)
	}
	// The fix the message gives works.
	mustCLI(t, replica, "delete", "one")
	if r := mustCLI(t, replica, "import", file); r.stdout != "imported one\n" {
		t.Errorf("import after delete: %q", r.stdout)
	}
}
