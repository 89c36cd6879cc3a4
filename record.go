package tzctx

import (
	"context"
	"time"
)

// Record is what the dispatcher records of every call, refusals included.
// It never holds a query's words, the search ID derived from them, or a
// route the manifest does not list.
type Record struct {
	Time time.Time `json:"time"`
	// Action is a registered action's name, or "(unknown action)".
	Action string `json:"action"`
	// Transport is the front end the call came through (http, mcp-stdio
	// or mcp-http).
	Transport string `json:"transport"`
	// Subject is the call's subject as CTX-07 names it.
	Subject string `json:"subject"`
	// Code is the outcome: "ok", or the contract's refusal code.
	Code string `json:"code"`
	// Status is the outcome's HTTP status, also for MCP calls.
	Status int `json:"status"`
	// Credential is the hash prefix of the credential presented.
	Credential  string `json:"credential,omitempty"`
	Account     string `json:"account,omitempty"`
	Application string `json:"application,omitempty"`
	// Version is the site version read, where the call read one.
	Version string `json:"version,omitempty"`
	// CodePoints is the length of the text served.
	CodePoints int `json:"code_points"`
	// Duration is how long the call took, in microseconds on the wire.
	Duration time.Duration `json:"-"`
}

// OK is the Code of a record of a call that succeeded.
const OK = "ok"

// Recorder receives the record of every call. It is called before the
// answer is written, so a durable recorder holds every call answered.
type Recorder interface {
	Record(ctx context.Context, rec Record)
}

// Recorders sends each record to every recorder in turn.
type Recorders []Recorder

var _ Recorder = Recorders(nil)

// Record implements Recorder.
func (rs Recorders) Record(ctx context.Context, rec Record) {
	for _, r := range rs {
		if r != nil {
			r.Record(ctx, rec)
		}
	}
}

// Transports a record names.
const (
	TransportHTTP     = "http"
	TransportMCPStdio = "mcp-stdio"
	TransportMCPHTTP  = "mcp-http"
)

type transportKey struct{}

// WithTransport returns a context naming the front end a call came
// through, for its record.
func WithTransport(ctx context.Context, transport string) context.Context {
	return context.WithValue(ctx, transportKey{}, transport)
}

// TransportFrom returns the front end ctx names (WithTransport), "" for
// none.
func TransportFrom(ctx context.Context) string {
	t, _ := ctx.Value(transportKey{}).(string)
	return t
}
