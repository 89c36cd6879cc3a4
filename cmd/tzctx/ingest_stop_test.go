package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// limitedKiB is the address space a child ingest may take. An ingest that
// grows without bound (a regression) then fails within a second or two
// instead of taking the shared machine's memory.
const limitedKiB = 4 << 20

// startLimited starts bin ARGS under the address-space limit; the shell
// execs the binary, so the process is tzctx itself.
func startLimited(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	return startProc(t, "/bin/sh", env, append([]string{"-c", fmt.Sprintf(`ulimit -v %d 2>/dev/null; exec "$0" "$@"`, limitedKiB), bin}, args...)...)
}

// endsWithin waits d for the process to end on its own; then it sends
// SIGTERM and waits 3 s more. It reports whether the process ended on its
// own, and fails the test if it outlived the SIGTERM.
func endsWithin(t *testing.T, p *proc, d time.Duration) bool {
	t.Helper()
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		t.Errorf("the ingest still ran after %v and needed SIGTERM\nstderr:\n%s", d, p.stderr.String())
	case <-time.After(3 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("the ingest still ran %v after its start and ignored SIGTERM for 3 s\nstderr:\n%s", d, p.stderr.String())
	}
	return false
}

// peakRSS is the ended process's peak resident set, in MiB (watchPeak).
func peakRSS(p *proc) float64 {
	<-p.exited
	return p.peak()
}

// nothingVisible checks that a data directory holds no version, no
// active pointer and no build left in staging.
func nothingVisible(t *testing.T, data string) {
	t.Helper()
	if v := dirNames(t, filepath.Join(data, "versions")); len(v) != 0 {
		t.Errorf("versions %v are visible after a failed or stopped ingest", v)
	}
	if _, err := os.Stat(filepath.Join(data, "ACTIVE")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ACTIVE exists after a failed or stopped ingest (%v)", err)
	}
	if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
		t.Errorf("staging holds %v after a failed or stopped ingest", left)
	}
}

// exitedNonZero checks that the process ended with a non-zero status, not
// by a signal's default action.
func exitedNonZero(t *testing.T, p *proc) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) {
		t.Errorf("the ingest exited with %v, want a non-zero status\nstdout:\n%s", p.err, p.stdout.String())
		return
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("the ingest was ended by %v, not by its own exit", ws.Signal())
	}
}

// fanOutTree writes a tree folder whose docs.json refers to ten files of
// about 200 bytes, each referring ten times to the next.
func fanOutTree(t *testing.T, dir string) {
	files := map[string]string{"docs.json": `{"navigation":{"pages":["index",{"$ref":"f1.json"}]}}`, "index.mdx": "# Home\n"}
	for i := 1; i <= 10; i++ {
		var refs []string
		for range 10 {
			if i == 10 {
				refs = append(refs, `"index"`)
			} else {
				refs = append(refs, fmt.Sprintf(`{"$ref":"f%d.json"}`, i+1))
			}
		}
		files[fmt.Sprintf("f%d.json", i)] = `{"group":"g","pages":[` + strings.Join(refs, ",") + `]}`
	}
	testkit.WriteFiles(t, dir, files)
}

// deepTree writes a tree whose docs.json nests groups groups deep, each
// listing per entries (the page "index" again and again, and operation
// strings) before the next group.
func deepTree(t *testing.T, dir string, groups, per int) int {
	var b strings.Builder
	b.WriteString(`{"navigation":{"groups":[`)
	for i := range groups {
		fmt.Fprintf(&b, `{"group":"g%d","pages":["p%d",`, i, i%100)
		for j := range per {
			if j%2 == 0 {
				b.WriteString(`"index",`)
			} else {
				b.WriteString(`"GET /x",`)
			}
		}
	}
	b.WriteString(`"index"`)
	b.WriteString(strings.Repeat("]}", groups))
	b.WriteString(`]}}`)
	files := map[string]string{"docs.json": b.String(), "index.mdx": "# Home\n"}
	for i := range min(groups, 100) {
		files[fmt.Sprintf("p%d.mdx", i)] = fmt.Sprintf("# Page %d\n", i)
	}
	testkit.WriteFiles(t, dir, files)
	return b.Len()
}

