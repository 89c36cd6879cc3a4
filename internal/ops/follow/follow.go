// Package follow keeps a server's data directory on the version an
// object store's pointer names: it polls the pointer, and when it
// changes downloads the archive it names, checks it, imports it, and
// activates it, so that the server warms it and swaps it in. It keeps the
// last versions it took and deletes older ones.
//
// Faults never stop the server: while the store is unreachable or stalls,
// or an archive fails its checks, the server goes on serving what it has,
// the fault is reported by Status, and polls back off up to MaxBackoff.
// No poll waits on the store for good: each request to it has a deadline,
// and a download one on the time it may go without receiving a byte.
package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/store"
)

// Options configure a Follower.
type Options struct {
	// Interval is the time between polls of the pointer (default 5 s).
	Interval time.Duration
	// MaxBackoff bounds the wait after failed polls (default 1 min).
	MaxBackoff time.Duration
	// Keep is how many versions taken from the store are kept, the active
	// one included (default 3).
	Keep int
	// RequestTimeout bounds each small request to the store, the pointer
	// included (default objstore.DefaultRequestTimeout); StallTimeout
	// bounds the time an archive download may go without receiving a
	// byte (default objstore.DefaultStallTimeout). A request or download
	// that exceeds its bound fails the poll, which Status reports.
	RequestTimeout, StallTimeout time.Duration
	// MaxVersionBytes bounds the total size of a version taken, as its
	// archive's manifest declares it (default
	// store.DefaultMaxVersionBytes).
	MaxVersionBytes int64
	// Activated, where set, is called after a version is activated.
	Activated func(name string)
}

// Status is what a Follower reports.
type Status struct {
	// Location is the followed s3:// URL.
	Location string
	// Fault is the last poll's fault, nil where it succeeded.
	Fault error
	// LastSuccess is when a poll last succeeded; zero before the first.
	LastSuccess time.Time
	// Failures counts the polls that failed.
	Failures int64
	// Taken counts the versions downloaded and imported.
	Taken int64
}

// Follower follows one location into one store.
type Follower struct {
	c    *objstore.Client
	st   *store.Store
	log  *slog.Logger
	opts Options

	etag string // of the pointer last acted on
	last string // the version last taken

	mu     sync.Mutex
	status Status
}

// New returns a follower of c's location into st. It sets c's timeouts
// to opts'.
func New(c *objstore.Client, st *store.Store, log *slog.Logger, opts Options) *Follower {
	c.SetTimeouts(opts.RequestTimeout, opts.StallTimeout)
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	if opts.Keep <= 0 {
		opts.Keep = 3
	}
	return &Follower{c: c, st: st, log: log, opts: opts, status: Status{Location: c.Location().String()}}
}

// Status returns the follower's state.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

