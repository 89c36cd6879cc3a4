package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Resolver resolves each request's bearer credential, as the HTTP
	// API's; nil reads every request as an anonymous caller's. It must be
	// the dispatcher's resolver: the request's calls take its answer.
	Resolver tzctx.Resolver
	// BodyLimit bounds a request body in bytes where no chain in front
	// bounds it (MCP served alone); 0 means 1 MiB. A request whose
	// context says its body is bounded already (tzctx.BodyBound: tzctx
	// serve's chain, body_limit_bytes) is held to that bound alone, so
	// one bound applies to a request, once.
	BodyLimit int64
	// AllowedOrigins are the origins (scheme://host[:port]) whose
	// browser requests are served beside loopback origins
	// (http://localhost:6274, http://127.0.0.1:8080); a request with
	// any other Origin header is refused 403. A request without an
	// Origin header (no browser sent it) is served.
	AllowedOrigins []string
	// SessionIdleTTL ends a session idle that long; 0 means 30 minutes.
	SessionIdleTTL time.Duration
	// ResourceMetadata, where set, is the RFC 9728 protected resource
	// metadata path ("/.well-known/oauth-protected-resource/mcp") that a
	// refused credential's WWW-Authenticate challenge names, so an OAuth
	// client finds the issuer. An absolute URL is named as it is; a
	// path is named on the request's scheme and Host.
	ResourceMetadata string
	// StreamsPerCaller and StreamsTotal bound the long-lived streams (a
	// session's GET, a subscriptions/listen) open at once, per caller (a
	// signed-in account or credential; anonymous callers by remote
	// address) and in all; such a stream holds no call slot. 0 means
	// DefaultStreamsPerCaller, DefaultStreamsTotal.
	StreamsPerCaller, StreamsTotal int
	// MaxListenBytes bounds a subscriptions/listen body, which its stream
	// keeps; 0 means DefaultMaxListenBytes.
	MaxListenBytes int
	// SessionsPerCaller and SessionsTotal bound the open sessions, per
	// caller and in all; 0 means DefaultSessionsPerCaller,
	// DefaultSessionsTotal.
	SessionsPerCaller, SessionsTotal int
	// MaxInitializeBytes bounds an initialize body, and so the client
	// name, version and capabilities its session keeps; 0 means
	// DefaultMaxInitializeBytes.
	MaxInitializeBytes int
	// HostChecked says the server checks every request's Host before
	// this handler (a DNS-rebinding guard of its own), so mcp-go's
	// loopback Host check, which knows no names a proxy forwards, is off.
	HostChecked bool
}

// HTTPHandler is the streamable HTTP transport: Origin check, bearer
// credentials per request, the body limit and -32602 for schema
// violations under protocol versions that use it, in front of mcp-go's
// session-mode handler. Close ends its sessions.
type HTTPHandler struct {
	s       *Server
	opts    HTTPOptions
	inner   *server.StreamableHTTPServer
	allowed map[string]bool
	// sessions are the sessions initialize opened, by owner; streams
	// count the long-lived streams, open holds them for Close.
	sessions *sessions
	streams  *shed.Counter
	open     openStreams
}

var _ http.Handler = (*HTTPHandler)(nil)

// HTTPHandler returns the streamable HTTP transport of s.
func (s *Server) HTTPHandler(opts HTTPOptions) *HTTPHandler {
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = 1 << 20
	}
	if opts.SessionIdleTTL <= 0 {
		opts.SessionIdleTTL = 30 * time.Minute
	}
	for _, b := range []struct {
		v   *int
		def int
	}{
		{&opts.StreamsPerCaller, DefaultStreamsPerCaller}, {&opts.StreamsTotal, DefaultStreamsTotal},
		{&opts.MaxListenBytes, DefaultMaxListenBytes},
		{&opts.SessionsPerCaller, DefaultSessionsPerCaller}, {&opts.SessionsTotal, DefaultSessionsTotal},
		{&opts.MaxInitializeBytes, DefaultMaxInitializeBytes},
	} {
		if *b.v <= 0 {
			*b.v = b.def
		}
	}
	h := &HTTPHandler{s: s, opts: opts, allowed: map[string]bool{},
		sessions: newSessions(opts.SessionsPerCaller, opts.SessionsTotal),
		streams:  shed.NewCounter(opts.StreamsPerCaller, opts.StreamsTotal)}
	for _, o := range opts.AllowedOrigins {
		h.allowed[strings.TrimSuffix(strings.ToLower(o), "/")] = true
	}
	h.inner = server.NewStreamableHTTPServer(s.mcp,
		server.WithSessionIdleTTL(opts.SessionIdleTTL),
		// Sessions are the ones initialize opened, each its caller's.
		server.WithSessionIdManagerResolver(sessionResolver{h.sessions}),
		// mcp-go refuses a loopback connection whose Host is not a
		// loopback name (DNS rebinding); kept on, on purpose, unless the
		// server checks Host itself.
		server.WithDisableLocalhostProtection(opts.HostChecked),
		server.WithStreamableHTTPLogger(slog.New(sessionLogHandler{s.log.Handler()})),
	)
	return h
}

