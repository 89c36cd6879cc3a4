package tzctx_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/turnzerocloud/tzctx"

// layerRules are the imports each layer may not make, as the package map
// of docs/development.md states them: imports run from the front ends down to the
// store, ingest writes through the store, and the leaves import no other
// package of the module. A package matches the longest rule prefix that
// names it.
var layerRules = []struct {
	pkg    string
	forbid []string
}{
	{"internal/leaf/", []string{""}}, // no package of the module at all
	{"store", []string{"query", "ingest", "internal/action", "internal/ops", "api", "mcp", "server", "internal/console", "cmd"}},
	{"query", []string{"ingest", "internal/action", "internal/ops", "api", "mcp", "server", "internal/console", "cmd"}},
	{"ingest", []string{"query", "internal/action", "internal/ops", "api", "mcp", "server", "internal/console", "cmd"}},
	{"internal/action/dispatch", []string{"internal/action/actions", "internal/action/plane", "query", "store", "ingest", "internal/ops", "api", "mcp", "server", "internal/console", "cmd"}},
	{"internal/action/", []string{"ingest", "api", "mcp", "server", "internal/console", "cmd"}},
	{"internal/ops/", []string{"internal/action", "query", "ingest", "api", "mcp", "server", "internal/console", "cmd"}}, // operations and actions are siblings: the call's vocabulary is the root package's
	{"api", []string{"internal/action/actions", "internal/action/plane", "query", "store", "ingest", "server", "cmd"}},
	{"mcp", []string{"internal/action/actions", "internal/action/plane", "query", "store", "ingest", "server", "cmd"}},
	{"internal/console", []string{""}},
	{"server", []string{"cmd"}},
	{"schemas", []string{""}},
	{"contracts", []string{""}},
}

// TestLayers holds every package's imports (test files aside) to the
// direction of the package map of docs/development.md, so a new arrow against it fails
// here, naming the file.
func TestLayers(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		rule := -1
		for i, r := range layerRules {
			if (dir == strings.TrimSuffix(r.pkg, "/") || strings.HasPrefix(dir+"/", r.pkg) || strings.HasPrefix(dir, r.pkg+"/")) &&
				(rule < 0 || len(r.pkg) > len(layerRules[rule].pkg)) {
				rule = i
			}
		}
		if rule < 0 {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			isolated := slices.Contains(layerRules[rule].forbid, "")
			if rel == "" && !isolated {
				continue // the root package's shared vocabulary
			}
			if isolated || slices.ContainsFunc(layerRules[rule].forbid, func(f string) bool {
				return rel == f || strings.HasPrefix(rel, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(rel, f))
			}) && !strings.HasPrefix(rel+"/", layerRules[rule].pkg) {
				t.Errorf("%s imports %s, against the layers of the package map in docs/development.md (rule for %s)", path, rel, layerRules[rule].pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked the imports of %d files; want the whole module's (over 100)", checked)
	}
}
