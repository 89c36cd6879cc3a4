package server

import (
	"io"
	"sync"
)

// LineWriter writes log lines to an io.Writer in batches: Write appends
// the line to a buffer and wakes a writer goroutine, which writes all
// that has gathered with one write. An idle server's line is written at
// once (the goroutine wakes for it); under load, the lines of many calls
// share one write(2) instead of one each. Lines keep their order. Where
// more than maxPending bytes wait (the destination is slower than the
// lines), Write waits for them to be written, so memory stays bounded.
// Close writes what is left; a Write after Close writes at once.
type LineWriter struct {
	w io.Writer

	mu      sync.Mutex
	pending []byte
	closed  bool
	drained *sync.Cond // signalled when pending is taken

	out  sync.Mutex // held while writing to w, so writes keep their order
	kick chan struct{}
	done chan struct{}
}

// maxPending bounds the bytes of lines waiting to be written.
const maxPending = 1 << 20

// NewLineWriter returns a LineWriter of w and starts its goroutine;
// Close stops it.
func NewLineWriter(w io.Writer) *LineWriter {
	lw := &LineWriter{w: w, kick: make(chan struct{}, 1), done: make(chan struct{})}
	lw.drained = sync.NewCond(&lw.mu)
	go lw.loop()
	return lw
}

// Write implements io.Writer: it queues p, one log line, and returns.
func (lw *LineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	for len(lw.pending) > maxPending && !lw.closed {
		lw.drained.Wait()
	}
	if lw.closed {
		lw.mu.Unlock()
		lw.out.Lock()
		defer lw.out.Unlock()
		return lw.w.Write(p)
	}
	lw.pending = append(lw.pending, p...)
	// Under the lock, so that Close, which closes kick once it has set
	// closed under it, never closes it before this send.
	select {
	case lw.kick <- struct{}{}:
	default:
	}
	lw.mu.Unlock()
	return len(p), nil
}

// loop writes what is pending each time a line arrives, until Close,
// which writes the rest itself.
func (lw *LineWriter) loop() {
	defer close(lw.done)
	var spare []byte
	for range lw.kick {
		spare = lw.flush(spare)
	}
}

// flush writes what is pending, using spare as the next buffer, and
// returns the buffer it wrote (emptied) as the next spare.
func (lw *LineWriter) flush(spare []byte) []byte {
	lw.out.Lock()
	defer lw.out.Unlock()
	lw.mu.Lock()
	buf := lw.pending
	lw.pending = spare[:0]
	lw.drained.Broadcast()
	lw.mu.Unlock()
	if len(buf) > 0 {
		_, _ = lw.w.Write(buf)
	}
	if cap(buf) > maxPending {
		return nil
	}
	return buf[:0]
}

// Close writes the lines still pending and stops the goroutine; later
// lines are written at once.
func (lw *LineWriter) Close() error {
	lw.out.Lock()
	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		lw.out.Unlock()
		return nil
	}
	lw.closed = true
	buf := lw.pending
	lw.pending = nil
	lw.drained.Broadcast()
	lw.mu.Unlock()
	var err error
	if len(buf) > 0 {
		_, err = lw.w.Write(buf)
	}
	lw.out.Unlock()
	close(lw.kick)
	<-lw.done
	return err
}
