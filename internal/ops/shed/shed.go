// Package shed protects a server from overload: a bound on the calls in
// flight, beyond which a call waits a short bounded time and is then shed
// (503, context_unavailable, with Retry-After), and per-caller token
// buckets, beyond which a call is refused rate_limited (429, with
// Retry-After). Guard applies both to a front end's HTTP requests; a
// refusal is written before the front end sees the request, recorded
// through the dispatcher's Refuse and counted by an Observer.
//
// Callers are keyed by the hash prefix of the bearer credential they
// present (tzctx.CredentialPrefix), never the credential itself, and
// anonymous callers by the rule Anonymous names. Neither a key nor a
// caller's words ever reach a detail, a record's subject or a metric
// label.
package shed

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter bounds the calls in flight, and the share of them one caller
// may hold. Beyond its bound a call waits at most the limiter's wait for
// a slot, then is shed; a caller at its share is refused at once, so one
// caller's long calls cannot hold the slots every other caller needs. A
// nil *Limiter bounds nothing.
type Limiter struct {
	slots     chan struct{}
	wait      time.Duration
	perCaller int

	mu   sync.Mutex
	held map[string]int // by caller: the calls holding or waiting for a slot
}

// Errors of Limiter.AcquireFor: which bound was reached.
var (
	// ErrCallerShare is a caller's share of the slots: it holds, or
	// waits for, as many as PerCaller.
	ErrCallerShare = errors.New("shed: the caller holds its share of the call slots")
	// ErrFull is the bound of calls in flight: no slot came free within
	// the limiter's wait.
	ErrFull = errors.New("shed: no call slot came free")
)

// NewLimiter returns a limiter of max calls in flight whose callers wait
// at most wait (0: not at all) for a slot, one caller (AcquireFor)
// holding at most perCaller of them at once (0, or max or more: as many
// as max). max must be positive and perCaller not negative.
func NewLimiter(max int, wait time.Duration, perCaller int) *Limiter {
	if max <= 0 || perCaller < 0 {
		panic("shed: NewLimiter with a bound that is not positive")
	}
	if perCaller == 0 || perCaller > max {
		perCaller = max
	}
	return &Limiter{slots: make(chan struct{}, max), wait: wait, perCaller: perCaller, held: map[string]int{}}
}

// DefaultPerCaller is the share of max slots one caller holds where its
// configuration sets none: a quarter, at least one, so that callers
// other than the busiest three always find slots.
func DefaultPerCaller(slots int) int { return max(1, slots/4) }

// Acquire takes a slot, whoever the caller, waiting at most the limiter's
// wait or until ctx ends. It returns the function that gives the slot
// back, or ok false where no slot came free.
func (l *Limiter) Acquire(ctx context.Context) (release func(), ok bool) {
	if l == nil {
		return func() {}, true
	}
	return l.acquire(ctx)
}

// AcquireFor takes a slot for caller (a key such as the guard's: a
// credential's hash prefix, an anonymous caller's address), as Acquire
// does, unless caller already holds or waits for its share of slots
// (ErrCallerShare, at once, where the share is less than every slot);
// ErrFull where no slot came free. A call
// counts against its caller's share from the moment it asks until it
// gives its slot back (release), which it does once.
func (l *Limiter) AcquireFor(ctx context.Context, caller string) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	if !l.Shared() {
		// A caller may hold every slot: only the bound of all is met.
		if slot, ok := l.acquire(ctx); ok {
			return slot, nil
		}
		return nil, ErrFull
	}
	l.mu.Lock()
	if l.held[caller] >= l.perCaller {
		l.mu.Unlock()
		return nil, ErrCallerShare
	}
	l.held[caller]++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held[caller]--; l.held[caller] <= 0 {
			delete(l.held, caller)
		}
	}
	slot, ok := l.acquire(ctx)
	if !ok {
		leave()
		return nil, ErrFull
	}
	return sync.OnceFunc(func() { slot(); leave() }), nil
}

