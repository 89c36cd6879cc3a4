package shed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
)

// Anonymous rules: how callers without a bearer credential are keyed.
const (
	// PerAddress gives each remote IP address its own bucket.
	PerAddress = "per_address"
	// Shared gives all anonymous callers one bucket.
	Shared = "shared"
	// Unlimited leaves anonymous callers out of the rate limit.
	Unlimited = "unlimited"
)

// ValidAnonymous reports whether rule is one of the anonymous rules.
func ValidAnonymous(rule string) bool {
	return rule == PerAddress || rule == Shared || rule == Unlimited
}

// Observer counts what a guard refuses; *metering.Meter is one.
type Observer interface {
	Shed(surface string)
	RateLimited(surface string)
}

// Refuser records a call refused before its front end saw it; the
// dispatcher the server wires in is one.
type Refuser interface {
	Refuse(ctx context.Context, name string, err error) error
}

// Guard applies a limiter and buckets to the requests of front ends. Its
// zero value, or a nil *Guard, passes every request on.
type Guard struct {
	// Limiter bounds the requests in flight of every front end the
	// guard wraps, and the share of them one caller holds (keyed as
	// the rate limit keys callers, but that the Unlimited rule keys
	// anonymous callers by address too); nil bounds none.
	Limiter *Limiter
	// Buckets rate-limit callers; nil limits none.
	Buckets *Buckets
	// Anonymous is the rule keying anonymous callers (PerAddress,
	// Shared, Unlimited); "" is PerAddress.
	Anonymous string
	// BodyLimit bounds the request body read before a slot is taken;
	// 0 is 1 MiB. A body over it is passed on for the front end to
	// refuse.
	BodyLimit int64
	// BufferBudget bounds the bytes of all the bodies read ahead at
	// once, each counted at its Content-Length (BodyLimit where it sends
	// none) from before its read until its call ends; 0 is
	// DefaultBufferBudget. A request that would pass it is shed, so
	// memory does not grow with the number of connections.
	BufferBudget int64

	bufMu   sync.Mutex
	bufUsed int64
	// Observer, where set, counts the refusals.
	Observer Observer
	// Refuser, where set, records the refusals.
	Refuser Refuser
	// Authenticator, where set, resolves a bearer credential before its
	// bucket is chosen: only a credential that resolves has a bucket of
	// its own; one that does not is limited with the anonymous calls of
	// its address, so a flood of made-up credentials gets no fresh
	// bucket per request. The answer, identity or refusal, rides on the
	// request's context, so neither the front end nor the dispatcher
	// resolves it again; a credential whose identity provider could not
	// be asked (context_unavailable) is answered 503 here, its bucket
	// not charged.
	Authenticator Authenticator
}

// Authenticator resolves the bearer credential a context carries
// (tzctx.WithCredential); the dispatcher the server wires in is one.
type Authenticator interface {
	Authenticate(ctx context.Context) (context.Context, error)
}

// Surface is one front end a guard wraps.
type Surface struct {
	// Transport is the dispatcher transport the front end's records name
	// (tzctx.TransportHTTP or tzctx.TransportMCPHTTP); it is also
	// the surface label of the observer's counts.
	Transport string
	// Applies says whether a request is guarded; nil guards every one.
	Applies func(r *http.Request) bool
	// Action names the action a request calls, for its record; nil, or
	// "" from it, records an unknown action.
	Action func(r *http.Request) string
	// Log, where set, receives an access log line of each refusal the
	// guard answers, for a front end whose own access log sits inside
	// the guard (the path as tzctx.LoggedPath bounds it).
	Log *slog.Logger
}

