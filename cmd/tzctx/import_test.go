package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
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
	flipped := damaged(t, arch)
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

// TestImportRefusedIntoANewDataDirectory: a refused import into a data
// directory that does not exist yet, or exists empty, leaves it as it was:
// no data directory, no parent folder, no staging/ or versions/.
func TestImportRefusedIntoANewDataDirectory(t *testing.T) {
	_, file := exported(t)
	arch, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	if err := os.WriteFile(cut, arch[:len(arch)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	for _, data := range []string{filepath.Join(parent, "data"), filepath.Join(parent, "a", "b", "data")} {
		if r := runCLI(t, data, "import", cut); r.err == nil || !strings.Contains(r.err.Error(), "truncated") {
			t.Fatalf("import of a truncated archive into %s: %v", data, r.err)
		}
		if names := dirNames(t, parent); len(names) != 0 {
			t.Errorf("a refused import into %s left %v in its parent", data, names)
		}
	}
	empty := t.TempDir()
	if r := runCLI(t, empty, "import", cut); r.err == nil {
		t.Fatal("import of a truncated archive succeeded")
	}
	if names := dirNames(t, empty); len(names) != 0 {
		t.Errorf("a refused import into an empty data directory left %v", names)
	}
	// An import that succeeds lays the directory out, and a later refusal
	// removes nothing.
	data := filepath.Join(parent, "data")
	mustCLI(t, data, "import", file)
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, data, "import", notes); r.err == nil {
		t.Fatal("import of a text file succeeded")
	}
	if rows := parseVersions(t, mustCLI(t, data, "versions").stdout); len(rows) != 1 {
		t.Errorf("versions after a refused import: %+v", rows)
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

// TestKillImport: an import killed part way leaves only its staging
// folder, which the next import removes; one stopped with SIGTERM while
// its input stalls ends at once and leaves nothing.
func TestKillImport(t *testing.T) {
	tier.Long(t, "kills tzctx import child processes")
	bin := buildBinary(t)
	_, file := exported(t)
	arch, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			data := t.TempDir()
			staging := filepath.Join(data, "staging")
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			p := startProcIn(t, bin, []string{"TZCTX_DATA="}, pr, "--data", data, "import", "-")
			pr.Close()
			// Half the archive, then the input stalls.
			go func() { _, _ = pw.Write(arch[:len(arch)/2]) }()
			var staged string
			if !waitFor(60*time.Second, func() bool {
				for _, n := range dirNames(t, staging) {
					if strings.HasPrefix(n, "import-") && slices.Contains(dirNames(t, filepath.Join(staging, n)), "meta.json") {
						staged = n
						return true
					}
				}
				select {
				case <-p.exited:
					return true
				default:
					return false
				}
			}) || staged == "" {
				t.Fatalf("the import wrote no staging folder with meta.json\nstderr:\n%s", p.stderr.String())
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := p.wait(t, 10*time.Second); err == nil {
				t.Fatalf("an import stopped by %v succeeded: %s", sig, p.stdout.String())
			}
			left := dirNames(t, staging)
			if sig == syscall.SIGKILL {
				if len(left) != 1 || left[0] != staged {
					t.Errorf("staging after SIGKILL holds %v, want %s", left, staged)
				}
			} else {
				if len(left) != 0 {
					t.Errorf("staging after SIGTERM holds %v", left)
				}
				if !strings.Contains(p.stderr.String(), "interrupted; nothing was imported") {
					t.Errorf("stderr after SIGTERM: %q", p.stderr.String())
				}
			}
			if n := dirNames(t, filepath.Join(data, "versions")); len(n) != 0 {
				t.Errorf("versions holds %v", n)
			}
			// The next import takes what is left away, and imports.
			if r := mustCLI(t, data, "import", file); r.stdout != "imported one\n" {
				t.Errorf("import after the stop: %q", r.stdout)
			}
			if n := dirNames(t, staging); len(n) != 0 {
				t.Errorf("staging holds %v after the next import", n)
			}
		})
	}
}

// TestImportVersionBound: tzctx import --config FILE refuses a version
// over the file's max_version_bytes from the archive's manifest, naming
// the total, the bound and the member to raise, and stores nothing; the
// same archive imports under a bound it fits; a bound that is not
// positive is refused at start, naming the member.
func TestImportVersionBound(t *testing.T) {
	_, file := exported(t)
	cfgFile := func(body string) string {
		p := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replica := t.TempDir()
	r := runCLI(t, replica, "import", file, "--config", cfgFile(`{"max_version_bytes": 1000}`))
	if r.err == nil {
		t.Fatalf("an import over max_version_bytes succeeded: %q", r.stdout)
	}
	for _, w := range []string{"archive refused", "bytes of files", "over the bound of 1000 bytes", "raise max_version_bytes", "nothing was imported"} {
		if !strings.Contains(r.err.Error(), w) {
			t.Errorf("refusal %q does not say %q", r.err, w)
		}
	}
	if n := dirNames(t, filepath.Join(replica, "staging")); len(n) != 0 {
		t.Errorf("staging holds %v after the refusal", n)
	}
	if n := dirNames(t, filepath.Join(replica, "versions")); len(n) != 0 {
		t.Errorf("versions holds %v after the refusal", n)
	}
	if r := runCLI(t, replica, "import", file, "--config", cfgFile(`{"max_version_bytes": 1073741824}`)); r.err != nil || r.stdout != "imported one\n" {
		t.Errorf("import under a 1 GiB bound = %q, %v", r.stdout, r.err)
	}
	for _, bad := range []string{`{"max_version_bytes": 0}`, `{"max_version_bytes": -5}`} {
		if r := runCLI(t, t.TempDir(), "import", file, "--config", cfgFile(bad)); r.err == nil || !strings.Contains(r.err.Error(), "max_version_bytes") {
			t.Errorf("config %s: %v, want a refusal naming max_version_bytes", bad, r.err)
		}
	}
}

// damaged returns arch with one bit flipped at the first place from two
// thirds in where the flip damages it: where the gzip stream then fails to
// decode, or decodes to other bytes. A flip can land on bits the stream
// ignores (a stored block's padding), which leaves the archive whole; such
// a flip is no damage, and importing it is right, so it is passed over.
func damaged(t *testing.T, arch []byte) []byte {
	t.Helper()
	want, err := gunzip(arch)
	if err != nil {
		t.Fatalf("the exported archive does not decode: %v", err)
	}
	for i := len(arch) * 2 / 3; i < len(arch); i++ {
		b := bytes.Clone(arch)
		b[i] ^= 0x10
		if got, err := gunzip(b); err != nil || !bytes.Equal(got, want) {
			return b
		}
	}
	t.Fatal("no flip from two thirds in damages the archive")
	return nil
}

// gunzip decodes a whole gzip stream, its checksum included.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
