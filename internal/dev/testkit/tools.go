package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The tools `make test` installs (.ci/tools) are found through these
// variables; each names the installed copy.
const (
	// VersityGWEnv names the versitygw binary.
	VersityGWEnv = "TZCTX_VERSITYGW"
	// TSSDKModulesEnv names the node_modules folder of mcp/testdata/ts.
	TSSDKModulesEnv = "TZCTX_TS_SDK_MODULES"
	// ConsoleE2EModulesEnv names the node_modules folder of
	// internal/console/e2e.
	ConsoleE2EModulesEnv = "TZCTX_CONSOLE_E2E_MODULES"
	// toolsFailedEnv holds what .ci/tools could not install, and why.
	toolsFailedEnv = "TZCTX_TOOLS_FAILED"
)

// installHint is what a skip says about installing a tool: make test
// installs it, and where it tried and failed, what failed.
func installHint() string {
	if f := os.Getenv(toolsFailedEnv); f != "" {
		return "make test tried to install it and failed: " + f
	}
	return "make test installs it (.ci/tools)"
}

// VersityGW returns the path of versitygw, the S3 server of the S3
// tests: the binary TZCTX_VERSITYGW names, else versitygw on PATH. The
// error says why there is none and how to get it.
func VersityGW() (string, error) {
	if bin := os.Getenv(VersityGWEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s names %s, which is absent: %w", VersityGWEnv, bin, err)
		}
		return bin, nil
	}
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		return "", fmt.Errorf("versitygw, the S3 server this test runs, is absent: %s; or go install github.com/versity/versitygw/cmd/versitygw@v1.8.0 and name it in %s", installHint(), VersityGWEnv)
	}
	return bin, nil
}

// NodePackage finds node and the installed dependencies of the npm
// package in dir, the checkout's folder (relative to the module's root)
// holding a test's scripts, package.json and package-lock.json. The
// dependencies are the node_modules folder the variable env names (where
// make test installed them, outside the checkout), else dir/node_modules
// (npm ci run in place); each of modules must be in it. It returns node's
// path and the folder to run the scripts in: dir itself, or, where the
// dependencies are outside it, a temporary folder holding a copy of
// dir's files and a link to them, since node finds an import's package
// only in a node_modules folder beside or above the script. The error
// says what is missing and how to get it.
func NodePackage(tb testing.TB, dir, env string, modules ...string) (node, runDir string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("node is absent (apt-get install nodejs npm): %w", err)
	}
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(self), "..", "..", "..", filepath.FromSlash(dir))
	mods := os.Getenv(env)
	if mods == "" {
		mods = filepath.Join(src, "node_modules")
	}
	for _, m := range modules {
		if _, err := os.Stat(filepath.Join(mods, filepath.FromSlash(m), "package.json")); err != nil {
			return "", "", fmt.Errorf("the npm package %s is not installed in %s: %s; or run npm ci in %s: %w", m, mods, installHint(), dir, err)
		}
	}
	if mods == filepath.Join(src, "node_modules") {
		return node, src, nil
	}
	runDir = tb.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(runDir, e.Name()), b, 0o644); err != nil {
			return "", "", err
		}
	}
	if err := os.Symlink(mods, filepath.Join(runDir, "node_modules")); err != nil {
		return "", "", fmt.Errorf("linking the installed packages: %w", err)
	}
	return node, runDir, nil
}

// TSSDK returns node and the folder to run mcp/testdata/ts's scripts in,
// with the official TypeScript SDK installed (make test installs it where
// node is present). Where either is absent the test skips, saying why,
// except under CI, which runs every test.
func TSSDK(tb testing.TB) (node, dir string) {
	tb.Helper()
	node, dir, err := NodePackage(tb, "mcp/testdata/ts", TSSDKModulesEnv, "@modelcontextprotocol/sdk")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI runs every test, but %v", err)
		}
		tb.Skip(err)
	}
	return node, dir
}
