package server

import (
	"net/http"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// newGuard returns the guard of tzctx serve's calls: max_in_flight slots
// shared by /api/v1/actions and /mcp, of which one caller holds at most
// max_in_flight_per_caller, and rate_limit's buckets where it is set.
// Refusals are recorded through d and counted by meter (nil counts
// none).
func newGuard(cfg Config, d *dispatch.Dispatcher, meter *metering.Meter) *shed.Guard {
	g := &shed.Guard{
		Limiter:       shed.NewLimiter(cfg.MaxInFlight, time.Duration(cfg.QueueWait), cfg.PerCaller()),
		BodyLimit:     cfg.BodyLimitBytes,
		Refuser:       d,
		Authenticator: d,
	}
	if meter != nil {
		g.Observer = meter
		meter.InFlight(g.Limiter.InFlight, g.Limiter.Max)
	}
	if rl := cfg.RateLimit; rl != nil {
		g.Buckets = shed.NewBuckets(rl.PerSecond, rl.Burst, rl.MaxBuckets)
		g.Anonymous = rl.Anonymous
	}
	return g
}

// apiSurface guards the actions of the HTTP API, one request one call;
// the record names the action the path names.
var apiSurface = shed.Surface{
	Transport: tzctx.TransportHTTP,
	Applies: func(r *http.Request) bool {
		return strings.HasPrefix(r.URL.Path, "/api/v1/actions/")
	},
	Action: func(r *http.Request) string {
		return strings.TrimPrefix(r.URL.Path, "/api/v1/actions/")
	},
}

// mcpSurface guards the requests of /mcp but the CORS preflight: a POST
// carries one JSON-RPC message (a tools/call is one), a GET opens a
// session's listening stream, a DELETE ends a session. Each is rate
// limited and takes a slot like a call; a request that becomes a
// long-lived stream (a GET, a subscriptions/listen) gives its slot back
// once the MCP handler has counted it against the stream bounds
// (shed.Detach), so open streams never hold call slots. The body is not
// read before the refusal, so its record names no action.
var mcpSurface = shed.Surface{
	Transport: tzctx.TransportMCPHTTP,
	Applies: func(r *http.Request) bool {
		return r.Method == http.MethodPost || r.Method == http.MethodGet || r.Method == http.MethodDelete
	},
}

// heldCalls, where a test sets it, wraps the guarded handlers inside the
// guard, so a test can hold calls in flight; nil in the product.
var heldCalls func(http.Handler) http.Handler

// guarded is next behind g on surface s.
func guarded(g *shed.Guard, s shed.Surface, next http.Handler) http.Handler {
	if heldCalls != nil {
		next = heldCalls(next)
	}
	return g.Wrap(s, next)
}
