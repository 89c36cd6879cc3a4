package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/internal/shed"
)

// callerKeys are the keys a request's caller is known by: owner, the
// credential a session it opens belongs to, and quota, the caller its
// sessions and streams are counted against.
type callerKeys struct {
	owner, quota string
}

// keysOf is the caller of a request: a signed-in caller by its account
// (stable across the tokens an issuer hands it over a session's life),
// else by its credential's hash prefix; an anonymous caller owns as
// "anonymous" and is counted by its remote address, as the rate limit's
// per_address rule counts it.
func keysOf(r *http.Request, bearer string, id tzctx.Identity) callerKeys {
	switch {
	case id.Account != "":
		k := "account:" + id.Account
		return callerKeys{owner: k, quota: k}
	case bearer != "":
		k := "credential:" + dispatch.CredentialPrefix(bearer)
		return callerKeys{owner: k, quota: k}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return callerKeys{owner: "anonymous", quota: "address:" + host}
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
}

// reserve counts a session of keys' caller ahead of its initialize; the
// error is shed.ErrPerKey or shed.ErrTotal where a bound is reached.
func (s *sessions) reserve(keys callerKeys) (*reservation, error) {
	release, err := s.count.Take(keys.quota)
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
	r.s.mu.Lock()
	r.s.m[id] = &session{owner: r.owner, release: r.release}
	r.s.mu.Unlock()
	return id, true
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
