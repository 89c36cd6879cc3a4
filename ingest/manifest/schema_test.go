package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
)

// TestSchemaAgreesWithWalker holds the manifest schema and the walker to
// one reading of docs.json: every refusal of a value's shape that the
// walker tests feed the walker is a refusal of the schema too, naming the
// same file; and the manifests of the real corpora and of the sample site,
// with every $ref file, are accepted by both.
func TestSchemaAgreesWithWalker(t *testing.T) {
	t.Run("refused by both", func(t *testing.T) {
		n := 0
		for _, tt := range walkErrorCases {
			if !tt.schema {
				continue
			}
			n++
			t.Run(tt.name, func(t *testing.T) {
				data, ok := tt.files[filepath.ToSlash(filepath.Join(tt.site, tt.file))]
				if !ok {
					t.Fatalf("the case holds no file %s", tt.file)
				}
				err := manifest.CheckSchema(tt.file, []byte(data))
				if err == nil {
					t.Fatalf("the walker refuses %s (%s) but the schema accepts it", tt.file, tt.msg)
				}
				t.Log(err)
				if whole := manifest.CheckSchemaWhole(tt.file, []byte(data)); whole == nil {
					t.Errorf("CheckSchema refuses %s but the whole-value validation accepts it", tt.file)
				}
				var me *manifest.Error
				if !errors.As(err, &me) || !errors.Is(err, manifest.ErrSchema) {
					t.Fatalf("schema error %v (%T) is not a *manifest.Error wrapping ErrSchema", err, err)
				}
				if me.File != tt.file || me.Problem == "" || me.Fix != "see the manifest_schema entry of the catalog" {
					t.Errorf("schema error %+v: want file %s, a problem and the catalog fix", me, tt.file)
				}
			})
		}
		if n < 10 {
			t.Fatalf("only %d walker cases are marked as shape refusals", n)
		}
	})
	t.Run("accepted by both", func(t *testing.T) {
		_, file, _, _ := runtime.Caller(0)
		sample, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "data", "site", "*", "docs.json"))
		if len(sample) == 0 {
			t.Fatal("no sample site manifest found under data/site")
		}
		var dirs []string
		for _, m := range sample {
			dirs = append(dirs, filepath.Dir(m))
		}
		checkBoth(t, dirs)
		corpora := corporaDir(t)
		dirs = nil
		for _, c := range []string{"browser-use-docs", "mcp-docs", "mintlify-docs", "powershell-docs"} {
			dirs = append(dirs, filepath.Join(corpora, c))
		}
		checkBoth(t, dirs)
	})
}

// checkBoth walks each folder's manifest and holds every file the walk
// read to the schema.
func checkBoth(t *testing.T, dirs []string) {
	t.Helper()
	for _, dir := range dirs {
		res, err := manifest.Walk(dir)
		if err != nil {
			t.Errorf("%s: walk: %v", dir, err)
			continue
		}
		for _, f := range res.Files {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			if err := manifest.CheckSchema(f, data); err != nil {
				t.Errorf("%s: the walker accepts %s but the schema refuses it: %v", dir, f, err)
			}
		}
	}
}

// TestSchemaRefusals checks what a manifest the walker accepts and the
// schema refuses gives: the file, the JSON pointer of the value and what
// the schema expects there, after every error of the walker's own.
func TestSchemaRefusals(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		file    string
		pointer string
		want    string
	}{
		{
			name:    "name that is not a string",
			files:   map[string]string{"docs.json": `{"name":5,"navigation":{"pages":["a"]}}`, "a.mdx": "# A\n"},
			file:    "docs.json",
			pointer: "/name",
			want:    "the manifest schema expects a value of type string, not a number here",
		},
		{
			name: "a walker error in a $ref file comes before the schema's",
			files: map[string]string{
				"docs.json": `{"navigation":{"groups":[{"$ref":"g.json"}]}}`,
				"g.json":    `{"group":"G","pages":["a"],"root":"b","tabs":[{"tab":"T","pages":["c",{"pages":[false]}]}]}`,
			},
			file:    "g.json",
			pointer: "/tabs/0/pages/1/pages/0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSite(t, t.TempDir(), tt.files)
			_, err := manifest.Walk(dir)
			if err == nil {
				t.Fatal("Walk accepted the manifest")
			}
			var me *manifest.Error
			if !errors.As(err, &me) {
				t.Fatalf("error %T is not a *manifest.Error: %v", err, err)
			}
			if me.File != tt.file || me.Pointer != tt.pointer {
				t.Errorf("error at %s %s, want %s %s: %v", me.File, me.Pointer, tt.file, tt.pointer, err)
			}
			if tt.want != "" && me.Problem != tt.want {
				t.Errorf("problem %q, want %q", me.Problem, tt.want)
			}
			if tt.want != "" && !errors.Is(err, manifest.ErrSchema) {
				t.Errorf("error %v does not wrap ErrSchema", err)
			}
			if tt.want != "" {
				if whole := manifest.CheckSchemaWhole(tt.file, []byte(tt.files[tt.file])); whole == nil {
					t.Errorf("CheckSchema refuses %s but the whole-value validation accepts it", tt.file)
				}
			}
			if !strings.Contains(err.Error(), tt.file) {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}