// TestIngestStopsAndBounds runs the real binary on folders that once made
// ingest block for ever, ignoring SIGTERM (a FIFO), or grow until the
// machine ran out of memory (/dev/zero, a $ref fan-out, a deep manifest),
// each under an address-space limit and a deadline; and it stops ingests
// with SIGTERM in each phase.
func TestIngestStopsAndBounds(t *testing.T) {
	tier.Long(t, "runs tzctx ingest child processes")
	bin := buildBinary(t)
	env := []string{"TZCTX_DATA="}

	t.Run("not regular", func(t *testing.T) {
		cases := []struct {
			name  string
			files map[string]string
			file  string // the file made a FIFO or a link to /dev/zero
			want  string
		}{
			{"docs.json", nil, "docs.json", ""},
			{"$ref file", map[string]string{"docs.json": `{"navigation":{"$ref":"nav.json"}}`}, "nav.json", `reference "nav.json" names nav.json, which cannot be read: `},
			{"llms.txt", nil, "llms.txt", ""},
			{"llms-full.txt", nil, "llms-full.txt", ""},
			{"page", nil, "a.mdx", ""},
		}
		for _, kind := range []string{"fifo", "/dev/zero"} {
			for _, c := range cases {
				t.Run(kind+" as "+c.name, func(t *testing.T) {
					tree := filepath.Join(t.TempDir(), "tzdocs")
					testkit.WriteFiles(t, tree, goodTree)
					testkit.WriteFiles(t, tree, c.files)
					f := filepath.Join(tree, c.file)
					os.Remove(f)
					want := c.want + c.file
					if kind == "fifo" {
						if err := syscall.Mkfifo(f, 0o644); err != nil {
							t.Fatal(err)
						}
						want += " is a named pipe (FIFO), not a regular file"
					} else {
						mustSymlink(t, "/dev/zero", f)
						want += " is a symbolic link to /dev/zero, outside the folder " + tree
					}
					data := t.TempDir()
					p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+tree)
					if !endsWithin(t, p, 5*time.Second) {
						return
					}
					exitedNonZero(t, p)
					if !strings.Contains(p.stderr.String(), want) {
						t.Errorf("stderr does not say %q:\n%s", want, p.stderr.String())
					}
					nothingVisible(t, data)
				})
			}
		}
	})

	t.Run("fan-out", func(t *testing.T) {
		tree := filepath.Join(t.TempDir(), "tzdocs")
		fanOutTree(t, tree)
		data := t.TempDir()
		start := time.Now()
		p := startLimited(t, bin, env, "--data", data, "ingest", "--tree", "tzdocs="+tree)
		if !endsWithin(t, p, 30*time.Second) {
			return
		}
		t.Logf("fan-out refused in %v, peak RSS %.0f MiB: %s", time.Since(start).Round(time.Millisecond), peakRSS(p), strings.TrimSpace(p.stderr.String()))
		exitedNonZero(t, p)
		for _, w := range []string{"more than 1000000 entries", "docs.json → f1.json → f2.json", "--max-nav-nodes"} {
			if !strings.Contains(p.stderr.String(), w) {
				t.Errorf("stderr does not say %q:\n%s", w, p.stderr.String())
			}
		}
		if rss := peakRSS(p); rss > 400 {
			t.Errorf("peak RSS %.0f MiB, want under 400 MiB", rss)
		}
		nothingVisible(t, data)
	})

	t.Run("manifest memory", func(t *testing.T) {
		cases := []struct {
			name         string
			groups, per  int
			flags        []string
			ok           bool
			maxRSS       float64
			wantInStderr string
		}{
			// The shape that took 5.1 GB: 4,000 nested groups, 150,000
			// entries, 1.3 MB; and its 2.5 MB sibling that ran out of
			// memory. The depth bound refuses both at once.
			{"deep 1.3 MB", 4000, 37, nil, false, 200, "more than 64 objects and arrays deep"},
			{"deep 2.5 MB", 4000, 75, nil, false, 200, "more than 64 objects and arrays deep"},
			// Below the raised bound the same manifests ingest, in memory
			// linear in their size: no value keeps a pointer.
			{"deep 1.3 MB, bound raised", 4000, 37, []string{"--max-nav-depth", "10000"}, true, 200, ""},
			{"deep 2.5 MB, bound raised", 4000, 75, []string{"--max-nav-depth", "10000"}, true, 200, ""},
			// A 2.5 MB manifest as deep as the default bound allows, wide
			// at every level.
			{"wide 2.5 MB", 30, 9400, nil, true, 200, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				tree := filepath.Join(t.TempDir(), "tzdocs")
				size := deepTree(t, tree, c.groups, c.per)
				data := t.TempDir()
				start := time.Now()
				p := startLimited(t, bin, env, append([]string{"--data", data, "ingest", "--tree", "tzdocs=" + tree}, c.flags...)...)
				if !endsWithin(t, p, 60*time.Second) {
					return
				}
				rss := peakRSS(p)
				t.Logf("%d-byte manifest: %v, peak RSS %.0f MiB, exit %v", size, time.Since(start).Round(time.Millisecond), rss, p.err)
				if c.ok {
					if p.err != nil {
						t.Fatalf("ingest failed: %v\nstderr:\n%s", p.err, p.stderr.String())
					}
				} else {
					exitedNonZero(t, p)
					if !strings.Contains(p.stderr.String(), c.wantInStderr) {
						t.Errorf("stderr does not say %q:\n%s", c.wantInStderr, p.stderr.String())
					}
					nothingVisible(t, data)
				}
				if rss > c.maxRSS {
					t.Errorf("peak RSS %.0f MiB, want under %.0f MiB", rss, c.maxRSS)
				}
			})
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		big := filepath.Join(t.TempDir(), "big")
		genSite(t, big, 3000)
		fan := filepath.Join(t.TempDir(), "tzdocs")
		fanOutTree(t, fan)
		deep := filepath.Join(t.TempDir(), "deep")
		deepLinksTree(t, deep)
		cases := []struct {
			name  string
			args  []string
			ready func(data string, p *proc) bool // when to send SIGTERM
		}{
			// The walk of a fan-out the node bound allows runs for minutes.
			// Ingest opens the tree folder after it catches SIGTERM, so a
			// process holding the folder open is in the phase and
			// catching the signal, however slowly it started.
			{"walking the manifest", []string{"--tree", "tzdocs=" + fan, "--max-nav-nodes", "1000000000000"},
				func(_ string, p *proc) bool { return holdsOpen(t, p, fan) }},
			// Links through a folder nested as deep as the bound, 16 MiB
			// of them: a stop is seen at the next link.
			{"matching llms.txt links", []string{"--tree", "tzdocs=" + deep},
				func(_ string, p *proc) bool { return holdsOpen(t, p, deep) }},
			{"loading pages", []string{"--tree", "tzdocs=" + big},
				func(_ string, p *proc) bool { return holdsOpen(t, p, big) }},
			{"writing", []string{"--tree", "tzdocs=" + big},
				func(data string, p *proc) bool {
					for _, n := range dirNames(t, filepath.Join(data, "staging")) {
						if strings.HasPrefix(n, "build-") {
							return true
						}
					}
					return false
				}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				data := t.TempDir()
				p := startLimited(t, bin, env, append([]string{"--data", data, "ingest"}, c.args...)...)
				if !waitFor(60*time.Second, func() bool { return c.ready(data, p) }) {
					t.Fatal("the ingest never reached the phase")
				}
				select {
				case <-p.exited:
					t.Fatalf("the ingest ended (%v) before SIGTERM could stop it\nstderr:\n%s", p.err, p.stderr.String())
				default:
				}
				sent := time.Now()
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				select {
				case <-p.exited:
				case <-time.After(5 * time.Second):
					_ = p.cmd.Process.Kill()
					<-p.exited
					t.Fatalf("the ingest still ran 5 s after SIGTERM\nstderr:\n%s", p.stderr.String())
				}
				t.Logf("stopped %v after SIGTERM: %s", time.Since(sent).Round(time.Millisecond), lastLine(p.stderr.String()))
				exitedNonZero(t, p)
				if !strings.Contains(p.stderr.String(), "context canceled") {
					t.Errorf("stderr does not say the ingest was cancelled:\n%s", p.stderr.String())
				}
				nothingVisible(t, data)
			})
		}
	})
}

// deepLinksTree writes a folder holding a folder nested 64 deep and an
// llms.txt of 16 MiB of links through all of it, each to a page that is
// not there.
func deepLinksTree(t *testing.T, dir string) {
	chain := strings.Repeat("a/", 64)
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(chain)), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Deep\n\n- [Home](index.md)\n")
	for i := 0; b.Len() < 16<<20-200; i++ {
		fmt.Fprintf(&b, "- [x](%sx%d)\n", chain, i)
	}
	testkit.WriteFiles(t, dir, map[string]string{"index.md": "# Home\n", "llms.txt": b.String()})
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// holdsOpen reports whether the process p holds the folder dir open
// (one of its /proc/PID/fd links names it).
func holdsOpen(t *testing.T, p *proc, dir string) bool {
	t.Helper()
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	fds := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
	ents, err := os.ReadDir(fds)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && l == want {
			return true
		}
	}
	return false
}
