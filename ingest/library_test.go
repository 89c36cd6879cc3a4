package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// libraryCase writes a one-entry library, lets change break it, ingests
// it beside the sample's tzdocs tree and returns the refusal.
func libraryCase(t *testing.T, change func(lib string)) error {
	t.Helper()
	site, err := data.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "library")
	testkit.WriteFiles(t, lib, map[string]string{
		"library.json":        `[{"name": "kit", "version": "1.0.0", "kind": "package", "title": "Kit", "description": "A kit."}]`,
		"kit/README.md":       "# Kit\n\nA kit for Turn Zero Cloud.\n",
		"kit/src/client.ts":   "// The client.\nexport const x = 1;\n",
		"kit/data/codes.json": `{"a": 1}`,
	})
	change(lib)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = ingest.Run(context.Background(), st, ingest.Options{Trees: []ingest.TreeSource{{Name: "tzdocs", Dir: filepath.Join(site, "tzdocs")}}, Library: lib})
	return err
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLibraryAccepted: the well-formed library ingests.
func TestLibraryAccepted(t *testing.T) {
	t.Parallel()
	if err := libraryCase(t, func(string) {}); err != nil {
		t.Fatal(err)
	}
}

// TestLibraryHostile: each hostile library is refused within its bound,
// the refusal naming the row, folder or file and, for text, the line
//
func TestLibraryHostile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(lib string)
		want   []string
	}{
		{"row naming ../", func(lib string) {
			write(t, filepath.Join(lib, "library.json"), `[{"name": "../kit", "version": "1.0.0", "kind": "package", "title": "Kit", "description": "A kit."}]`)
		}, []string{"row 1", `"../kit"`, "never a path"}},
		{"row naming an absolute path", func(lib string) {
			write(t, filepath.Join(lib, "library.json"), `[{"name": "/etc", "version": "1.0.0", "kind": "package", "title": "Kit", "description": "A kit."}]`)
		}, []string{"row 1", `"/etc"`}},
		{"row naming no folder", func(lib string) {
			write(t, filepath.Join(lib, "library.json"), `[{"name": "kit", "version": "1.0.0", "kind": "package", "title": "Kit", "description": "A kit."}, {"name": "gone", "version": "1.0.0", "kind": "package", "title": "Gone", "description": "Gone."}]`)
		}, []string{"row 2", "names no folder library/gone/"}},
		{"folder with no row", func(lib string) {
			write(t, filepath.Join(lib, "extra", "a.md"), "# A\n")
		}, []string{"extra", "has no row"}},
		{"symlink out", func(lib string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(lib, "kit", "passwd.txt")); err != nil {
				t.Fatal(err)
			}
		}, []string{"passwd.txt", "outside"}},
		{"100,000 files", func(lib string) {
			dir := filepath.Join(lib, "kit", "many")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range 100_000 {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)))
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
		}, []string{"many", "more than 1000 files", "--max-library-files"}},
		{"1 GB file", func(lib string) {
			f, err := os.Create(filepath.Join(lib, "kit", "big.bin"))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(1 << 30); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, []string{"big.bin", "--max-library-file-bytes"}},
		{".json nested 100,000 deep", func(lib string) {
			write(t, filepath.Join(lib, "kit", "deep.json"), strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000))
		}, []string{"deep.json", "deeper than 64", "--max-library-json-depth"}},
		{"CTX-08 in a code comment", func(lib string) {
			write(t, filepath.Join(lib, "kit", "src", "client.ts"), "// The client.\n// Ported from internal/action/dispatch/dispatch.go.\nexport const x = 1;\n")
		}, []string{"client.ts", "line 2", "ctx-08-repo-path", "internal/action/dispatch/dispatch.go"}},
		{"version not semantic", func(lib string) {
			write(t, filepath.Join(lib, "library.json"), `[{"name": "kit", "version": "one", "kind": "package", "title": "Kit", "description": "A kit."}]`)
		}, []string{"row 1", "not a semantic version"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := libraryCase(t, c.change)
			if err == nil || !errors.Is(err, ingest.ErrLibrary) {
				t.Fatalf("ingest = %v, want a library refusal", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not name %q", err, w)
				}
			}
		})
	}
}

// TestLibraryFIFONeverOpened: a named pipe in an entry's folder is never
// opened, so ingest does not wait on it, and it is no file of the entry.
func TestLibraryFIFONeverOpened(t *testing.T) {
	t.Parallel()
	err := libraryCase(t, func(lib string) {
		if err := syscall.Mkfifo(filepath.Join(lib, "kit", "pipe.md"), 0o644); err != nil {
			t.Skip("no named pipes here:", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
