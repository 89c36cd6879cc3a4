package records

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// quiet is a logger that drops everything.
var quiet = slog.New(slog.DiscardHandler)

// open opens a writer on dir that the test closes at its end.
func open(t *testing.T, dir string, opts Options) *Writer {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	w, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// read reads dir with f and fails the test on an error.
func read(t *testing.T, dir string, f Filter) ([]tzctx.Record, Stats) {
	t.Helper()
	recs, st, err := Read(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

// sample is a record with every member set, distinct by i.
func sample(i int, at time.Time) tzctx.Record {
	return tzctx.Record{
		Time: at, Action: "read_documentation", Transport: tzctx.TransportHTTP,
		Subject: fmt.Sprintf("docs:cloud:page:p%d", i), Code: tzctx.OK, Status: 200,
		Credential: "0123456789ab", Account: "acme", Application: "bot", Version: "v1",
		CodePoints: 100 + i, Duration: time.Duration(1000*i + 667),
	}
}

// same reports whether two records are equal, times compared as
// instants.
func same(a, b tzctx.Record) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	a.Time, b.Time = time.Time{}, time.Time{}
	return a == b
}

// sorted returns a sorted copy of names, in the order segments lists.
func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// segments lists the segment names under dir, sorted.
func segments(t *testing.T, dir string) []string {
	t.Helper()
	segs, err := listSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range segs {
		out = append(out, s.name)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	w := open(t, dir, Options{})
	local := time.FixedZone("X", 5*3600+1800)
	want := []tzctx.Record{
		sample(1, time.Date(2026, 12, 1, 10, 37, 23, 123456789, time.UTC)),
		sample(2, time.Date(2026, 12, 1, 16, 7, 24, 1, local)), // 10:37:24.000000001 UTC
		{Time: time.Now(), Action: "(unknown action)", Code: "invalid_request", Status: 400, Duration: 0},
		{Time: time.Date(2026, 12, 1, 10, 40, 0, 0, time.UTC), Action: "list_context", Transport: tzctx.TransportMCPStdio,
			Subject: "catalog", Code: tzctx.OK, Status: 200, Duration: time.Hour + 3*time.Nanosecond},
	}
	for _, r := range want {
		w.Record(context.Background(), r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, st := read(t, dir, Filter{})
	slices.SortFunc(want, func(a, b tzctx.Record) int { return a.Time.Compare(b.Time) })
	if len(got) != len(want) || st.Skipped != 0 || st.Partial != 0 {
		t.Fatalf("read %d records (stats %+v), want %d", len(got), st, len(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
		if got[i].Time.Location() != time.UTC {
			t.Errorf("record %d reads back in %v, want UTC", i, got[i].Time.Location())
		}
	}

	// The folder is private, and so is the segment; each record is one
	// line holding the duration as microseconds.
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("records folder: %v, %v; want mode 0700", fi.Mode(), err)
	}
	names := segments(t, dir)
	if len(names) != 1 {
		t.Fatalf("segments %v, want one", names)
	}
	fi, err := os.Stat(filepath.Join(dir, names[0]))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("segment: %v, %v; want mode 0600", fi.Mode(), err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, names[0]))
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("segment holds %d lines, want %d:\n%s", len(lines), len(want), raw)
	}
	if !strings.Contains(lines[0], `"time":"2026-12-01T10:37:23.123456789Z"`) || !strings.Contains(lines[0], `"us":1.667`) {
		t.Errorf("first line %s lacks the UTC time to the nanosecond or \"us\":1.667", lines[0])
	}
	if !strings.Contains(lines[3], `"us":3600000000.003`) {
		t.Errorf("last line %s lacks \"us\":3600000000.003", lines[3])
	}
}

func TestMicros(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, 1000, 1001, 3667, 120 * time.Millisecond, -1500, 90 * 24 * time.Hour, 1<<62 + 7} {
		b, err := micros(d).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var m micros
		if err := m.UnmarshalJSON(b); err != nil || time.Duration(m) != d {
			t.Errorf("%d ns: %s reads back as %d (%v)", int64(d), b, int64(m), err)
		}
	}
	var m micros
	if err := m.UnmarshalJSON([]byte("1.5e3")); err != nil || time.Duration(m) != 1500*time.Microsecond {
		t.Errorf("1.5e3 µs reads as %v (%v)", time.Duration(m), err)
	}
}

func TestManyGoroutines(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, Options{})
	w.limit = minSegment // rotate often
	const goroutines, each = 16, 400
	var wg sync.WaitGroup
	base := time.Now()
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				r := sample(i, base.Add(time.Duration(g*each+i)))
				r.Account = fmt.Sprintf("g%d", g)
				w.Record(context.Background(), r)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Lost() != 0 {
		t.Fatalf("lost %d records", w.Lost())
	}
	got, st := read(t, dir, Filter{})
	if len(got) != goroutines*each || st.Skipped+st.Partial != 0 {
		t.Fatalf("read %d records (stats %+v), want %d", len(got), st, goroutines*each)
	}
	if st.Segments < 2 {
		t.Errorf("%d segments; a %d-byte limit should have rotated", st.Segments, minSegment)
	}
	seen := map[string]bool{}
	for i, r := range got {
		k := r.Account + "/" + r.Subject
		if seen[k] {
			t.Fatalf("record %s read twice", k)
		}
		seen[k] = true
		if i > 0 && r.Time.Before(got[i-1].Time) {
			t.Fatalf("record %d is older than the one before it", i)
		}
	}
	for _, n := range segments(t, dir) {
		fi, _ := os.Stat(filepath.Join(dir, n))
		if fi.Size() > minSegment {
			t.Errorf("segment %s holds %d bytes, beyond the %d-byte limit", n, fi.Size(), minSegment)
		}
	}
}

// TestTwoWriters: two writers on one folder, as two processes of one data
// directory, append at once; every record of both reads back, in time
// order.
func TestTwoWriters(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir, Options{}), open(t, dir, Options{})
	if a.prefix == b.prefix {
		t.Fatalf("two writers share the segment name part %q", a.prefix)
	}
	const n = 1000
	var wg sync.WaitGroup
	for k, w := range []*Writer{a, b} {
		wg.Go(func() {
			for i := range n {
				r := sample(i, time.Now())
				r.Transport = []string{tzctx.TransportHTTP, tzctx.TransportMCPStdio}[k]
				w.Record(context.Background(), r)
			}
		})
	}
	wg.Wait()
	// Both still run: a reader sees everything written so far.
	got, _ := read(t, dir, Filter{})
	if len(got) != 2*n {
		t.Fatalf("read %d records while both writers run, want %d", len(got), 2*n)
	}
	for _, w := range []*Writer{a, b} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, st := read(t, dir, Filter{})
	per := map[string]int{}
	for i, r := range got {
		per[r.Transport]++
		if i > 0 && r.Time.Before(got[i-1].Time) {
			t.Fatalf("record %d is older than the one before it", i)
		}
	}
	if per[tzctx.TransportHTTP] != n || per[tzctx.TransportMCPStdio] != n || st.Segments != 2 {
		t.Errorf("records per transport %v in %d segments, want %d each in 2", per, st.Segments, n)
	}
}

// TestTornLastLine: a segment ending in part of a line, as a crash leaves
// it, and a line that is not a record are skipped and counted; the rest
// reads.
func TestTornLastLine(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, Options{})
	for i := range 3 {
		w.Record(context.Background(), sample(i, time.Now()))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, segments(t, dir)[0])
	line, _ := Marshal(sample(9, time.Now()))
	f, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A damaged line, a record that is not one, then a torn record.
	if _, err := f.Write([]byte("{\"time\":\x00\x00\n{\"code\":\"ok\"}\n" + string(line[:len(line)/2]))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, st := read(t, dir, Filter{})
	if len(got) != 3 || st.Skipped != 2 || st.Partial != 1 {
		t.Errorf("read %d records, stats %+v; want 3 records, 2 skipped, 1 partial", len(got), st)
	}
	// A writer's next segment is unaffected.
	w2 := open(t, dir, Options{})
	w2.Record(context.Background(), sample(4, time.Now()))
	if got, _ := read(t, dir, Filter{}); len(got) != 4 {
		t.Errorf("read %d records after a new writer's record, want 4", len(got))
	}
}

// oldSegments writes n closed segments of one record each, the k-th's
// record k+1 days old and the segment last modified an hour before it;
// the names are returned oldest first.
func oldSegments(t *testing.T, dir string, n int, now time.Time) []string {
	t.Helper()
	var names []string
	for k := range n {
		w := open(t, dir, Options{})
		w.Record(context.Background(), sample(k, now.Add(-time.Duration(k+1)*24*time.Hour)))
		name := filepath.Base(w.f.Name())
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		mod := now.Add(-time.Duration(k+1)*24*time.Hour - time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), mod, mod); err != nil {
			t.Fatal(err)
		}
		names = append([]string{name}, names...)
	}
	return names
}

