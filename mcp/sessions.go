package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// callerKeys are the keys a request's caller is known by: owner, the
// caller a session it opens belongs to, and quota, the caller its
// sessions and streams are counted against; anonymous says it presented
// no credential.
type callerKeys struct {
	owner, quota string
	anonymous    bool
}

// keysOf is the caller of a request: a signed-in caller by its account
// (stable across the tokens an issuer hands it over a session's life),
// else by its credential's hash prefix; an anonymous caller by its
// remote address, an IPv6 one by its /64 (one host's share of
// addresses), so that its sessions are its own and it is counted as one
// caller however many addresses of its network it sends from.
func keysOf(r *http.Request, bearer string, id tzctx.Identity) callerKeys {
	switch {
	case id.Account != "":
		k := "account:" + id.Account
		return callerKeys{owner: k, quota: k}
	case bearer != "":
		k := "credential:" + tzctx.CredentialPrefix(bearer)
		return callerKeys{owner: k, quota: k}
	}
	k := "address:" + shed.AddressKey(r.RemoteAddr)
	return callerKeys{owner: k, quota: k, anonymous: true}
}

// take counts one holding of the caller in c.
func (k callerKeys) take(c *shed.Counter) (release func(), err error) {
	if k.anonymous {
		return c.TakeAnonymous(k.quota)
	}
	return c.Take(k.quota)
}

// sessionIDPrefix begins every session ID this server hands out.
const sessionIDPrefix = "mcp-session-"

// sessions are the HTTP sessions initialize opened, each with the
// credential that opened it, counted per caller and in all. It is
// mcp-go's session ID manager (through sessionResolver): an ID it did
// not hand out, or one whose session ended, is not valid.
type sessions struct {
	count *shed.Counter

	mu sync.Mutex
	m  map[string]*session
}

// session is one open session.
type session struct {
	owner   string
	release func()
}

func newSessions(perCaller, total int) *sessions {
	return &sessions{count: shed.NewCounter(perCaller, total), m: map[string]*session{}}
}

// errNoSession is the answer to a session ID no initialize of this
// caller's opened, or whose session ended.
var errNoSession = errors.New("no session of this caller has this ID")

// check reports whether id names an open session of owner.
func (s *sessions) check(id, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.m[id]; e != nil && e.owner == owner {
		return nil
	}
	return errNoSession
}

// reservation is a session counted for an initialize before mcp-go
// hands out its ID; Generate turns it into the session.
type reservation struct {
	s       *sessions
	owner   string
	release func()

	mu   sync.Mutex
	used bool
	id   string // the session opened, once used by open
}

// reserve counts a session of keys' caller ahead of its initialize; the
// error is shed.ErrPerKey or shed.ErrTotal where a bound is reached.
func (s *sessions) reserve(keys callerKeys) (*reservation, error) {
	release, err := keys.take(s.count)
	if err != nil {
		return nil, err
	}
	return &reservation{s: s, owner: keys.owner, release: release}, nil
}

// open registers a new session under a fresh ID, once.
func (r *reservation) open() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.used {
		return "", false
	}
	r.used = true
	id := newSessionID()
	r.id = id
	r.s.mu.Lock()
	r.s.m[id] = &session{owner: r.owner, release: r.release}
	r.s.mu.Unlock()
	return id, true
}

// opened is the session open opened, "" where none.
func (r *reservation) opened() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// cancel gives the count back where no session was opened.
func (r *reservation) cancel() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.used {
		r.used = true
		r.release()
	}
}

// end forgets a session and gives its count back.
func (s *sessions) end(id string) {
	s.mu.Lock()
	e := s.m[id]
	delete(s.m, id)
	s.mu.Unlock()
	if e != nil {
		e.release()
	}
}

// len is the number of open sessions.
func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return sessionIDPrefix + hex.EncodeToString(b[:])
}

// Generate, Validate and Terminate make sessions mcp-go's manager for
// calls outside a request (its idle sweeper, Shutdown): an ID is valid
// while its session is open, whoever owns it, and ending it forgets it.
func (s *sessions) Generate() string { return newSessionID() }

func (s *sessions) Validate(id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[id] == nil {
		return false, errNoSession
	}
	return false, nil
}

func (s *sessions) Terminate(id string) (bool, error) {
	s.end(id)
	return false, nil
}

