package query

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStoreSeam keeps the store seam: of the package's own files, only
// store.go, the adapter, imports package store, so the reader reads a
// version through the interfaces of reader.go alone.
func TestStoreSeam(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		seen++
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range pf.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path == "github.com/turnzerocloud/tzctx/store" && f != "store.go" {
				t.Errorf("%s imports package store; read the version through Versions, Version, Tree and Text, and adapt the store in store.go", f)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no source files found")
	}
}
