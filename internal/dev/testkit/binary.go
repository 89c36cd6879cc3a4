package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// binary is the tzctx command built once per test process.
var binary struct {
	once sync.Once
	dir  string // the temporary folder holding it, removed by RemoveBinary
	path string
	err  error
	skip bool // no go command: the tests that need the binary skip
}

// Binary returns the path of cmd/tzctx built once for the test process,
// without the race detector (the child is the thing run, the test process
// the one checked for races); every test of the process shares it. A test
// package that calls it removes the folder with RemoveBinary in its
// TestMain. Where no go command is found the test skips, saying so.
func Binary(t testing.TB) string {
	t.Helper()
	binary.once.Do(buildBinary)
	if binary.skip {
		t.Skip(binary.err)
	}
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// RemoveBinary removes the folder of the binary Binary built, if any; call
// it from TestMain after m.Run.
func RemoveBinary() {
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
}

// buildBinary builds github.com/turnzerocloud/tzctx/cmd/tzctx into a new
// temporary folder, recording the outcome in binary.
func buildBinary() {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = ""
		if root := os.Getenv("GOROOT"); root != "" {
			goBin = filepath.Join(root, "bin", "go")
		}
		if _, serr := os.Stat(goBin); goBin == "" || serr != nil {
			binary.skip, binary.err = true, fmt.Errorf("no go command to build tzctx with: %v", err)
			return
		}
	}
	if binary.dir, binary.err = os.MkdirTemp("", "tzctx-test-bin-"); binary.err != nil {
		return
	}
	binary.path = filepath.Join(binary.dir, "tzctx")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, "build", "-o", binary.path, "github.com/turnzerocloud/tzctx/cmd/tzctx").CombinedOutput()
	if err != nil {
		binary.err = fmt.Errorf("go build: %v\n%s", err, out)
	}
}
