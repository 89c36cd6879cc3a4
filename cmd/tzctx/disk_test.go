package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// mountTmpfs mounts a tmpfs of size bytes on a fresh folder and unmounts
// it at the test's end; it skips, saying why, where mounting is not
// permitted.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system of the test's own needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// bindReadOnly mounts a read-only view of dir on a fresh folder and
// unmounts it at the test's end.
func bindReadOnly(t *testing.T, dir string) string {
	t.Helper()
	view := t.TempDir()
	if err := syscall.Mount(dir, view, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(view, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", view, err)
		}
	})
	if err := syscall.Mount("", view, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot make a bind mount read-only here: %v", err)
	}
	return view
}

// fillDisk writes a file into dir until its file system is full, and
// returns the file's path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// The last pages too: a write of one byte fails once the disk is full.
	for {
		if _, err := f.Write(buf[:512]); err != nil {
			break
		}
	}
	return p
}

// setRoom truncates the file fillDisk wrote so that its file system has
// about room bytes free, none for 0.
func setRoom(t *testing.T, filler string, room int64) {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(filler), &fs); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	if err := os.Truncate(filler, fi.Size()+free-room); err != nil && room < free {
		t.Fatal(err)
	}
	if room == 0 {
		f, err := os.OpenFile(filler, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for {
			if _, err := f.Write(make([]byte, 512)); err != nil {
				break
			}
		}
	}
}

// loadCalls makes each call of killLoadCalls n times and counts the
// answered ones.
func loadCalls(base string, n int) *callTally {
	var answered callTally
	for i := range n * len(killLoadCalls) {
		c := killLoadCalls[i%len(killLoadCalls)]
		if c.do(base) {
			answered.add(c.want)
		}
	}
	return &answered
}

// TestDiskFull: with the data directory's file system full, an ingest
// fails with an error naming the disk and what to do, leaves no version
// and no staging folder, and the server goes on serving the active
// version byte for byte; the server's records fail, logged once, while
// it answers every call, and no record written before is lost. Once
// space is freed, records are written again and the ingest succeeds.
func TestDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, "8m")
	bin := buildBinary(t)
	data := filepath.Join(mnt, "data")
	runProc(t, bin, nil, "--data", data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	cfg := filepath.Join(t.TempDir(), "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, data, cfg, nil)
	refs := takeRefs(t, base)
	if a := loadCalls(base, 4); a.total("http") != 4*len(killLoadCalls) {
		t.Fatalf("%d of %d calls answered before the disk filled", a.total("http"), 4*len(killLoadCalls))
	}
	before := recordCounts(t, bin, data)
	filler := fillDisk(t, mnt)

	// The ingest, with no room at all, and with room for a part of the
	// version (about 780 KB): it fails at its start, while it writes the
	// texts, and while it builds the index.
	siteB := changedSite(t)
	for _, room := range []int64{0, 128 << 10, 512 << 10} {
		setRoom(t, filler, room)
		what := fmt.Sprintf("an ingest with %d KB free", room>>10)
		p := startProc(t, bin, nil, "--data", data, "ingest", siteB, "--version", "B", "--activate")
		if err := p.wait(t, 2*time.Minute); err == nil {
			t.Fatalf("%s succeeded:\n%s", what, p.stdout.String())
		}
		msg := p.stderr.String()
		for _, want := range []string{"no space left on device", data, "nothing was stored", "free space there", "run the command again"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error does not say %q:\n%s", what, want, msg)
			}
		}
		t.Logf("%s: %s", what, strings.TrimSpace(msg))
		rows := opensWhole(t, bin, data, what)
		if len(rows) != 1 || rows[0].name != "A" || !rows[0].active {
			t.Errorf("versions after %s: %+v, want A alone, active", what, rows)
		}
		if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
			t.Errorf("%s left %v in staging", what, left)
		}
		sameRefs(t, base, refs, what)
	}
	setRoom(t, filler, 0)

	// The records.
	answered := loadCalls(base, 4)
	if n := answered.total("http"); n != 4*len(killLoadCalls) {
		t.Errorf("with the disk full the server answered %d of %d calls", n, 4*len(killLoadCalls))
	}
	after := recordCounts(t, bin, data)
	for k, n := range before {
		if after[k] < n {
			t.Errorf("records of %+v: %d before the disk filled, %d after", k, n, after[k])
		}
	}
	if !waitFor(5*time.Second, func() bool {
		return strings.Contains(srv.stderr.String(), "a call record was not written")
	}) {
		t.Errorf("the server did not log that records are not written:\n%s", srv.stderr.String())
	}
	if n := strings.Count(srv.stderr.String(), "a call record was not written"); n != 1 {
		t.Errorf("the records fault is logged %d times, want once", n)
	}

	// Space is freed: records are written again and the ingest succeeds.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	again := recordCounts(t, bin, data)
	next := killLoadCalls[0]
	if !next.do(base) {
		t.Fatal("the server did not answer once space was freed")
	}
	if got := recordCounts(t, bin, data); got[next.want] != again[next.want]+1 {
		t.Errorf("once space was freed the call %+v was not recorded: %d before, %d after", next.want, again[next.want], got[next.want])
	}
	if !strings.Contains(srv.stderr.String(), "writing call records again") {
		t.Errorf("the server did not log that records are written again:\n%s", srv.stderr.String())
	}
	runProc(t, bin, nil, "--data", data, "ingest", siteB, "--version", "B", "--activate")
	awaitServed(t, base, "B")
}