func TestRetentionByDays(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	names := oldSegments(t, dir, 6, now) // 6 … 1 days old
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("not a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	open(t, dir, Options{RetentionDays: 3})
	// Segments 6 days and an hour old to 3 days and an hour old go.
	if got, want := segments(t, dir), sorted(names[4:]); !slices.Equal(got, want) {
		t.Errorf("segments after pruning %v, want %v", got, want)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("pruning touched a file that is no segment: %v", err)
	}
	recs, _ := read(t, dir, Filter{})
	for _, r := range recs {
		if r.Time.Before(now.Add(-3 * 24 * time.Hour)) {
			t.Errorf("a record of %v survived a 3-day retention", r.Time)
		}
	}
}

func TestRetentionBySize(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	names := oldSegments(t, dir, 5, now)
	var sizes []int64
	for _, n := range names {
		fi, _ := os.Stat(filepath.Join(dir, n))
		sizes = append(sizes, fi.Size())
	}
	// Room for the two newest segments and half of a third.
	limit := sizes[3] + sizes[4] + sizes[2]/2
	open(t, dir, Options{MaxBytes: limit})
	if got, want := segments(t, dir), sorted(names[3:]); !slices.Equal(got, want) {
		t.Errorf("segments after pruning to %d bytes %v, want %v", limit, got, want)
	}
	// The writer's own segments are pruned too once rotated out.
	w := open(t, dir, Options{MaxBytes: limit})
	w.limit = 1 // every record rotates
	for i := range 20 {
		w.Record(context.Background(), sample(i, time.Now()))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := prune(dir, Options{MaxBytes: limit}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range segments(t, dir) {
		fi, _ := os.Stat(filepath.Join(dir, n))
		total += fi.Size()
	}
	if total > limit {
		t.Errorf("the folder holds %d bytes of segments, beyond %d", total, limit)
	}
}

// TestPruneSparesLiveSegments: a live writer's active segment is never
// deleted, however old its modification time or large the folder; once
// its writer closes, the next prune deletes it.
func TestPruneSparesLiveSegments(t *testing.T) {
	dir := t.TempDir()
	live := open(t, dir, Options{})
	for i := range 50 {
		live.Record(context.Background(), sample(i, time.Now()))
	}
	seg := live.f.Name()
	old := time.Now().Add(-100 * 24 * time.Hour)
	if err := os.Chtimes(seg, old, old); err != nil {
		t.Fatal(err)
	}
	open(t, dir, Options{RetentionDays: 1, MaxBytes: 1}) // prunes at Open
	if err := prune(dir, Options{RetentionDays: 1, MaxBytes: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(seg); err != nil {
		t.Fatalf("pruning deleted a live writer's segment: %v", err)
	}
	live.Record(context.Background(), sample(99, time.Now()))
	if got, _ := read(t, dir, Filter{}); len(got) != 51 {
		t.Errorf("read %d records of the live writer, want 51", len(got))
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(seg, old, old); err != nil {
		t.Fatal(err)
	}
	if err := prune(dir, Options{RetentionDays: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(seg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the closed writer's old segment survived pruning: %v", err)
	}
}

// TestConcurrentPruners: several pruners at once, as several processes
// starting together, delete each old segment once, report no fault and
// keep the rest.
func TestConcurrentPruners(t *testing.T) {
	dir := t.TempDir()
	names := oldSegments(t, dir, 30, time.Now())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- prune(dir, Options{RetentionDays: 10, MaxBytes: 1 << 30}, time.Now()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a concurrent pruner failed: %v", err)
		}
	}
	if got, want := segments(t, dir), sorted(names[21:]); !slices.Equal(got, want) {
		t.Errorf("segments after concurrent pruning %v, want %v", got, want)
	}
}

func TestFilter(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, Options{})
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		r := sample(i, t0.Add(time.Duration(i)*time.Minute))
		r.Account = []string{"acme", "globex"}[i%2]
		r.Action = []string{"read_documentation", "read_documentation", "list_context"}[i%3]
		w.Record(context.Background(), r)
	}
	subjects := func(f Filter) []int {
		recs, _ := read(t, dir, f)
		var out []int
		for _, r := range recs {
			out = append(out, r.CodePoints-100)
		}
		return out
	}
	for _, c := range []struct {
		f    Filter
		want []int
	}{
		{Filter{}, []int{0, 1, 2, 3, 4, 5}},
		{Filter{Since: t0.Add(3 * time.Minute)}, []int{3, 4, 5}},
		{Filter{Since: t0.Add(150 * time.Second)}, []int{3, 4, 5}},
		{Filter{Account: "globex"}, []int{1, 3, 5}},
		{Filter{Action: "list_context"}, []int{2, 5}},
		{Filter{Since: t0.Add(time.Minute), Account: "acme", Action: "read_documentation"}, []int{4}},
		{Filter{Account: "nobody"}, nil},
	} {
		if got := subjects(c.f); !slices.Equal(got, c.want) {
			t.Errorf("filter %+v: records %v, want %v", c.f, got, c.want)
		}
	}
	// A segment last modified before Since is passed over unread.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, st := read(t, dir, Filter{Since: time.Now().Add(time.Hour)}); st.Segments != 0 {
		t.Errorf("read %d segments modified before Since", st.Segments)
	}
	// File times are coarse: a segment whose time is a little behind its
	// last record still gives that record.
	dir2 := t.TempDir()
	w2 := open(t, dir2, Options{})
	at := time.Now()
	w2.Record(context.Background(), sample(1, at))
	behind := at.Add(-2 * time.Second)
	if err := os.Chtimes(w2.f.Name(), behind, behind); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, dir2, Filter{Since: at}); len(got) != 1 {
		t.Errorf("a segment whose time is 2 s behind its record: read %d records since the record's time, want 1", len(got))
	}
}

// TestRotationAtDayChange: a record written after UTC midnight starts a
// new segment named by the new day.
func TestRotationAtDayChange(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, Options{})
	clock := time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC)
	w.now = func() time.Time { return clock }
	w.Record(context.Background(), sample(1, clock))
	w.Record(context.Background(), sample(2, clock))
	clock = clock.Add(2 * time.Second)
	w.Record(context.Background(), sample(3, clock))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names := segments(t, dir)
	if len(names) != 2 || !strings.HasPrefix(names[0], "20261201T235959Z-") || !strings.HasPrefix(names[1], "20261202T000001Z-") {
		t.Fatalf("segments %v, want one of 1 December and one of 2 December", names)
	}
	if got, _ := read(t, dir, Filter{}); len(got) != 3 {
		t.Errorf("read %d records, want 3", len(got))
	}
}

func TestSegmentLimit(t *testing.T) {
	for _, c := range []struct{ max, want int64 }{
		{0, 16 << 20}, {1 << 30, 16 << 20}, {64 << 20, 8 << 20}, {1 << 20, 128 << 10}, {256 << 10, 64 << 10}, {1, 64 << 10},
	} {
		if got := segmentLimit(c.max); got != c.want {
			t.Errorf("segmentLimit(%d) = %d, want %d", c.max, got, c.want)
		}
	}
}

// TestWriteFaults: a writer that cannot write counts every record lost,
// logs the first fault once with the action and code alone, and writes
// again once it can.
func TestWriteFaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	var logs bytes.Buffer
	w := open(t, dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	// The folder becomes a file: no segment can be created.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w.Record(context.Background(), sample(i, time.Now()))
	}
	if w.Lost() != 5 {
		t.Errorf("lost %d records, want 5", w.Lost())
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d error lines for a run of faults, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "action=read_documentation code=ok") || strings.Contains(logs.String(), "docs:cloud:page") {
		t.Errorf("the fault's log line does not name the action and code alone:\n%s", logs.String())
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.Record(context.Background(), sample(7, time.Now()))
	if got, _ := read(t, dir, Filter{}); len(got) != 1 || !strings.Contains(logs.String(), "writing call records again") {
		t.Errorf("after recovery %d records read, logs:\n%s", len(got), logs.String())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Record(context.Background(), sample(8, time.Now()))
	if w.Lost() != 6 {
		t.Errorf("a record after Close: lost %d, want 6", w.Lost())
	}
}

func TestReadAbsentFolder(t *testing.T) {
	if _, _, err := Read(filepath.Join(t.TempDir(), "records"), Filter{}); !errors.Is(err, ErrNoRecords) {
		t.Errorf("Read of an absent folder: %v, want ErrNoRecords", err)
	}
}

func TestOpenRefusesNegativeBounds(t *testing.T) {
	if _, err := Open(t.TempDir(), Options{RetentionDays: -1}); err == nil {
		t.Error("Open accepted a negative retention")
	}
}

// TestHelperWriter is the child process of TestPruneAfterWriterDies: it
// records one call under $RECORDS_HELPER_DIR, says so, and waits to be
// killed.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("RECORDS_HELPER_DIR")
	if dir == "" {
		t.Skip("the child process of TestPruneAfterWriterDies")
	}
	w, err := Open(dir, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(context.Background(), sample(1, time.Now()))
	fmt.Println("recorded")
	time.Sleep(time.Minute)
}

// TestPruneAfterWriterDies: another process's active segment is spared
// while it runs, and its records read; once it is killed, its lock is
// gone and pruning deletes the segment.
func TestPruneAfterWriterDies(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "RECORDS_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "recorded\n" {
		t.Fatalf("the child process said %q (%v)", line, err)
	}
	names := segments(t, dir)
	if len(names) != 1 {
		t.Fatalf("segments %v, want the child's one", names)
	}
	seg := filepath.Join(dir, names[0])
	old := time.Now().Add(-100 * 24 * time.Hour)
	if err := os.Chtimes(seg, old, old); err != nil {
		t.Fatal(err)
	}
	bounds := Options{RetentionDays: 1, MaxBytes: 1}
	if err := prune(dir, bounds, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, dir, Filter{}); len(got) != 1 {
		t.Fatalf("read %d records of the running child, want 1", len(got))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := prune(dir, bounds, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(seg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed process's segment survived pruning: %v", err)
	}
}
