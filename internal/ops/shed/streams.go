package shed

import (
	"context"
	"errors"
	"sync"
)

// A request that turns into a long-lived stream (an MCP listening
// stream) must not hold a call slot for its whole life: the front end
// calls Detach once it knows, and the guard gives the slot, and the
// bytes of its body counted against the buffer budget, back at once.
// The stream is then bounded by a Counter of the front end's own.

type detachKey struct{}

// withDetach returns ctx carrying the function that gives a request's
// slot back.
func withDetach(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, detachKey{}, f)
}

// Detach gives back, at once, the call slot and the body budget that the
// guard took for the request of ctx, for a request that has become a
// long-lived stream; the guard's own release at the request's end is
// then a no-op. It reports whether a slot was held; a request the guard
// did not take a slot for is left as it is.
func Detach(ctx context.Context) bool {
	f, _ := ctx.Value(detachKey{}).(func())
	if f == nil {
		return false
	}
	f()
	return true
}

// Errors of Counter.Take: which bound was reached.
var (
	// ErrPerKey is the bound of one key's holdings.
	ErrPerKey = errors.New("shed: the key holds as many as its bound")
	// ErrTotal is the bound of all keys' holdings together.
	ErrTotal = errors.New("shed: as many are held as the total bound")
	// ErrAnonymousTotal is the bound of anonymous callers' holdings
	// together (Counter.AnonymousTotal).
	ErrAnonymousTotal = errors.New("shed: anonymous callers hold as many as their share of the total bound")
)

// Counter bounds what is held at once, per key and in all: the open
// streams, or the sessions, of the callers of a front end, each caller a
// key (a credential's, or an anonymous caller's address). A nil *Counter
// bounds nothing.
type Counter struct {
	perKey, total int

	mu   sync.Mutex
	n    int
	anon int // holdings of anonymous callers, among n
	by   map[string]int
}

// NewCounter returns a counter of at most perKey holdings a key and total
// in all. Both must be positive.
func NewCounter(perKey, total int) *Counter {
	if perKey <= 0 || total <= 0 {
		panic("shed: NewCounter with a bound that is not positive")
	}
	return &Counter{perKey: perKey, total: total, by: map[string]int{}}
}

// Take counts one holding of key. It returns the function that gives it
// back (once; later calls do nothing), or ErrPerKey or ErrTotal where a
// bound is reached; the key's bound is checked first, so a caller at its
// own bound is told so even when the server is full too.
func (c *Counter) Take(key string) (release func(), err error) {
	return c.take(key, false)
}

// TakeAnonymous is Take for an anonymous caller's key: anonymous callers
// together hold at most AnonymousTotal, so that callers who present a
// credential find room however many addresses an anonymous flood comes
// from; past it the error is ErrAnonymousTotal.
func (c *Counter) TakeAnonymous(key string) (release func(), err error) {
	return c.take(key, true)
}

func (c *Counter) take(key string, anonymous bool) (release func(), err error) {
	if c == nil {
		return func() {}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by[key] >= c.perKey {
		return nil, ErrPerKey
	}
	if c.n >= c.total {
		return nil, ErrTotal
	}
	if anonymous && c.anon >= c.AnonymousTotal() {
		return nil, ErrAnonymousTotal
	}
	c.n++
	c.by[key]++
	if anonymous {
		c.anon++
	}
	return sync.OnceFunc(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n--
		if anonymous {
			c.anon--
		}
		if c.by[key]--; c.by[key] <= 0 {
			delete(c.by, key)
		}
	}), nil
}

// AnonymousTotal is the bound of anonymous callers' holdings together:
// the total less a quarter of it (rounded down), which is kept for
// callers who present a credential.
func (c *Counter) AnonymousTotal() int { return c.total - c.total/4 }

// Len is the number of holdings counted.
func (c *Counter) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// PerKey is the bound of one key's holdings.
func (c *Counter) PerKey() int { return c.perKey }

// Total is the bound of all holdings.
func (c *Counter) Total() int { return c.total }