// Wrap returns next guarded on surface s.
func (g *Guard) Wrap(s Surface, next http.Handler) http.Handler {
	if g == nil || (g.Limiter == nil && g.Buckets == nil) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Applies != nil && !s.Applies(r) {
			next.ServeHTTP(w, r)
			return
		}
		bearer, berr := tzctx.Bearer(r.Header.Values("Authorization"))
		if berr != nil {
			// A malformed header is the front end's to refuse; its
			// caller is rate-limited as an anonymous one.
			bearer = ""
		}
		known := bearer != ""
		if known && (g.Buckets != nil || g.Limiter.Shared()) && g.Authenticator != nil {
			// The answer, a refusal included, rides on the request: the
			// front end and the dispatcher take it rather than resolving
			// again, which could answer otherwise (an identity provider
			// that failed once and is not asked again within its refresh
			// bound).
			ctx, err := g.Authenticator.Authenticate(tzctx.WithCredential(r.Context(), bearer))
			r = r.WithContext(ctx)
			if tzctx.ErrorCode(err) == tzctx.ContextUnavailable {
				// The credential could not be checked, not found wrong:
				// the caller is told to retry, and neither charged nor
				// refused as unauthenticated.
				var e *tzctx.Error
				_ = errors.As(err, &e)
				g.refuse(w, r, s, bearer, e, outageRetry)
				return
			}
			known = err == nil
		}
		if key, ok := g.key(bearer, known, r); ok {
			if allowed, retry := g.Buckets.Allow(key, time.Now()); !allowed {
				secs := retrySeconds(retry)
				var who string
				switch {
				case bearer != "" && !known:
					who = "the rate limit of calls from this address with no credential this server knows, a"
				case bearer == "" && g.anonymous() == PerAddress:
					who = "the rate limit of anonymous calls from this address, a"
				case bearer == "":
					who = "the rate limit shared by anonymous callers, a"
				default:
					who = "this credential's rate limit, a"
				}
				err := &tzctx.Error{Code: tzctx.RateLimited, Status: http.StatusTooManyRequests,
					Detail: fmt.Sprintf("%s bucket of %s calls a second (burst %d), is spent; retry after %d s, or send fewer calls", who, formatRate(g.Buckets.PerSecond()), g.Buckets.Burst(), secs)}
				g.refuse(w, r, s, bearer, err, secs)
				if g.Observer != nil {
					g.Observer.RateLimited(s.Transport)
				}
				return
			}
		}
		if g.Limiter != nil {
			// The body is read before a slot is taken, so a caller
			// sending it slowly holds a connection, never a slot.
			unbuffer, ok := g.reserve(r)
			if !ok {
				err := &tzctx.Error{Code: tzctx.ContextUnavailable,
					Detail: "the server holds as many request bodies as it buffers at once; retry after 1 s"}
				g.refuse(w, r, s, bearer, err, 1)
				if g.Observer != nil {
					g.Observer.Shed(s.Transport)
				}
				return
			}
			unbuffer = sync.OnceFunc(unbuffer)
			defer unbuffer()
			r = g.buffered(r)
			release, err := g.Limiter.AcquireFor(r.Context(), g.caller(bearer, known, r))
			if errors.Is(err, ErrCallerShare) {
				// The caller's own calls hold its share: it is told to
				// send fewer at once, as a rate limit tells it to send
				// fewer a second.
				err := &tzctx.Error{Code: tzctx.RateLimited, Status: http.StatusTooManyRequests,
					Detail: fmt.Sprintf("%s %d calls in flight, the share of the server's %d call slots one caller may hold; retry after 1 s, once one of them has ended, or send fewer calls at once", g.whose(bearer, known), g.Limiter.PerCaller(), g.Limiter.Max())}
				g.refuse(w, r, s, bearer, err, 1)
				if g.Observer != nil {
					g.Observer.RateLimited(s.Transport)
				}
				return
			}
			if err != nil {
				err := &tzctx.Error{Code: tzctx.ContextUnavailable,
					Detail: fmt.Sprintf("the server is at its bound of %d calls in flight; retry after 1 s", g.Limiter.Max())}
				g.refuse(w, r, s, bearer, err, 1)
				if g.Observer != nil {
					g.Observer.Shed(s.Transport)
				}
				return
			}
			// A request that becomes a long-lived stream gives both back
			// early (Detach).
			release = sync.OnceFunc(release)
			defer release()
			r = r.WithContext(withDetach(r.Context(), func() { release(); unbuffer() }))
		}
		next.ServeHTTP(w, r)
	})
}

func (g *Guard) anonymous() string {
	if g.Anonymous == "" {
		return PerAddress
	}
	return g.Anonymous
}

// key is the bucket key of the caller: a known credential's hash prefix;
// for a credential that does not resolve, its address, whatever the
// anonymous rule; for an anonymous caller, by the anonymous rule. ok is
// false where the caller is not rate-limited.
func (g *Guard) key(bearer string, known bool, r *http.Request) (string, bool) {
	if g.Buckets == nil {
		return "", false
	}
	switch {
	case bearer != "" && known:
		return "credential:" + tzctx.CredentialPrefix(bearer), true
	case bearer != "":
		// Made up or expired: never a bucket of its own.
	case g.anonymous() == Shared:
		return "anonymous", true
	case g.anonymous() == Unlimited:
		return "", false
	}
	return "address:" + AddressKey(r.RemoteAddr), true
}

