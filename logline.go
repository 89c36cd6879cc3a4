package tzctx

import (
	"context"
	"log/slog"
	"sync"
)

// LogRecorder writes each record as a structured log line. Records never
// hold a query's words: handlers give bare markers as subjects.
//
// A record made within an HTTP request that carries a RequestLine is
// not logged here: the request's front end logs it once the answer is
// written, in the one line it writes of the request (one line per call,
// not a call line and an access line).
type LogRecorder struct{ Logger *slog.Logger }

var _ Recorder = LogRecorder{}

// Record implements Recorder.
func (l LogRecorder) Record(ctx context.Context, r Record) {
	if line, _ := ctx.Value(requestLineKey{}).(*RequestLine); line != nil && line.hold(r) {
		return
	}
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	var buf [callAttrs]slog.Attr
	attrs := AppendCallAttrs(buf[:0], r)
	log.LogAttrs(ctx, slog.LevelInfo, "call", attrs...)
}

// callAttrs is how many attributes a call line names at most, with the
// four an HTTP request's line adds.
const callAttrs = 11 + 4

// AppendCallAttrs appends the attributes a call's log line names of r:
// action, transport, subject, code, status, the caller, the version
// (where the call served one) and the code points and microseconds.
func AppendCallAttrs(attrs []slog.Attr, r Record) []slog.Attr {
	attrs = append(attrs,
		slog.String("action", r.Action), slog.String("transport", r.Transport), slog.String("subject", r.Subject),
		slog.String("code", r.Code), slog.Int("status", r.Status),
		slog.String("credential", r.Credential), slog.String("account", r.Account), slog.String("application", r.Application),
	)
	// A refusal served no version's text: its line names no version,
	// rather than version="".
	if r.Version != "" {
		attrs = append(attrs, slog.String("version", r.Version))
	}
	return append(attrs, slog.Int("code_points", r.CodePoints), slog.Int64("us", r.Duration.Microseconds()))
}

type requestLineKey struct{}

// RequestLine is the one log line an HTTP front end writes of a request:
// where the request is a call, LogRecorder hands the call's record to it
// rather than logging it, and the front end logs the record with the
// request's method, path, status and duration in one "call" line
// (LogRequest). A second record within the request, or one made after
// the line was written, is logged by LogRecorder on its own.
type RequestLine struct {
	mu   sync.Mutex
	rec  Record
	held bool
	done bool
}

// WithRequestLine returns ctx carrying line, whose record LogRecorder
// leaves to the front end to log.
func WithRequestLine(ctx context.Context, line *RequestLine) context.Context {
	return context.WithValue(ctx, requestLineKey{}, line)
}

// hold keeps r for the request's line, reporting false where the line
// holds a record already or was written.
func (l *RequestLine) hold(r Record) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held || l.done {
		return false
	}
	l.rec, l.held = r, true
	return true
}

// LogRequest writes the request's one line to log: the call line of the
// record it holds, with the request's method, path (never the query
// string: LoggedPath), HTTP status and milliseconds, or, where the
// request made no record, an "http" line of those four alone. A record
// that arrives later is logged on its own.
func (l *RequestLine) LogRequest(ctx context.Context, log *slog.Logger, method, path string, status int, ms int64) {
	l.mu.Lock()
	rec, held := l.rec, l.held
	l.done = true
	l.mu.Unlock()
	if !held {
		log.LogAttrs(ctx, slog.LevelInfo, "http", slog.String("method", method), slog.String("path", LoggedPath(path)),
			slog.Int("status", status), slog.Int64("ms", ms))
		return
	}
	var buf [callAttrs]slog.Attr
	attrs := AppendCallAttrs(buf[:0], rec)
	attrs = append(attrs, slog.String("method", method), slog.String("path", LoggedPath(path)),
		slog.Int("http_status", status), slog.Int64("ms", ms))
	log.LogAttrs(ctx, slog.LevelInfo, "call", attrs...)
}
