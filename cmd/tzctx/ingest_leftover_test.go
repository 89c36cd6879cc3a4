package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
)

// noFolder checks that a data directory a failed ingest was given, which
// did not exist before, does not exist after.
func noFolder(t *testing.T, data string, p *proc) {
	t.Helper()
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		var left []string
		_ = filepath.Walk(data, func(path string, _ os.FileInfo, _ error) error {
			left = append(left, path)
			return nil
		})
		t.Errorf("the failed ingest left %v\nstderr:\n%s", left, p.stderr.String())
	}
}

// TestIngestLeavesNoFolder: an ingest into a data directory that does not
// exist leaves no folder behind on any failure the process lives to
// handle: a reader's refusal, a bound refused while the pages are read,
// SIGTERM or SIGINT while it writes, a write fault. What a SIGKILL leaves
// the next run clears, even a run that fails before it builds. An empty
// staging/ (and versions/) folder was once left by every such failure.
func TestIngestLeavesNoFolder(t *testing.T) {
	tier.Long(t, "runs tzctx ingest child processes")
	bin := buildBinary(t)
	env := []string{"TZCTX_DATA="}
	big := filepath.Join(t.TempDir(), "big")
	genSite(t, big, 3000)
	long := filepath.Join(t.TempDir(), "long")
	testkit.WriteFiles(t, long, map[string]string{
		"llms.txt": "# Long\n\n- [x](" + strings.Repeat("a/", 3000) + "b)\n- [Home](index.md)\n",
		"index.md": "# Home\n",
	})
	broken := filepath.Join(t.TempDir(), "broken")
	testkit.WriteFiles(t, broken, map[string]string{"docs.json": `{"navigation":`, "index.mdx": "# Home\n"})
	fresh := func(t *testing.T) string { return filepath.Join(t.TempDir(), "data") }

	t.Run("reader refusal", func(t *testing.T) {
		data := fresh(t)
		p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+broken)
		if err := p.wait(t, time.Minute); err == nil || !strings.Contains(p.stderr.String(), "docs.json") {
			t.Fatalf("ingest = %v, want the manifest refused\nstderr:\n%s", err, p.stderr.String())
		}
		noFolder(t, data, p)
	})
	t.Run("path bound refused", func(t *testing.T) {
		data := fresh(t)
		p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+long)
		if err := p.wait(t, time.Minute); err == nil || !strings.Contains(p.stderr.String(), "--max-path-bytes") {
			t.Fatalf("ingest = %v, want the path bound refused\nstderr:\n%s", err, p.stderr.String())
		}
		noFolder(t, data, p)
	})
	t.Run("bound refused while reading pages", func(t *testing.T) {
		// The last page is over the page bound the others are under, so
		// the refusal comes once the build is under way.
		over := filepath.Join(t.TempDir(), "over")
		genSite(t, over, 300)
		testkit.WriteFiles(t, over, map[string]string{"part02/page00299.mdx": "# Big\n\n" + strings.Repeat("word ", 20000)})
		data := fresh(t)
		p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+over, "--max-page-bytes", "50000")
		if err := p.wait(t, time.Minute); err == nil || !strings.Contains(p.stderr.String(), "--max-page-bytes") {
			t.Fatalf("ingest = %v, want the page bound refused\nstderr:\n%s", err, p.stderr.String())
		}
		noFolder(t, data, p)
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String()+" while writing", func(t *testing.T) {
			data := fresh(t)
			p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+big)
			if !waitFor(time.Minute, func() bool {
				for _, n := range dirNames(t, filepath.Join(data, "staging")) {
					if strings.HasPrefix(n, "build-") {
						return true
					}
				}
				return false
			}) {
				t.Fatal("the ingest never began its build")
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := p.wait(t, time.Minute); err == nil {
				t.Skip("the ingest finished before the signal")
			}
			exitedNonZero(t, p)
			noFolder(t, data, p)
		})
	}
	t.Run("write fault", func(t *testing.T) {
		data := fresh(t)
		// Files over 256 KiB cannot be written: the text file is about
		// 6 MB. Go ignores SIGXFSZ, so the write fails with EFBIG.
		p := startProc(t, "/bin/sh", env, "-c", `ulimit -f 256 && exec "$0" "$@"`, bin, "--data", data, "ingest", "--tree", "tzdocs="+big)
		if err := p.wait(t, time.Minute); err == nil || !strings.Contains(p.stderr.String(), "file too large") {
			t.Fatalf("ingest = %v, want a write fault\nstderr:\n%s", err, p.stderr.String())
		}
		noFolder(t, data, p)
	})
	t.Run("SIGKILL, then a run that fails", func(t *testing.T) {
		data := fresh(t)
		p := startProc(t, bin, append(env, killpoint.Env+"=ingest.page@5"), "--data", data, "ingest", "--tree", "tzdocs="+big)
		if err := p.wait(t, time.Minute); !killedBySIGKILL(err) {
			t.Fatalf("the ingest was not killed at its fifth page: %v\nstderr:\n%s", err, p.stderr.String())
		}
		if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 1 {
			t.Fatalf("the killed ingest left %v in staging, want its build folder", left)
		}
		p = startProc(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+broken)
		if err := p.wait(t, time.Minute); err == nil {
			t.Fatal("the second ingest did not fail")
		}
		if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
			t.Errorf("staging holds %v after the next run, which failed before its build", left)
		}
	})
}