// caller is the key whose share of the call slots a request takes: a
// known credential's hash prefix; for a credential that does not
// resolve, its address, whatever the anonymous rule; for an anonymous
// caller, its address, or one key for all under the Shared rule. The
// Unlimited rule, which leaves anonymous callers out of the rate limit,
// does not leave them out of the share: each address has one.
func (g *Guard) caller(bearer string, known bool, r *http.Request) string {
	switch {
	case bearer != "" && known:
		return "credential:" + tzctx.CredentialPrefix(bearer)
	case bearer == "" && g.anonymous() == Shared:
		return "anonymous"
	}
	return "address:" + AddressKey(r.RemoteAddr)
}

// whose names, for a refusal's detail, the caller whose share is held.
func (g *Guard) whose(bearer string, known bool) string {
	switch {
	case bearer != "" && known:
		return "this credential holds"
	case bearer != "":
		return "calls from this address with no credential this server knows hold"
	case g.anonymous() == Shared:
		return "anonymous callers, one caller under the shared rule, hold"
	}
	return "anonymous calls from this address hold"
}

// AddressKey is a remote address (host:port) as callers are told apart
// by address: an IPv4 address whole, an IPv6 address by its /64 prefix,
// one host's share of addresses, so that a host is one caller however
// many addresses of its network it sends from.
func AddressKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// refuse records err through the refuser and answers it with Retry-After.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, s Surface, bearer string, err *tzctx.Error, retryAfter int) {
	ctx := r.Context()
	if s.Log != nil {
		// One line: the refusal's record, with the request's method,
		// path and status.
		line := new(tzctx.RequestLine)
		ctx = tzctx.WithRequestLine(ctx, line)
		defer line.LogRequest(context.Background(), s.Log, r.Method, r.URL.Path, tzctx.StatusOf(err), 0)
	}
	if g.Refuser != nil {
		ctx := tzctx.WithTransport(ctx, s.Transport)
		if bearer != "" {
			ctx = tzctx.WithCredential(ctx, bearer)
		}
		name := ""
		if s.Action != nil {
			name = s.Action(r)
		}
		_ = g.Refuser.Refuse(ctx, name, err)
	}
	body, _ := jsonwire.Append(nil, map[string]any{"error": map[string]any{"code": string(err.Code), "detail": err.Detail}})
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", strconv.Itoa(retryAfter))
	w.WriteHeader(tzctx.StatusOf(err))
	_, _ = w.Write(body)
}

// DefaultBufferBudget is the default bound of the bytes of the bodies
// read ahead at once.
const DefaultBufferBudget = 64 << 20

// reserve counts r's body against the buffer budget; ok false where it
// would pass it. release gives the bytes back.
func (g *Guard) reserve(r *http.Request) (release func(), ok bool) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return func() {}, true
	}
	limit := g.BodyLimit
	if limit <= 0 {
		limit = 1 << 20
	}
	n := limit + 1
	if r.ContentLength > 0 && r.ContentLength <= limit {
		n = r.ContentLength
	}
	budget := g.BufferBudget
	if budget <= 0 {
		budget = DefaultBufferBudget
	}
	g.bufMu.Lock()
	defer g.bufMu.Unlock()
	if g.bufUsed+n > budget && g.bufUsed > 0 {
		return nil, false
	}
	g.bufUsed += n
	return func() {
		g.bufMu.Lock()
		g.bufUsed -= n
		g.bufMu.Unlock()
	}, true
}

// buffered returns r with its body read, up to the guard's body limit
// and one byte more, into memory; what was read and what stopped the
// read (the rest of an overlong body, a failed read) reach the front end
// as they would have.
func (g *Guard) buffered(r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return r
	}
	limit := g.BodyLimit
	if limit <= 0 {
		limit = 1 << 20
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength <= limit {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	rest := io.Reader(r.Body)
	if err != nil {
		rest = errReader{err}
	}
	r2 := r.Clone(r.Context())
	r2.Body = &replayed{Reader: io.MultiReader(bytes.NewReader(buf.Bytes()), rest), closer: r.Body}
	return r2
}

// replayed is a request body read ahead by the guard.
type replayed struct {
	io.Reader
	closer io.Closer
}

func (b *replayed) Close() error { return b.closer.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// outageRetry is the Retry-After, in seconds, of a credential whose
// identity provider could not be asked.
const outageRetry = 5

// retrySeconds is a wait as Retry-After's whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}

// formatRate writes a rate without a needless fraction: 5, 0.5.
func formatRate(r float64) string {
	return strconv.FormatFloat(r, 'f', -1, 64)
}
