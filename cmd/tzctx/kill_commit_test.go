package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// TestKillDuringCommit: an ingest SIGKILLed at several moments after its
// last page is written (while the version is committed: the index built,
// the files synced and checksummed, meta.json written, the folder renamed)
// leaves either no version or a whole one that verifies, and never a
// damaged one; the next ingest of the same site succeeds.
func TestKillDuringCommit(t *testing.T) {
	tier.Long(t, "kills tzctx ingest child processes of a large synthetic site several times")
	bin := buildBinary(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	env := []string{"TZCTX_DATA="}
	runProc(t, bin, env, "--data", data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	big := filepath.Join(work, "big")
	const pages = 1500
	genSite(t, big, pages)
	last := "ingest: 1500/1500 pages"

	absent, whole := 0, 0
	for _, delay := range []time.Duration{0, 30 * time.Millisecond, 150 * time.Millisecond, 600 * time.Millisecond} {
		ing := startProc(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+big, "--version", "big")
		if !waitFor(2*time.Minute, func() bool {
			select {
			case <-ing.exited:
				return true
			default:
			}
			return strings.Contains(ing.stderr.String(), last)
		}) {
			t.Fatalf("no %q line within 2 minutes:\n%s", last, ing.stderr.String())
		}
		time.Sleep(delay)
		_ = ing.cmd.Process.Signal(syscall.SIGKILL)
		_ = ing.wait(t, 10*time.Second)

		if _, err := os.Stat(filepath.Join(data, "versions", "big")); err == nil {
			whole++
			if p := runProc(t, bin, env, "--data", data, "verify", "big"); !strings.HasPrefix(p.stdout.String(), "big: ok") {
				t.Fatalf("killed %v after the last page: the version is there but %s", delay, p.stdout.String())
			}
		} else {
			absent++
		}
		rows := parseVersions(t, runProc(t, bin, env, "--data", data, "versions").stdout.String())
		if !rows[0].active || rows[0].name != "A" {
			t.Fatalf("killed %v after the last page: versions %+v", delay, rows)
		}
		if whole > 0 && len(rows) == 2 {
			runProc(t, bin, env, "--data", data, "delete", "big")
		}
	}
	t.Logf("killed during commit 4 times: %d left no version, %d a whole one", absent, whole)
	if absent == 0 {
		t.Errorf("every kill came after the commit; kill earlier")
	}
	// The next ingest succeeds, clears what the kills left, and its
	// version verifies.
	runProc(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+big, "--version", "big")
	if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
		t.Errorf("staging holds %v after the next ingest", left)
	}
	runProc(t, bin, env, "--data", data, "verify")
}