// Close ends every session and every long-lived stream (a session's
// GET, a subscriptions/listen), and refuses new streams, so the HTTP
// server can shut down at once.
func (h *HTTPHandler) Close(ctx context.Context) error {
	h.open.close()
	return h.inner.Shutdown(ctx)
}

// Sessions is the number of sessions open.
func (h *HTTPHandler) Sessions() int { return h.sessions.len() }

// Streams is the number of long-lived streams open.
func (h *HTTPHandler) Streams() int { return h.streams.Len() }

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rctx := tzctx.WithTransport(r.Context(), tzctx.TransportMCPHTTP)
	origin := r.Header.Get("Origin")
	if origin != "" {
		if !h.originAllowed(origin) {
			h.refuse(rctx, r, nil, &tzctx.Error{Code: tzctx.InvalidRequest, Detail: "origin not allowed", Status: http.StatusForbidden})
			writeRPCError(w, http.StatusForbidden, nil, mcpgo.INVALID_REQUEST, "the Origin "+boundedOrigin(origin)+" is not allowed; add it to mcp_allowed_origins")
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		rb := r.Body
		if _, bounded := tzctx.BodyBound(r.Context()); !bounded {
			rb = http.MaxBytesReader(w, r.Body, h.opts.BodyLimit)
		}
		body, err = io.ReadAll(rb)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				// The bound named is the one that refused the body,
				// the chain's or this handler's.
				detail := fmt.Sprintf("the request body is over the size bound of %d bytes", tooLarge.Limit)
				h.refuse(rctx, r, body, &tzctx.Error{Code: tzctx.InvalidRequest, Detail: detail, Status: http.StatusRequestEntityTooLarge})
				writeRPCError(w, http.StatusRequestEntityTooLarge, nil, mcpgo.INVALID_REQUEST, detail)
				return
			}
			h.refuse(rctx, r, body, tzctx.Errorf(tzctx.InvalidRequest, "the request body could not be read"))
			writeRPCError(w, http.StatusBadRequest, nil, mcpgo.PARSE_ERROR, "the request body could not be read")
			return
		}
	}
	bearer, id, err := h.caller(rctx, r.Header.Values("Authorization"))
	if err != nil {
		h.refuse(rctx, r, body, err)
		// A credential refused is challenged; an identity provider that
		// could not be asked (context_unavailable) is not the token's
		// fault, and is answered with its own status.
		if tzctx.ErrorCode(err) == tzctx.Unauthenticated {
			challenge := `Bearer error="invalid_token"`
			if meta := h.resourceMetadata(r); meta != "" {
				challenge += `, resource_metadata="` + meta + `"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
		}
		writeRPCError(w, tzctx.StatusOf(err), rpcID(body), mcpgo.INVALID_REQUEST, contractError(err).Detail)
		return
	}
	// The credential was resolved for this request; its calls take that
	// answer rather than checking a JWT again. A stdio session, which
	// resolved its token once at start, resolves it on every call.
	if h.opts.Resolver != nil {
		rctx = dispatch.WithResolved(rctx, bearer, id)
	}
	ctx := WithCaller(rctx, bearer, id)
	if r.Method == http.MethodPost {
		// Every request after initialize carries the negotiated version
		// in its header; a client that sends none speaks 2025-03-26
		// (the transport's rule). A request without a session is
		// mcp-go's to answer.
		version := r.Header.Get("Mcp-Protocol-Version")
		if version == "" && r.Header.Get("Mcp-Session-Id") != "" {
			version = "2025-03-26"
		}
		if b := h.s.precheck(ctx, body, version); b != nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	ctx, done, ok := h.admit(ctx, w, r, body, keysOf(r, bearer, id))
	defer done()
	if !ok {
		return
	}
	if b := bindingOf(ctx); b != nil && b.res != nil {
		// mcp-go hands out the session ID before it reads the params:
		// an initialize it refuses ends its session at once.
		iw := &initializeWriter{ResponseWriter: w}
		h.inner.ServeHTTP(iw, r.WithContext(ctx))
		if sid := b.res.opened(); sid != "" && iw.failed() {
			h.sessions.end(sid)
		}
		return
	}
	if b := bindingOf(ctx); b != nil && b.spliced {
		slot := &answerSlot{}
		aw := &answerWriter{ResponseWriter: w, slot: slot}
		h.inner.ServeHTTP(aw, r.WithContext(withAnswerSlot(ctx, slot)))
		aw.release()
		return
	}
	h.inner.ServeHTTP(w, r.WithContext(ctx))
}

// caller resolves the Authorization headers: none is anonymous, one
// "Bearer <credential>" is the credential's identity, anything else is
// refused unauthenticated (tzctx.Bearer).
func (h *HTTPHandler) caller(ctx context.Context, auth []string) (string, tzctx.Identity, error) {
	bearer, err := tzctx.Bearer(auth)
	if err != nil || bearer == "" {
		return "", tzctx.Identity{}, err
	}
	if h.opts.Resolver == nil {
		return bearer, tzctx.Identity{}, nil
	}
	// The rate limiter in front may have resolved it for this request
	// already: its answer stands, refusal included.
	if id, ok, err := dispatch.Resolved(ctx, bearer); ok {
		return bearer, id, err
	}
	id, err := h.opts.Resolver.Resolve(ctx, bearer)
	return bearer, id, err
}

// refuse records a request refused before it reached the dispatcher,
// under the action its body calls, or "(unknown action)" where the body
// names none or was not read (an Origin refused before the body, a body
// over the bound): every refusal leaves a record. The credential
// presented, where one is, is named by its hash prefix.
func (h *HTTPHandler) refuse(ctx context.Context, r *http.Request, body []byte, err error) {
	name := calledAction(body)
	if bearer, berr := tzctx.Bearer(r.Header.Values("Authorization")); berr == nil && bearer != "" {
		ctx = tzctx.WithCredential(ctx, bearer)
	}
	_ = h.s.d.Refuse(ctx, name, err)
}

// resourceMetadata is the metadata URL a challenge names: the configured
// absolute URL (oidc.resource), or the configured path on the request's
// Host where that Host is known good: a loopback connection's, which the
// server's Host guard (HostChecked) or a loopback name vouches for. On
// any other connection the Host is the client's to choose, so none is
// named rather than an echo of it; set oidc.resource there.
func (h *HTTPHandler) resourceMetadata(r *http.Request) string {
	meta := h.opts.ResourceMetadata
	if !strings.HasPrefix(meta, "/") {
		return meta
	}
	if !loopbackConn(r) {
		return ""
	}
	if !h.opts.HostChecked {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return ""
		}
	}
	return requestOrigin(r) + meta
}

// loopbackConn reports whether the request came over a loopback
// connection.
func loopbackConn(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// requestOrigin is the scheme and host the request was sent to.
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// originAllowed reports whether a browser origin may call: a configured
// one, or a loopback one.
func (h *HTTPHandler) originAllowed(origin string) bool {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	if h.allowed[o] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// boundedOrigin quotes an origin for a detail, describing a long one.
func boundedOrigin(o string) string {
	if len(o) > 100 {
		return "(an origin of " + fmt.Sprint(len(o)) + " bytes)"
	}
	return fmt.Sprintf("%q", o)
}

// calledAction is the action a request body calls, as its record names
// it: a tools/call's tool, read_context for resources/read and
// prompts/get, list_context for the resource and prompt lists; "" for any
// other body.
func calledAction(body []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	switch mcpgo.MCPMethod(m.Method) {
	case mcpgo.MethodToolsCall:
		return m.Params.Name
	case mcpgo.MethodResourcesRead, mcpgo.MethodPromptsGet:
		return "read_context"
	case mcpgo.MethodResourcesList, mcpgo.MethodResourcesTemplatesList, mcpgo.MethodPromptsList:
		return "list_context"
	}
	return ""
}

// rpcID is a request body's JSON-RPC id, nil where it has none.
func rpcID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	return m.ID
}

// writeRPCError writes a JSON-RPC error with an HTTP status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	var idv any = id
	if id == nil {
		idv = nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": mcpgo.JSONRPC_VERSION, "id": idv, "error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
