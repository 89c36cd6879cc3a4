package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/turnzerocloud/tzctx/store"
)

// startWatch runs watch in a goroutine and returns the function that
// stops it and waits for it to end, which must run before st closes.
func startWatch(ctx context.Context, st *store.Store, every time.Duration, recheck <-chan struct{}, log *slog.Logger, changed func()) (stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		watch(wctx, st, every, recheck, log, changed)
	}()
	return func() {
		cancel()
		<-done
	}
}

// watch picks up activations: it checks the pointer every interval and
// at once when asked to recheck (SIGHUP), and calls changed, where set,
// once the served version has changed.
func watch(ctx context.Context, st *store.Store, every time.Duration, recheck <-chan struct{}, log *slog.Logger, changed func()) {
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// A refused version is logged once, not at every tick.
	logged := ""
	if h := st.Health(); h.Fault != nil {
		logged = h.Fault.Error()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-recheck:
			st.Recheck()
			logged = ""
		}
		switched, err := st.Refresh(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if err.Error() != logged {
				logged = err.Error()
				log.Error("activation", "error", logged)
			}
			continue
		}
		logged = ""
		if switched {
			if v, err := st.Acquire(); err == nil {
				log.Info("serving version", "version", v.Name())
				v.Release()
			}
			if changed != nil {
				changed()
			}
		}
	}
}