func (l *Limiter) acquire(ctx context.Context) (release func(), ok bool) {
	select {
	case l.slots <- struct{}{}:
		return l.release, true
	default:
	}
	if l.wait <= 0 {
		return nil, false
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return l.release, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

func (l *Limiter) release() { <-l.slots }

// InFlight is the number of slots taken.
func (l *Limiter) InFlight() int {
	if l == nil {
		return 0
	}
	return len(l.slots)
}

// Max is the bound of calls in flight; 0 for a nil limiter.
func (l *Limiter) Max() int {
	if l == nil {
		return 0
	}
	return cap(l.slots)
}

// PerCaller is the share of the slots one caller may hold at once; 0
// for a nil limiter.
func (l *Limiter) PerCaller() int {
	if l == nil {
		return 0
	}
	return l.perCaller
}

// Shared reports whether one caller may hold fewer slots than all.
func (l *Limiter) Shared() bool { return l != nil && l.perCaller < cap(l.slots) }

// DefaultMaxBuckets is the default bound of the buckets Buckets keeps:
// to have a caller never seen before refused, every kept bucket must be
// short of full, which takes this many addresses (or credentials), each
// sending about per_second calls a second. A bucket costs about 210
// bytes, 2 MiB for the 10000.
const DefaultMaxBuckets = 10000

// Buckets are token buckets, one per key, of one rate and burst. At most
// max are kept. A new key beyond the bound takes the place of a bucket
// that has refilled (is full again, and so no different from a new one):
// the one that refilled first. Where none has, no spent bucket is
// forgotten, and the new key draws on one overflow bucket shared by every
// key that finds the bound full, so churning keys cannot reset a caller's
// limit. A nil *Buckets allows every call.
type Buckets struct {
	limit rate.Limit
	burst int
	max   int

	mu       sync.Mutex
	m        map[string]*bucket
	full     fullHeap // the kept buckets, the soonest full first
	overflow *rate.Limiter
}

type bucket struct {
	key string
	lim *rate.Limiter
	// fullAt is when the bucket is full again if it is not used before.
	fullAt time.Time
	index  int // in the heap
}

// fullHeap orders buckets by the time they are full again.
type fullHeap []*bucket

func (h fullHeap) Len() int           { return len(h) }
func (h fullHeap) Less(i, j int) bool { return h[i].fullAt.Before(h[j].fullAt) }
func (h fullHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *fullHeap) Push(x any) {
	b := x.(*bucket)
	b.index = len(*h)
	*h = append(*h, b)
}
func (h *fullHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return b
}

// NewBuckets returns buckets refilling perSecond tokens a second up to
// burst, keeping at most max of them (0: DefaultMaxBuckets). perSecond and
// burst must be positive.
func NewBuckets(perSecond float64, burst, max int) *Buckets {
	if !(perSecond > 0) || burst <= 0 {
		panic("shed: NewBuckets with a rate or burst that is not positive")
	}
	if max <= 0 {
		max = DefaultMaxBuckets
	}
	return &Buckets{limit: rate.Limit(perSecond), burst: burst, max: max, m: map[string]*bucket{}}
}

// Allow takes a token from key's bucket at now. Where none is left it
// takes none and returns false and the time until one will be.
func (b *Buckets) Allow(key string, now time.Time) (ok bool, retry time.Duration) {
	if b == nil {
		return true, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	bk, found := b.m[key]
	if !found && len(b.full) >= b.max {
		first := b.full[0]
		if first.fullAt.After(now) {
			// Every kept bucket is short of full: keep them all, and let
			// the new key share the overflow bucket.
			if b.overflow == nil {
				b.overflow = rate.NewLimiter(b.limit, b.burst)
			}
			return b.take(b.overflow, now)
		}
		// The first bucket to refill has: forgetting it loses nothing.
		heap.Pop(&b.full)
		delete(b.m, first.key)
	}
	if !found {
		bk = &bucket{key: key, lim: rate.NewLimiter(b.limit, b.burst)}
		b.m[key] = bk
		heap.Push(&b.full, bk)
	}
	ok, retry = b.take(bk.lim, now)
	// Tokens refill at limit a second up to burst.
	missing := float64(b.burst) - bk.lim.TokensAt(now)
	bk.fullAt = now.Add(time.Duration(math.Ceil(missing / float64(b.limit) * float64(time.Second))))
	heap.Fix(&b.full, bk.index)
	return ok, retry
}

// take takes a token from lim at now, or returns the time until one will
// be.
func (b *Buckets) take(lim *rate.Limiter, now time.Time) (bool, time.Duration) {
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now)
	return false, time.Duration(math.Ceil(missing / float64(b.limit) * float64(time.Second)))
}

// Len is the number of buckets kept.
func (b *Buckets) Len() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.full)
}

// PerSecond and Burst are the buckets' rate and burst.
func (b *Buckets) PerSecond() float64 { return float64(b.limit) }

// Burst is the tokens a full bucket holds.
func (b *Buckets) Burst() int { return b.burst }
