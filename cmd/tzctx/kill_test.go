package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// buildBinary returns tzctx built once for this package's tests
// (testkit.Binary).
func buildBinary(t testing.TB) string {
	t.Helper()
	return testkit.Binary(t)
}

// proc is a tzctx child process.
type proc struct {
	cmd    *exec.Cmd
	stdout testkit.SyncBuffer
	stderr testkit.SyncBuffer
	exited chan struct{} // closed once Wait returned
	err    error         // Wait's result, set before exited closes
	// peak gives the process's peak resident set in MiB once it ended
	// (watchPeak).
	peak func() float64
}

// startProc starts bin ARGS with extra environment entries; the process is
// killed at the test's end where it still runs.
func startProc(t testing.TB, bin string, env []string, args ...string) *proc {
	t.Helper()
	return startProcIn(t, bin, env, nil, args...)
}

// startProcIn is startProc with stdin read from stdin (nil for none).
func startProcIn(t testing.TB, bin string, env []string, stdin io.Reader, args ...string) *proc {
	t.Helper()
	p := &proc{exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdin = stdin
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.peak = watchPeak(p.cmd.Process.Pid, p.exited)
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		_ = p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			t.Errorf("process %v did not end after SIGKILL", args)
		}
	})
	return p
}

// wait waits for the process to end, at most d.
func (p *proc) wait(t testing.TB, d time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(d):
		t.Fatalf("process %v still runs after %v\nstderr:\n%s", p.cmd.Args, d, p.stderr.String())
		return nil
	}
}

// runProc runs bin ARGS to completion (at most 2 minutes) and fails the
// test unless it succeeds.
func runProc(t testing.TB, bin string, env []string, args ...string) *proc {
	t.Helper()
	return runProcWithin(t, 2*time.Minute, bin, env, args...)
}