// TestReadOnlyDataDir: on a read-only view of a data directory an
// ingest fails with an error naming the read-only file system and what
// to do, and leaves the directory as it was; tzctx versions, verify and
// records read it; and tzctx serve starts on it and serves the active
// version byte for byte, answering every call, with the records fault
// logged once.
func TestReadOnlyDataDir(t *testing.T) {
	mnt := mountTmpfs(t, "8m")
	bin := buildBinary(t)
	data := filepath.Join(mnt, "data")
	runProc(t, bin, nil, "--data", data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	cfg := filepath.Join(t.TempDir(), "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withRecords := range []bool{false, true} {
		name := "no records yet"
		if withRecords {
			name = "with records"
		}
		t.Run(name, func(t *testing.T) {
			var refs servedRefs
			var before map[callKey]int
			{
				srv, base := startServeProc(t, bin, data, cfg, nil)
				refs = takeRefs(t, base)
				if withRecords {
					loadCalls(base, 2)
				}
				_ = srv.cmd.Process.Signal(syscall.SIGTERM)
				if err := srv.wait(t, 15*time.Second); err != nil {
					t.Fatalf("the server ended with %v on SIGTERM", err)
				}
				if !withRecords {
					// The first server made a records folder; a data
					// directory no server ran on has none.
					if err := os.RemoveAll(filepath.Join(data, "records")); err != nil {
						t.Fatal(err)
					}
				} else {
					before = recordCounts(t, bin, data)
				}
			}
			ro := bindReadOnly(t, data)

			p := startProc(t, bin, nil, "--data", ro, "ingest", changedSite(t), "--version", "B", "--activate")
			if err := p.wait(t, 2*time.Minute); err == nil {
				t.Fatalf("an ingest into a read-only data directory succeeded:\n%s", p.stdout.String())
			}
			msg := p.stderr.String()
			for _, want := range []string{"read-only file system", ro, "nothing was stored", "remount it read-write"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the ingest's error does not say %q:\n%s", want, msg)
				}
			}
			rows := opensWhole(t, bin, ro, "on the read-only view")
			if len(rows) != 1 || rows[0].name != "A" || !rows[0].active {
				t.Errorf("versions on the read-only view: %+v, want A alone, active", rows)
			}
			runProc(t, bin, nil, "--data", ro, "verify")

			srv, base := startServeProc(t, bin, ro, cfg, nil)
			sameRefs(t, base, refs, "served from the read-only view")
			answered := loadCalls(base, 2)
			if n := answered.total("http"); n != 2*len(killLoadCalls) {
				t.Errorf("on the read-only view the server answered %d of %d calls", n, 2*len(killLoadCalls))
			}
			if !waitFor(5*time.Second, func() bool {
				return strings.Contains(srv.stderr.String(), "a call record was not written")
			}) {
				t.Errorf("the server did not log that records are not written:\n%s", srv.stderr.String())
			}
			if withRecords {
				after := recordCounts(t, bin, ro)
				for k, n := range before {
					if after[k] != n {
						t.Errorf("records of %+v on the read-only view: %d, want the %d written before", k, after[k], n)
					}
				}
			}
			_ = srv.cmd.Process.Signal(syscall.SIGTERM)
			if err := srv.wait(t, 15*time.Second); err != nil {
				t.Errorf("the server on the read-only view ended with %v on SIGTERM\n%s", err, srv.stderr.String())
			}

			// tzctx mcp serves the read-only view too.
			mc, _ := killableStdio(t, bin, ro, nil)
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "read_documentation", refPage
			res, err := mc.CallTool(context.Background(), req)
			if err != nil || res.IsError {
				t.Fatalf("tzctx mcp on the read-only view: %v %+v", err, res)
			}
			got, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			if canonical(t, got) != canonical(t, refs.page) {
				t.Errorf("tzctx mcp on the read-only view reads the page unlike the server did:\n got %.200s\nwant %.200s", got, refs.page)
			}
		})
	}
}
