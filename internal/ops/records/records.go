// Package records keeps the dispatcher's call records on disk, under a
// data directory's records folder, for as long as the configured bounds
// allow, and reads them back.
//
// Several processes serve one data directory at once (a server and any
// number of stdio MCP processes), so the design avoids every
// cross-process coordination on the write path: each process appends to
// segment files of its own, named
// <UTC creation time>-<pid>-<random>-<seq>.jsonl, one JSON object per
// line. A record is marshalled first and then written with one write(2)
// on a file opened with O_APPEND, before Record returns; the dispatcher
// records a call before it writes the answer, so every call answered
// before a SIGKILL is in the page cache, which the kernel writes out
// whatever becomes of the process. Records are not synced one by one
// (a process kill loses nothing the kernel holds); a segment is synced
// when it is rotated out and when the writer closes.
//
// A writer rotates its segment at a size and at a UTC day change, and
// holds a shared flock on the segment it appends to. Pruning, which any
// process runs at Open, after each rotation and once a minute, deletes
// only segments it can lock exclusively: never a live writer's active
// segment, while a dead process's lock died with it. It deletes every
// segment older than the retention, then the oldest segments until the
// folder is within its size bound. A segment's age is its modification
// time against the writer's clock, which never runs ahead of the wall
// clock at Open plus the monotonic time since: a forward jump of the wall
// clock drops nothing early, a backward one keeps segments longer. Pruners in several processes may race:
// a segment vanishing under one is taken as deleted.
//
// Read merges every segment, orders the records by time, and skips,
// counting them, lines that do not parse, such as the torn last line a
// machine crash can leave; it takes no lock, so it reads while writers
// run. A record holds the fields of tzctx.Record alone, which never
// hold a query's words; the on-disk form adds nothing but the duration.
package records

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// Options bound the records kept under a folder; zero means no bound.
type Options struct {
	// RetentionDays drops segments last written more than this many days
	// ago.
	RetentionDays int
	// MaxBytes drops the oldest segments while the folder holds more.
	MaxBytes int64
	// Logger receives the writer's faults; nil is slog.Default().
	Logger *slog.Logger
}

// Segment sizes: a writer rotates its segment once it holds
// min(MaxBytes/8, maxSegment) bytes, and never below minSegment.
const (
	maxSegment = 16 << 20
	minSegment = 64 << 10
)

// pruneEvery is how often a writer prunes beside its rotations.
const pruneEvery = time.Minute

// ErrClosed is the error of a record offered to a closed writer, which
// Lost counts.
var ErrClosed = errors.New("the records writer is closed")

// Writer appends the records of one process to its own segments. It is
// safe for concurrent use.
type Writer struct {
	dir    string
	opts   Options
	log    *slog.Logger
	limit  int64  // segment size that triggers a rotation
	prefix string // "-<pid>-<random>-" of this writer's segment names
	now    func() time.Time
	// opened is the wall clock at Open, and since the time elapsed from
	// then on the monotonic clock: pruneTime bounds now by them.
	opened time.Time
	since  func() time.Duration

	mu      sync.Mutex
	f       *os.File // the active segment, nil before the first record
	size    int64    // bytes in the active segment
	dayEnd  time.Time
	seq     int
	retryAt time.Time  // no new segment is tried before this after a failure
	retired []*os.File // rotated out, to be synced and closed
	lost    int64
	failing bool
	closed  bool

	kick chan struct{}
	done chan struct{}
	bg   sync.WaitGroup
}

var _ tzctx.Recorder = (*Writer)(nil)

