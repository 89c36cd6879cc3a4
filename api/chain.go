package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
)

// Chain returns h behind the one HTTP middleware chain a request passes,
// outermost first: its one access log line (accessLogged), the recovery
// of a panic (recovered) and the bound of its body (bodyLimited, limit
// bytes). tzctx serve puts every route of a listener behind it once (the
// API, MCP, the console, the probes, /metrics); New puts a front end
// built on its own behind it, unless Options.Chained says the listener
// has.
func Chain(h http.Handler, log *slog.Logger, limit int64) http.Handler {
	return accessLogged(recovered(bodyLimited(h, limit), log), log)
}

// accessLogged logs one line per request to h: the line of the call the
// request made (the record tzctx.LogRecorder leaves to it: an action's
// call, an MCP tools/call, a refusal of the guard), with method, path,
// status and duration, or an "http" line of those four; never the query
// string. The line is written even where a panic passes through (an
// aborted answer), with status 500, so the call's record is never lost
// from the log. A request whose client went away before any answer was
// written (mcp-go writes none to a connection that has closed) is logged
// with statusClientClosed, not the 200 no one received.
func accessLogged(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		line := new(tzctx.RequestLine)
		done := false
		defer func() {
			status := sw.status
			switch {
			case !done:
				status = http.StatusInternalServerError
			case !sw.wrote && r.Context().Err() != nil:
				status = statusClientClosed
			}
			line.LogRequest(context.Background(), log, r.Method, r.URL.Path, status, time.Since(start).Milliseconds())
		}()
		h.ServeHTTP(sw, r.WithContext(tzctx.WithRequestLine(r.Context(), line)))
		done = true
	})
}

// statusClientClosed is the status the access log gives a request whose
// client closed its connection before an answer was written: nginx's
// 499, "client closed request", which no answer carries.
const statusClientClosed = 499

// recovered answers a request whose handling panicked with the
// contract's envelope and a 500, where no answer was begun, and logs the
// panic once, without the caller's words (dispatch.PanicText). An
// aborted answer (http.ErrAbortHandler) passes on, for the server to
// drop the connection.
func recovered(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			log.Error("request panicked", "path", tzctx.LoggedPath(r.URL.Path), "panic", dispatch.PanicText(p), "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); ok && sw.wrote {
				return // an answer was begun: it cannot be replaced
			}
			body := []byte(`{"error":{"code":"internal","detail":"the server failed to answer; try again"}}` + "\n")
			hd := w.Header()
			hd.Set("Content-Type", "application/json")
			hd.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write(body)
		}()
		h.ServeHTTP(w, r)
	})
}

// bodyLimited bounds the body of a request to limit bytes: a read past
// the bound fails with an *http.MaxBytesError, as does the first read of
// a body whose Content-Length is over it, which is not read at all. Each
// front end answers that failure in its own form (the API's envelope,
// MCP's JSON-RPC error), and records it. The request's context says the
// body is bounded (tzctx.WithBodyBound), so a front end that bounds a
// body served alone (MCP's) adds no second bound.
func bodyLimited(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > limit {
				r.Body = overBound{ReadCloser: r.Body, limit: limit}
			} else {
				r.Body = http.MaxBytesReader(w, r.Body, limit)
			}
		}
		h.ServeHTTP(w, r.WithContext(tzctx.WithBodyBound(r.Context(), limit)))
	})
}

// overBound is a body whose length is over the bound: its reads fail.
type overBound struct {
	io.ReadCloser
	limit int64
}

func (b overBound) Read([]byte) (int, error) { return 0, &http.MaxBytesError{Limit: b.limit} }

// statusWriter remembers the status written through it, and whether any
// answer was.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	w.status, w.wrote = code, true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines) through the wrapper.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets streamed answers (server-sent events) through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