// runProcWithin is runProc, the process stopped as a failure past limit.
func runProcWithin(t testing.TB, limit time.Duration, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := startProc(t, bin, env, args...)
	if err := p.wait(t, limit); err != nil {
		t.Fatalf("tzctx %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, p.stdout.String(), p.stderr.String())
	}
	return p
}

// genSite writes a deterministic synthetic tree folder of n pages, about
// 2 KB each, spread over folders of 100.
func genSite(t testing.TB, dir string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	words := make([]string, 4000)
	for i := range words {
		b := make([]byte, 3+r.IntN(8))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(b)
	}
	pages := make([]string, n)
	var b strings.Builder
	for i := range n {
		pages[i] = fmt.Sprintf("part%02d/page%05d", i/100, i)
		b.Reset()
		fmt.Fprintf(&b, "---\ntitle: Synthetic page %d\n---\n\n# Synthetic page %d\n\n", i, i)
		for s := range 4 {
			fmt.Fprintf(&b, "## Section %d of page %d\n\n", s, i)
			for k := range 60 {
				b.WriteString(words[r.IntN(len(words))])
				if k%12 == 11 {
					b.WriteString(".\n")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString("\n")
		}
		f := filepath.Join(dir, filepath.FromSlash(pages[i])+".mdx")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest, err := json.Marshal(map[string]any{
		"name":       "Synthetic documentation",
		"navigation": map[string]any{"groups": []any{map[string]any{"group": "All", "pages": pages}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordReads performs a fixed sequence of reads (a page in chunks, the
// whole cloud text in chunks, the cloud index) and returns every raw
// answer body.
func recordReads(t *testing.T, base string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, req := range []map[string]any{
		{"page": "/cloud/reference/http/", "limit": 4000},
		{"tree": "cloud", "part": "full", "limit": 16000},
		{"tree": "cloud"},
	} {
		off, stamp := 0, ""
		for i := 0; i < 1000; i++ {
			body := map[string]any{}
			for k, v := range req {
				body[k] = v
			}
			if off > 0 {
				body["offset"], body["stamp"] = off, stamp
			}
			code, a, raw, err := post(base, "read_documentation", body)
			if err != nil || code != 200 || a.Error != nil {
				t.Fatalf("read %v: %d %.300s (%v)", body, code, raw, err)
			}
			out = append(out, raw)
			if a.NextOffset == nil {
				break
			}
			off, stamp = *a.NextOffset, a.Stamp
		}
	}
	return out
}

// pageTextOf reassembles the page read recordReads began with: the texts
// of its answers up to the first one without next_offset.
func pageTextOf(t *testing.T, answers [][]byte) string {
	t.Helper()
	var b strings.Builder
	for _, raw := range answers {
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			return b.String()
		}
	}
	t.Fatal("the recorded page read has no last chunk")
	return ""
}

var servingRE = regexp.MustCompile(`serving addr=(127\.0\.0\.1:\d+)`)

// TestKillIngest: a SIGKILLed ingest of a large site disturbs neither the
// running server nor the data directory, and the next ingest and
// activation work, reaching the running server through SIGHUP.
func TestKillIngest(t *testing.T) {
	tier.Long(t, "kills a tzctx ingest child process of a large synthetic site")
	bin := buildBinary(t)
	work := t.TempDir()
	dataDir := filepath.Join(work, "data")
	childTmp := filepath.Join(work, "tmp") // TMPDIR of the children
	if err := os.MkdirAll(childTmp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + childTmp, "TZCTX_DATA="}
	siteA := filepath.Join(work, "site-a")
	testkit.CopyTree(t, testkit.SampleSite(t), siteA)
	big := filepath.Join(work, "big")
	const bigPages = 4000
	genSite(t, big, bigPages)

	runProc(t, bin, env, "--data", dataDir, "ingest", siteA, "--version", "A", "--activate")

	// The server: a watch interval of an hour, so only SIGHUP makes it
	// look at the pointer within this test.
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "1h"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startProc(t, bin, env, "--data", dataDir, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
	var base string
	if !waitFor(60*time.Second, func() bool {
		if m := servingRE.FindStringSubmatch(srv.stderr.String()); m != nil {
			base = "http://" + m[1]
			return true
		}
		select {
		case <-srv.exited:
			return true
		default:
			return false
		}
	}) || base == "" {
		t.Fatalf("the server logged no \"serving addr=\" line\nstderr:\n%s", srv.stderr.String())
	}
	if !waitFor(10*time.Second, func() bool { c, _, _ := health(base); return c == 200 }) {
		t.Fatalf("the server at %s does not answer /healthz", base)
	}
	before := recordReads(t, base)

	// The large ingest, killed part way through writing.
	ing := startProc(t, bin, env, "--data", dataDir, "ingest", "--tree", "tzdocs="+big, "--version", "big")
	var build string
	var seen time.Time
	ready := waitFor(90*time.Second, func() bool {
		select {
		case <-ing.exited:
			return true
		default:
		}
		if build == "" {
			for _, n := range dirNames(t, filepath.Join(dataDir, "staging")) {
				if strings.HasPrefix(n, "build-") {
					build, seen = n, time.Now()
				}
			}
			return false
		}
		// Writing has begun. Kill once the search index builder has
		// flushed a first batch of pages (its work folder is inside the
		// staging folder), or a short while after the staging folder
		// appeared.
		if time.Since(seen) > 500*time.Millisecond {
			return true
		}
		work := filepath.Join(dataDir, "staging", build)
		for _, n := range dirNames(t, work) {
			if strings.HasPrefix(n, "scorch-offline-build") && len(dirNames(t, filepath.Join(work, n))) > 0 {
				return true
			}
		}
		return false
	})
	select {
	case <-ing.exited:
		t.Fatalf("the ingest of %d pages ended (%v) before it could be killed; grow the synthetic site\nstderr:\n%s", bigPages, ing.err, ing.stderr.String())
	default:
	}
	if !ready {
		t.Fatalf("no staging folder appeared under %s within 90 s\nstderr:\n%s", filepath.Join(dataDir, "staging"), ing.stderr.String())
	}
	if err := ing.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := ing.wait(t, 10*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("killed ingest: Wait = %v, want a SIGKILL exit", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the ingest ended by %v, not by SIGKILL; it finished first\nstderr:\n%s", err, ing.stderr.String())
	}
	t.Logf("killed the ingest %v after its staging folder %s appeared; stderr: %q", time.Since(seen).Round(time.Millisecond), build, ing.stderr.String())
	if _, err := os.Stat(filepath.Join(dataDir, "staging", build)); err != nil {
		t.Fatalf("the killed ingest's staging folder is gone already (%v): it was not killed part way", err)
	}

	// Nothing changed for readers or for the data directory.
	after := recordReads(t, base)
	if len(after) != len(before) {
		t.Fatalf("%d answers after the kill, %d before", len(after), len(before))
	}
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Fatalf("answer %d differs after the kill:\nbefore %.300s\nafter  %.300s", i, before[i], after[i])
		}
	}
	if _, v, err := health(base); err != nil || v != "A" {
		t.Errorf("/healthz names %q (%v), want A", v, err)
	}
	rows := parseVersions(t, runProc(t, bin, env, "--data", dataDir, "versions").stdout.String())
	if len(rows) != 1 || rows[0].name != "A" || !rows[0].active {
		t.Fatalf("versions after the kill: %+v, want A alone, active", rows)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "versions", "big")); !os.IsNotExist(err) {
		t.Errorf("versions/big after the kill: stat err = %v", err)
	}

	// A new ingest works, clears the leftover, and after activation and
	// SIGHUP the running server serves it.
	siteB := changedSite(t)
	runProc(t, bin, env, "--data", dataDir, "ingest", siteB, "--version", "B")
	if _, err := os.Stat(filepath.Join(dataDir, "staging", build)); !os.IsNotExist(err) {
		t.Errorf("the next ingest left the killed ingest's staging folder %s (stat err %v)", build, err)
	}
	if _, v, _ := health(base); v != "A" {
		t.Errorf("the server serves %q before B is activated", v)
	}
	runProc(t, bin, env, "--data", dataDir, "activate", "B")
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !waitFor(time.Minute, func() bool { _, v, _ := health(base); return v == "B" }) {
		t.Fatalf("the server did not switch to B within a minute of SIGHUP\nstderr:\n%s", srv.stderr.String())
	}
	pageB, _ := readWhole(t, base, map[string]any{"page": "/cloud/reference/http/", "limit": 4000})
	if want := strings.ReplaceAll(pageTextOf(t, before), "the", "THE"); pageB != want {
		t.Errorf("the page served after the switch is not B's page")
	}
	if !strings.Contains(mustRead(t, base, map[string]any{"tree": "cloud"}).Text, "[HTTP reference, version B](/cloud/reference/http/)") {
		t.Error("the cloud index served after the switch is not B's")
	}

	// SIGTERM shuts the server down gracefully.
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.wait(t, 15*time.Second); err != nil {
		t.Errorf("the server exited with %v on SIGTERM, want status 0\nstderr:\n%s", err, srv.stderr.String())
	}
	// Nothing of the killed ingest is left outside the data directory.
	if left := dirNames(t, childTmp); len(left) > 0 {
		t.Errorf("TMPDIR of the children holds %v after the run; an ingest must keep its work files in the data directory", left)
	}
}
