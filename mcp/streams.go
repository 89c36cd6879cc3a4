package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// The defaults of the bounds of HTTPOptions; docs/configuration.md states them.
const (
	// DefaultStreamsPerCaller bounds the long-lived streams one caller
	// holds open: a client opens one or two.
	DefaultStreamsPerCaller = 8
	// DefaultStreamsTotal bounds the long-lived streams open at once.
	DefaultStreamsTotal = 512
	// DefaultMaxListenBytes bounds a subscriptions/listen body.
	DefaultMaxListenBytes = 8 << 10
	// DefaultSessionsPerCaller bounds the sessions one caller holds open.
	DefaultSessionsPerCaller = 32
	// DefaultSessionsTotal bounds the sessions open at once.
	DefaultSessionsTotal = 1024
	// DefaultMaxInitializeBytes bounds an initialize body, and so the
	// client name, version and capabilities a session keeps.
	DefaultMaxInitializeBytes = 8 << 10
)

// streamRetryAfter and sessionRetryAfter are the Retry-After seconds of
// a refused stream and a refused session: streams end when clients hang
// up, sessions when DELETE ends them or they idle out.
const (
	streamRetryAfter  = 5
	sessionRetryAfter = 60
)

// openStreams are the long-lived streams being served, so that Close
// ends them.
type openStreams struct {
	mu      sync.Mutex
	closed  bool
	next    int
	cancels map[int]context.CancelFunc
}

// add registers a stream's cancel; false once the handler is closed.
func (o *openStreams) add(cancel context.CancelFunc) (remove func(), ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, false
	}
	if o.cancels == nil {
		o.cancels = map[int]context.CancelFunc{}
	}
	o.next++
	n := o.next
	o.cancels[n] = cancel
	return func() {
		o.mu.Lock()
		delete(o.cancels, n)
		o.mu.Unlock()
	}, true
}

// close ends every stream and refuses new ones.
func (o *openStreams) close() {
	o.mu.Lock()
	o.closed = true
	cancels := o.cancels
	o.cancels = nil
	o.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// message is what admit reads of a POST body: the method alone, as
// mcp-go reads it, and the _meta of the params apart, so that a _meta
// that does not decode leaves the method read.
type message struct {
	Method string `json:"method"`
	Params struct {
		Meta *mcpgo.Meta `json:"_meta"`
	} `json:"params"`
}

// readMessage reads what admit needs of a POST body. The method is read
// on its own: one decode of both stops at a _meta that mcp-go's Meta
// refuses, and would leave an initialize that mcp-go serves unread, its
// session neither counted nor its size bounded.
func readMessage(body []byte) message {
	var m message
	var method struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &method)
	_ = json.Unmarshal(body, &m)
	m.Method = method.Method
	return m
}

// modern reports whether a request speaks protocol version 2026-07-28 or
// later, as mcp-go tells: by its header or its body's _meta. Such a
// request has no session.
func modern(r *http.Request, m message) bool {
	return mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) || mcpgo.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}