// Run polls until ctx ends: at once, then every Interval, backing off
// after failures.
func (f *Follower) Run(ctx context.Context) {
	failures := 0
	for {
		err := f.Poll(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := f.opts.Interval
		f.mu.Lock()
		if err != nil {
			failures++
			f.status.Failures++
			if f.status.Fault == nil || f.status.Fault.Error() != err.Error() {
				f.log.Error("follow", "location", f.status.Location, "error", err.Error())
			}
			f.status.Fault = err
			for i := 1; i < failures && wait < f.opts.MaxBackoff; i++ {
				wait *= 2
			}
			wait = min(wait, f.opts.MaxBackoff)
		} else {
			if f.status.Fault != nil {
				f.log.Info("follow recovered", "location", f.status.Location)
			}
			failures = 0
			f.status.Fault = nil
			f.status.LastSuccess = time.Now()
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// ErrNothingPublished is the fault of a poll that finds no pointer: the
// server waits for the first version.
var ErrNothingPublished = errors.New("no version is published at the followed location yet")

// Poll reads the pointer once and, where it names another version than
// the one last taken, takes that version.
func (f *Follower) Poll(ctx context.Context) error {
	p, etag, changed, err := f.c.Active(ctx, f.etag)
	if errors.Is(err, objstore.ErrNoPointer) {
		return ErrNothingPublished
	}
	if err != nil {
		return err
	}
	if !changed {
		// Pruning waits for the watcher to serve the new version, so it
		// runs at every poll, not only at a change.
		f.prune()
		return nil
	}
	if err := store.ValidName(p.Version); err != nil {
		return fmt.Errorf("the pointer names %w", err)
	}
	if _, err := f.st.Lookup(p.Version); err != nil || f.st.Verify(ctx, p.Version) != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A damaged copy stands in the way of a good one: it goes,
		// unless it is what is served (then an operator decides).
		if (err == nil || errors.Is(err, store.ErrDamaged)) && !f.served(p.Version) {
			if derr := f.st.Delete(p.Version); derr != nil {
				return fmt.Errorf("remove the damaged copy of %s: %w", p.Version, derr)
			}
			f.log.Warn("follow: removed a damaged copy to take it again", "version", p.Version)
		}
		if err := f.take(ctx, p); err != nil {
			return err
		}
	}
	// The server's watcher swaps the version in, warmed, at its next
	// check, and tells MCP clients the lists changed.
	if active, _ := f.st.ActiveName(); active != p.Version {
		killpoint.Reach("follow.imported")
		if err := f.st.Activate(ctx, p.Version); err != nil {
			return fmt.Errorf("activate %s: %w", p.Version, err)
		}
	}
	if p.Version != f.last {
		f.log.Info("following", "version", p.Version, "location", f.c.Location().String())
		f.last = p.Version
	}
	if f.opts.Activated != nil {
		f.opts.Activated(p.Version)
	}
	f.etag = etag
	f.prune()
	return nil
}

// take downloads the archive p names into the data directory's downloads
// folder, checks it against p, and imports it.
func (f *Follower) take(ctx context.Context, p objstore.Pointer) error {
	dir := filepath.Join(f.st.Dir(), "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The archive and the version it unpacks to must both fit.
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err == nil {
		if free := int64(fs.Bavail) * int64(fs.Bsize); p.Size > free/2 {
			return fmt.Errorf("archive %s is %d bytes; %s has %d bytes free, too few for it and its version", p.Archive, p.Size, f.st.Dir(), free)
		}
	}
	file, err := os.CreateTemp(dir, "archive-*")
	if err != nil {
		return err
	}
	defer func() {
		file.Close()
		os.Remove(file.Name())
	}()
	if err := f.c.GetArchive(ctx, p, file); err != nil {
		return err
	}
	killpoint.Reach("follow.downloaded")
	if _, err := file.Seek(0, 0); err != nil {
		return err
	}
	res, err := f.st.Import(ctx, file, store.ImportOptions{MaxVersionBytes: f.opts.MaxVersionBytes})
	if err != nil {
		return fmt.Errorf("import %s: %w", p.Archive, err)
	}
	if res.Name != p.Version {
		if !res.Present && !f.served(res.Name) {
			_ = f.st.Delete(res.Name)
		}
		return fmt.Errorf("archive %s holds version %s, the pointer names %s", p.Archive, res.Name, p.Version)
	}
	f.mu.Lock()
	f.status.Taken++
	f.mu.Unlock()
	return nil
}

// prune deletes the stored versions beyond the newest Keep, by creation
// time, never the active one.
func (f *Follower) prune() {
	ms, err := f.st.List()
	if err != nil {
		return
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Created.After(ms[j].Created) })
	kept := 0
	for _, m := range ms {
		// The active version and the one served (until the watcher has
		// swapped the new one in) are never deleted, nor counted.
		if f.served(m.Name) {
			continue
		}
		if kept < f.opts.Keep-1 {
			kept++
			continue
		}
		if err := f.st.Delete(m.Name); err != nil {
			f.log.Warn("follow prune", "version", m.Name, "error", err.Error())
		}
	}
}

// served reports whether name is the active version or the one served.
func (f *Follower) served(name string) bool {
	active, _ := f.st.ActiveName()
	return name == active || name == f.st.Health().Serving
}

// CleanDownloads removes what interrupted downloads left in dataDir.
func CleanDownloads(dataDir string) {
	os.RemoveAll(filepath.Join(dataDir, "downloads"))
}