// sessionResolver gives mcp-go, for each request, a manager bound to the
// request's caller and its reservation.
type sessionResolver struct{ s *sessions }

func (sr sessionResolver) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
		return sr.s
	}
	b, _ := r.Context().Value(sessionBindingKey{}).(*sessionBinding)
	if b == nil {
		// A request that did not pass through HTTPHandler opens and
		// reaches no session.
		b = &sessionBinding{}
	}
	return &requestSessions{s: sr.s, b: b}
}

// sessionBinding is what a request may do with sessions: its caller's
// owner key, and the reservation of an initialize.
type sessionBinding struct {
	owner string
	res   *reservation
	// spliced says the request is a tools/call whose answer the tool
	// handler encodes (answer.go).
	spliced bool
}

type sessionBindingKey struct{}

func withSessionBinding(ctx context.Context, b *sessionBinding) context.Context {
	return context.WithValue(ctx, sessionBindingKey{}, b)
}

// requestSessions is the session ID manager of one request.
type requestSessions struct {
	s *sessions
	b *sessionBinding
}

// Generate opens the session the request's initialize reserved. Without
// a reservation, the ID it returns names no session, so no use of it is
// served.
func (m *requestSessions) Generate() string {
	if m.b.res != nil {
		if id, ok := m.b.res.open(); ok {
			return id
		}
	}
	return newSessionID()
}

// Validate accepts an open session of the request's caller alone.
func (m *requestSessions) Validate(id string) (bool, error) {
	if m.b.owner == "" {
		return false, errNoSession
	}
	return false, m.s.check(id, m.b.owner)
}

// Terminate ends a session of the request's caller; another's is not
// touched.
func (m *requestSessions) Terminate(id string) (bool, error) {
	if _, err := m.Validate(id); err != nil {
		return false, err
	}
	m.s.end(id)
	return false, nil
}

// bindingOf is the session binding admit put in ctx, nil where none.
func bindingOf(ctx context.Context) *sessionBinding {
	b, _ := ctx.Value(sessionBindingKey{}).(*sessionBinding)
	return b
}

// initializeWriter keeps the status and the first bytes of an
// initialize's answer, so that a session whose initialize failed is
// ended at once rather than held, and counted, until it idles out.
type initializeWriter struct {
	http.ResponseWriter
	status int
	head   []byte
}

// initializeHead bounds the bytes of an initialize answer kept: enough
// for its JSON-RPC error or result to be told apart.
const initializeHead = 64 << 10

func (w *initializeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *initializeWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if n := initializeHead - len(w.head); n > 0 {
		w.head = append(w.head, p[:min(n, len(p))]...)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on, as an event stream's answer needs.
func (w *initializeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *initializeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// failed reports whether the answer is a refusal: an HTTP error status,
// or a JSON-RPC error with no result, in a JSON body or in the first
// event of an event stream. An answer it cannot read is not one.
func (w *initializeWriter) failed() bool {
	if w.status >= 400 {
		return true
	}
	payload := bytes.TrimSpace(w.head)
	if !bytes.HasPrefix(payload, []byte("{")) {
		i := bytes.Index(payload, []byte("data:"))
		if i < 0 {
			return false
		}
		payload = payload[i+len("data:"):]
		if j := bytes.IndexByte(payload, '\n'); j >= 0 {
			payload = payload[:j]
		}
	}
	var m struct {
		Error  json.RawMessage `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(payload), &m) != nil {
		return false
	}
	return len(m.Error) > 0 && len(m.Result) == 0
}

// sessionLogHandler hands mcp-go's log lines on with the session IDs
// they name (its idle sweeper's "session", its shutdown's "sessionID")
// replaced by their hash prefix: a session ID lets whoever holds it use
// the session, and a log is read by more people than its callers.
type sessionLogHandler struct{ slog.Handler }

func (h sessionLogHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "session" || a.Key == "sessionID" {
			a = slog.String(a.Key, tzctx.CredentialPrefix(a.Value.String()))
		}
		out.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h sessionLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return sessionLogHandler{h.Handler.WithAttrs(as)}
}

func (h sessionLogHandler) WithGroup(name string) slog.Handler {
	return sessionLogHandler{h.Handler.WithGroup(name)}
}