// admit applies the session and stream rules to a request before mcp-go
// sees it: a session is used by the caller that opened it alone, and by
// no one where no initialize opened it; an initialize is counted against
// the session bounds, and a long-lived stream (a GET, a
// subscriptions/listen) against the stream bounds, its call slot given
// back. It returns the request's context and the function to run when
// the request ends, or ok false where it answered a refusal.
func (h *HTTPHandler) admit(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, keys callerKeys) (_ context.Context, done func(), ok bool) {
	stream := false
	var m message
	if r.Method == http.MethodPost {
		m = readMessage(body)
	}
	b := &sessionBinding{owner: keys.owner}
	ctx = withSessionBinding(ctx, b)
	var ends []func()
	done = func() {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i]()
		}
	}
	sid := r.Header.Get("Mcp-Session-Id")
	isModern := modern(r, m)
	switch r.Method {
	case http.MethodPost:
		switch {
		case m.Method == string(mcpgo.MethodInitialize) && !isModern:
			if len(body) > h.opts.MaxInitializeBytes {
				h.refuseRPC(ctx, w, r, body, http.StatusRequestEntityTooLarge, mcpgo.INVALID_PARAMS, 0,
					fmt.Sprintf("the initialize request is %d bytes, over the bound of %d bytes a session keeps of its client (name, version, capabilities); send shorter clientInfo and capabilities", len(body), h.opts.MaxInitializeBytes))
				return ctx, done, false
			}
			res, err := h.sessions.reserve(keys)
			if err != nil {
				h.refuseBound(ctx, w, r, body, err, sessionRetryAfter,
					fmt.Sprintf("this caller holds %d open sessions, its bound; end one with DELETE /mcp (its Mcp-Session-Id), or wait for an idle one to end after %s", h.sessions.count.PerKey(), h.opts.SessionIdleTTL),
					fmt.Sprintf("the server holds %d open sessions, its bound; retry later", h.sessions.count.Total()))
				return ctx, done, false
			}
			b.res = res
			ends = append(ends, res.cancel)
		case sid != "" && !isModern:
			if !h.sessionOK(ctx, w, r, body, sid, keys) {
				return ctx, done, false
			}
		}
		// A legacy tools/call's answer is spliced into mcp-go's reply
		// (answer.go).
		b.spliced = m.Method == string(mcpgo.MethodToolsCall) && !isModern
		if m.Method == string(mcpgo.MethodSubscriptionsListen) {
			if len(body) > h.opts.MaxListenBytes {
				h.refuseRPC(ctx, w, r, body, http.StatusRequestEntityTooLarge, mcpgo.INVALID_PARAMS, 0,
					fmt.Sprintf("the subscriptions/listen request is %d bytes, over the bound of %d bytes a stream keeps; send a shorter one", len(body), h.opts.MaxListenBytes))
				return ctx, done, false
			}
			stream = true
		}
	case http.MethodGet, http.MethodDelete:
		if isModern {
			// mcp-go answers that the protocol has no such request.
			break
		}
		if sid == "" {
			h.refuseRPC(ctx, w, r, body, http.StatusBadRequest, mcpgo.INVALID_REQUEST, 0,
				r.Method+" /mcp names a session: send the Mcp-Session-Id header that initialize answered")
			return ctx, done, false
		}
		if !h.sessionOK(ctx, w, r, body, sid, keys) {
			return ctx, done, false
		}
		stream = r.Method == http.MethodGet
	}
	if !stream {
		return ctx, done, true
	}
	release, err := keys.take(h.streams)
	if err != nil {
		h.refuseBound(ctx, w, r, body, err, streamRetryAfter,
			fmt.Sprintf("this caller holds %d open streams (GET /mcp, subscriptions/listen), its bound; close one first", h.streams.PerKey()),
			fmt.Sprintf("the server holds %d open streams (GET /mcp, subscriptions/listen), its bound; retry later", h.streams.Total()))
		done()
		return ctx, func() {}, false
	}
	ends = append(ends, release)
	sctx, cancel := context.WithCancel(ctx)
	remove, open := h.open.add(cancel)
	if !open {
		cancel()
		h.refuseRPC(ctx, w, r, body, http.StatusServiceUnavailable, mcpgo.INVALID_REQUEST, streamRetryAfter,
			"the server is shutting down; open the stream again on another server or after it restarts")
		done()
		return ctx, func() {}, false
	}
	ends = append(ends, remove, cancel)
	// The stream holds no call slot, and no share of the bodies' budget,
	// for its life.
	shed.Detach(ctx)
	// A stream outlives the server's write timeout.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	return sctx, done, true
}

// sessionOK answers 404 where sid is not an open session of this
// caller: one no initialize opened, one that ended, and another
// caller's alike, so that a session's existence is not told to another
// credential.
func (h *HTTPHandler) sessionOK(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, sid string, keys callerKeys) bool {
	if h.sessions.check(sid, keys.owner) == nil {
		return true
	}
	h.refuseRPC(ctx, w, r, body, http.StatusNotFound, mcpgo.INVALID_REQUEST, 0,
		"no open session of this caller has this Mcp-Session-Id (it ended, or another credential opened it); send initialize for a new session")
	return false
}

// refuseBound refuses a request past a per-caller bound (429
// rate_limited) or the server's (503 context_unavailable), with
// Retry-After.
func (h *HTTPHandler) refuseBound(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, err error, retry int, perCaller, total string) {
	if errors.Is(err, shed.ErrPerKey) {
		h.refuseAs(ctx, w, r, body, &tzctx.Error{Code: tzctx.RateLimited, Status: http.StatusTooManyRequests, Detail: perCaller}, mcpgo.INVALID_REQUEST, retry)
		return
	}
	if errors.Is(err, shed.ErrAnonymousTotal) {
		total += " (anonymous callers together hold at most three quarters of it: present a credential, or retry later)"
	}
	h.refuseAs(ctx, w, r, body, &tzctx.Error{Code: tzctx.ContextUnavailable, Status: http.StatusServiceUnavailable, Detail: total}, mcpgo.INVALID_REQUEST, retry)
}

// refuseRPC refuses a request invalid_request with status.
func (h *HTTPHandler) refuseRPC(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, status, code, retry int, detail string) {
	c := tzctx.InvalidRequest
	if status == http.StatusServiceUnavailable {
		c = tzctx.ContextUnavailable
	}
	h.refuseAs(ctx, w, r, body, &tzctx.Error{Code: c, Status: status, Detail: detail}, code, retry)
}

// refuseAs records err and answers it as a JSON-RPC error of code, with
// Retry-After where retry is positive.
func (h *HTTPHandler) refuseAs(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, err *tzctx.Error, code, retry int) {
	h.refuse(ctx, r, body, err)
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
	}
	writeRPCError(w, err.Status, rpcID(body), code, err.Detail)
}
