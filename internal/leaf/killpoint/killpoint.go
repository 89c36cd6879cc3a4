// Package killpoint lets the kill tests end a tzctx process with SIGKILL
// at a named point of its work (a phase of an ingest, of a version's
// commit, of an activation), so that every phase is hit by name rather
// than by luck of timing.
//
// It is inert unless the environment variable TZCTX_KILL_AT is set when
// the process starts; no configuration member or flag reaches it. The
// variable holds a point's name, or NAME@N to be killed the N-th time
// the point is reached (the first time where @N is left out).
package killpoint

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Env is the environment variable that names the point to be killed at.
const Env = "TZCTX_KILL_AT"

var (
	point string
	nth   int64 = 1
	seen  atomic.Int64
)

func init() {
	v := os.Getenv(Env)
	if v == "" {
		return
	}
	name, n, ok := strings.Cut(v, "@")
	if ok {
		k, err := strconv.ParseInt(n, 10, 64)
		if err != nil || k < 1 {
			return // a malformed value names no point
		}
		nth = k
	}
	point = name
}

// Reach kills the process with SIGKILL where TZCTX_KILL_AT names this
// point and this is the time it names; otherwise it does nothing.
func Reach(name string) {
	if point == "" || name != point {
		return
	}
	if seen.Add(1) == nth {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // SIGKILL cannot be caught; wait for it to land
	}
}