// Open returns a writer of segments under dir, creating dir (0o700)
// where it is missing, and prunes dir once before it returns.
func Open(dir string, opts Options) (*Writer, error) {
	if opts.RetentionDays < 0 || opts.MaxBytes < 0 {
		return nil, fmt.Errorf("records bounds must not be negative (retention %d days, %d bytes); give 0 for no bound", opts.RetentionDays, opts.MaxBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil && !errors.Is(err, syscall.EROFS) {
		return nil, fmt.Errorf("create the records folder: %w", err)
	}
	// On a read-only file system (a read-only replica's data directory)
	// the writer opens all the same: its records cannot be written, which
	// the first of them logs, and every one counts as lost.
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	opened := time.Now()
	w := &Writer{
		dir:    dir,
		opts:   opts,
		log:    opts.Logger,
		limit:  segmentLimit(opts.MaxBytes),
		prefix: fmt.Sprintf("-%d-%s-", os.Getpid(), hex.EncodeToString(rnd[:])),
		now:    time.Now,
		opened: opened.Round(0),
		since:  func() time.Duration { return time.Since(opened) },
		kick:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	if err := prune(dir, opts, w.now()); err != nil {
		w.log.Warn("records: prune", "dir", dir, "error", err.Error())
	}
	w.bg.Go(w.loop)
	return w, nil
}

// segmentLimit is the size at which a segment is rotated under a folder
// bound of maxBytes.
func segmentLimit(maxBytes int64) int64 {
	l := int64(maxSegment)
	if maxBytes > 0 {
		l = min(maxBytes/8, l)
	}
	return max(l, minSegment)
}

// Record implements tzctx.Recorder: it appends rec to the active
// segment with one write before it returns. A fault is logged once, with
// the record's action and code alone, and counted (see Lost); it never
// reaches the caller.
func (w *Writer) Record(_ context.Context, rec tzctx.Record) {
	line, err := Marshal(rec)
	if err != nil {
		w.mu.Lock()
		w.failLocked(rec, err)
		w.mu.Unlock()
		return
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		w.failLocked(rec, ErrClosed)
		return
	}
	now := w.now()
	if w.f == nil || !now.Before(w.dayEnd) || (w.size > 0 && w.size+int64(len(line)) > w.limit) {
		if err := w.rotateLocked(now); err != nil && w.f == nil {
			w.failLocked(rec, err)
			return
		}
	}
	// One write(2): os.File loops only on a short write, which a regular
	// file gives only when the disk fills.
	n, err := w.f.Write(line)
	if err != nil {
		if n > 0 {
			// Cut the torn line off, so the next record starts a line.
			if terr := w.f.Truncate(w.size); terr != nil {
				w.retireLocked() // the next record starts a new segment
			}
		}
		w.failLocked(rec, err)
		return
	}
	w.size += int64(n)
	if w.failing {
		w.failing = false
		w.log.Warn("records: writing call records again", "dir", w.dir, "lost", w.lost)
	}
}

// failLocked counts a record not written and logs the first fault of a
// run of them.
func (w *Writer) failLocked(rec tzctx.Record, err error) {
	w.lost++
	if w.failing {
		return
	}
	w.failing = true
	w.log.Error("records: a call record was not written; later faults are counted, not logged, until writing recovers",
		"dir", w.dir, "action", rec.Action, "code", rec.Code, "error", err.Error())
}

// Lost returns how many records this writer failed to write.
func (w *Writer) Lost() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost
}

// rotateLocked starts a new segment and retires the active one. Where no
// segment can be created, the active one, if any, stays in use and a new
// one is tried again a second later.
func (w *Writer) rotateLocked(now time.Time) error {
	if w.f != nil && now.Before(w.retryAt) {
		return nil
	}
	f, err := w.createLocked(now)
	if err != nil {
		w.retryAt = now.Add(time.Second)
		return err
	}
	w.retireLocked()
	w.f, w.size = f, 0
	y, m, d := now.UTC().Date()
	w.dayEnd = time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
	return nil
}

// retireLocked hands the active segment to the background loop, which
// syncs and closes it and then prunes.
func (w *Writer) retireLocked() {
	if w.f == nil {
		return
	}
	w.retired = append(w.retired, w.f)
	w.f, w.size = nil, 0
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// createLocked creates and share-locks a new segment. A pruner may lock a
// new file exclusively before its writer locks it, and delete it; the
// writer then sees the lock refused, or its path gone, and tries another
// name.
func (w *Writer) createLocked(now time.Time) (*os.File, error) {
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the records folder: %w", err)
	}
	var last error
	for range 3 {
		w.seq++
		name := now.UTC().Format(nameTime) + w.prefix + fmt.Sprintf("%06d", w.seq) + segmentExt
		path := filepath.Join(w.dir, name)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create a records segment: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
			f.Close()
			last = fmt.Errorf("lock records segment %s: %w", name, err)
			continue
		}
		if same, err := namesFile(path, f); err != nil || !same {
			f.Close()
			last = fmt.Errorf("records segment %s was removed as it was created", name)
			continue
		}
		return f, nil
	}
	return nil, last
}

// namesFile reports whether path still names the open file f.
func namesFile(path string, f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// loop syncs and closes retired segments and prunes, after each rotation
// and every pruneEvery, until the writer closes.
func (w *Writer) loop() {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			w.closeRetired()
			return
		case <-w.kick:
			w.closeRetired()
		case <-t.C:
		}
		w.prune()
	}
}

// prune prunes the folder at pruneTime, logging a fault.
func (w *Writer) prune() {
	if err := prune(w.dir, w.opts, w.pruneTime()); err != nil {
		w.log.Warn("records: prune", "dir", w.dir, "error", err.Error())
	}
}

// pruneTime is the time retention is judged at: the wall clock, but
// never ahead of the wall clock at Open plus the time elapsed since on
// the monotonic clock. A forward jump of the wall clock during the
// writer's life so drops no segment that its true age keeps, and a
// backward jump only keeps segments longer.
func (w *Writer) pruneTime() time.Time {
	now := w.now()
	if bound := w.opened.Add(w.since()); now.After(bound) {
		return bound
	}
	return now
}

// closeRetired syncs and closes the segments rotated out, which releases
// their locks.
func (w *Writer) closeRetired() {
	w.mu.Lock()
	fs := w.retired
	w.retired = nil
	w.mu.Unlock()
	for _, f := range fs {
		if err := syncClose(f); err != nil {
			w.log.Warn("records: close a rotated segment", "dir", w.dir, "error", err.Error())
		}
	}
}

func syncClose(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close syncs and closes the writer's segments and stops its pruning. A
// record offered after Close is counted as lost. It returns the first
// fault of the active segment's sync or close.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	f := w.f
	w.f = nil
	lost := w.lost
	w.mu.Unlock()
	close(w.done)
	w.bg.Wait()
	// The segment is synced before the count is logged: a process whose
	// log output is gone (a stdio MCP client that closed its stderr) may
	// die of the write.
	var err error
	if f != nil {
		if err = syncClose(f); err != nil {
			err = fmt.Errorf("close the records segment: %w", err)
		}
	}
	if lost > 0 {
		w.log.Warn("records: call records were lost", "dir", w.dir, "lost", lost)
	}
	return err
}
