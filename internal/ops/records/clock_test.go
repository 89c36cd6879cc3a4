package records

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// fakeClock is a wall clock a test sets, safe for the writer's
// background loop to read.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) set(t time.Time) { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) now() time.Time  { return time.Unix(0, c.ns.Load()) }

// TestClockJumpOrder: records written across a backward and a forward
// jump of the clock are all read back, ordered by the time each call
// began as the clock read it then (records of one time in write order),
// and a Since filter selects by those times.
func TestClockJumpOrder(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, Options{RetentionDays: 30})
	var clock fakeClock
	w.now = clock.now
	t0 := time.Now().Truncate(time.Second)
	var written []tzctx.Record
	rec := func(i int, at time.Time) {
		clock.set(at)
		r := sample(i, at)
		w.Record(context.Background(), r)
		written = append(written, r)
	}
	rec(0, t0)
	rec(1, t0.Add(time.Second))
	rec(2, t0.Add(-time.Hour)) // the clock jumps an hour back
	rec(3, t0.Add(-time.Hour))
	rec(4, t0.Add(48*time.Hour)) // and two days ahead: a new segment
	rec(5, t0.Add(2*time.Second))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(segments(t, dir)); n < 2 {
		t.Errorf("%d segments; the jump past the day's end should have started another", n)
	}
	got, st := read(t, dir, Filter{})
	want := slices.Clone(written)
	slices.SortStableFunc(want, func(a, b tzctx.Record) int { return a.Time.Compare(b.Time) })
	if len(got) != len(want) || st.Skipped+st.Partial != 0 {
		t.Fatalf("read %d records (%+v), want %d", len(got), st, len(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Errorf("record %d is %s at %v, want %s at %v", i, got[i].Subject, got[i].Time, want[i].Subject, want[i].Time)
		}
	}
	since, _ := read(t, dir, Filter{Since: t0})
	if len(since) != 4 {
		t.Errorf("since %v: %d records, want the 4 the clock dated then or later", t0, len(since))
	}
}

// TestRetentionAcrossClockJump: the clock jumps three days ahead and then
// back, with a retention of one day. The records written before the jump,
// during it (their segment dated ahead, as the file system dates it) and
// after it are all kept, while a segment really two days old goes.
func TestRetentionAcrossClockJump(t *testing.T) {
	dir := t.TempDir()
	real := time.Now()
	oldSegments(t, dir, 2, real) // a day and an hour, two days and an hour old
	w := open(t, dir, Options{RetentionDays: 1})
	if names := segments(t, dir); len(names) != 0 {
		t.Fatalf("segments after Open %v: want the old ones gone", names)
	}
	var clock fakeClock
	clock.set(real)
	w.now = clock.now
	for i := range 3 {
		w.Record(context.Background(), sample(i, real))
	}
	before := w.f.Name()

	clock.set(real.Add(72 * time.Hour))
	w.Record(context.Background(), sample(3, clock.now())) // a new segment: the day changed
	during := w.f.Name()
	if during == before {
		t.Fatal("the jump did not start a new segment")
	}
	w.closeRetired()
	w.prune()
	if _, err := os.Stat(before); err != nil {
		t.Fatalf("a forward jump of the clock pruned the segment written a moment before: %v", err)
	}
	ahead := clock.now()

	clock.set(real.Add(time.Second))
	w.Record(context.Background(), sample(4, clock.now()))
	// The file system dated the segment by the clock that jumped.
	if err := os.Chtimes(during, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	w.prune()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := read(t, dir, Filter{})
	if len(got) != 5 {
		t.Errorf("read %d records after the jumps, want the 5 written", len(got))
	}
	for _, p := range []string{before, during} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("segment %s is gone: %v", p, err)
		}
	}
	// Judged at a clock that runs true, the retention still applies: a
	// writer opened two days on prunes the segments of today.
	w2 := open(t, dir, Options{RetentionDays: 1})
	w2.now = func() time.Time { return real.Add(48 * time.Hour) }
	w2.opened = real.Add(48 * time.Hour)
	w2.prune()
	names := segments(t, dir)
	if slices.Contains(names, filepath.Base(before)) || !slices.Contains(names, filepath.Base(during)) {
		t.Errorf("two days on, segments %v: want today's %s gone and the one dated ahead kept", names, filepath.Base(before))
	}
}
