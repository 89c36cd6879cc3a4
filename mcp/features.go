package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
)

// The defaults of the optional features' bounds, where Options leave
// them out (contracts/choices/mcp.md#ch-mcp-completions).
const (
	// DefaultSubscriptionsPerSession bounds one session's resource
	// subscriptions.
	DefaultSubscriptionsPerSession = 100
	// DefaultSubscriptionsTotal bounds the subscriptions of every
	// session together.
	DefaultSubscriptionsTotal = 10000
	// DefaultNoticesPerMinute bounds the log notices one session is
	// sent in a minute.
	DefaultNoticesPerMinute = 60
)

// maxCompletions bounds the values one completion answers (the MCP
// specification's 100); Total and HasMore say how many matched.
const maxCompletions = 100

// noticeLogger names the server in its notifications/message.
const noticeLogger = "tzctx"

// live is one session's state for the optional features: its log level
// once set, its notice window, and its resource subscriptions with the
// stamp each resource had when last seen. A subscriptions/listen stream
// (protocol 2026-07-28) is one too, for as long as it is open: its
// subscriptions are the URIs it listed, and its updates go down its
// stream.
type live struct {
	id string
	// stream is the session a subscriptions/listen stream is served on,
	// and listenID the JSON-RPC ID of its request, which tags every
	// message of the stream; stream is nil for a session's own state.
	stream   server.ClientSession
	listenID any
	// stopWatch stops the watch that ends a listen stream's state with
	// its request's context.
	stopWatch func() bool

	mu       sync.Mutex
	levelSet bool
	window   time.Time
	sent     int
	subs     map[string]*subscription
}

// subscription is one subscribed resource: the read that gives its
// stamp, the caller the read runs as, and the stamp last seen ("" with a
// refusal's code after it where the read was refused).
type subscription struct {
	action string
	args   map[string]any
	caller context.Context
	stamp  string
}

// features hold the sessions' states, by session ID.
type features struct {
	perSession, total, perMinute int

	mu       sync.Mutex
	sessions map[string]*live
	subs     int
	// listens names the state of each open subscriptions/listen stream
	// by its session and request ID.
	listens map[listenKey]string
	nextID  int
}

// listenKey is one subscriptions/listen request: the session it came on
// and its JSON-RPC ID, as its type and value.
type listenKey struct {
	session server.ClientSession
	id      string
}

// listenKeyOf is the key of the subscriptions/listen request id of the
// session of ctx; false where there is no session or id is not a string
// or a number, as a JSON-RPC ID is.
func listenKeyOf(ctx context.Context, id any) (listenKey, bool) {
	cs := server.ClientSessionFromContext(ctx)
	switch id.(type) {
	case string, float64, json.Number, int, int64:
	default:
		return listenKey{}, false
	}
	if cs == nil {
		return listenKey{}, false
	}
	return listenKey{session: cs, id: fmt.Sprintf("%T %v", id, id)}, true
}

func newFeatures(opts Options) *features {
	f := &features{perSession: opts.SubscriptionsPerSession, total: opts.SubscriptionsTotal, perMinute: opts.NoticesPerMinute, sessions: map[string]*live{}, listens: map[listenKey]string{}}
	if f.perSession <= 0 {
		f.perSession = DefaultSubscriptionsPerSession
	}
	if f.total <= 0 {
		f.total = DefaultSubscriptionsTotal
	}
	if f.perMinute <= 0 {
		f.perMinute = DefaultNoticesPerMinute
	}
	return f
}

func (f *features) open(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sessions[id] == nil {
		f.sessions[id] = &live{id: id, subs: map[string]*subscription{}}
	}
}

// end forgets a session, its subscriptions with it.
func (f *features) end(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l := f.sessions[id]; l != nil {
		l.mu.Lock()
		f.subs -= len(l.subs)
		l.subs = map[string]*subscription{}
		l.mu.Unlock()
		delete(f.sessions, id)
	}
}

// openListen opens the state of a subscriptions/listen stream, ending
// one of the same key left open.
func (f *features) openListen(k listenKey, listenID any) *live {
	f.mu.Lock()
	old, had := f.listens[k]
	f.mu.Unlock()
	if had {
		f.endListen(k, old)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id := fmt.Sprintf("listen-%d", f.nextID)
	f.listens[k] = id
	l := &live{id: id, stream: k.session, listenID: listenID, subs: map[string]*subscription{}}
	f.sessions[id] = l
	return l
}

// endListen forgets a subscriptions/listen stream's state, its
// subscriptions with it, where id is still its state.
func (f *features) endListen(k listenKey, id string) {
	f.mu.Lock()
	if f.listens[k] == id {
		delete(f.listens, k)
	}
	l := f.sessions[id]
	f.mu.Unlock()
	if l != nil {
		l.mu.Lock()
		stop := l.stopWatch
		l.mu.Unlock()
		if stop != nil {
			stop()
		}
	}
	f.end(id)
}

// listenOf is the state id of the open subscriptions/listen stream of k,
// "" where none.
func (f *features) listenOf(k listenKey) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listens[k]
}

func (f *features) session(id string) *live {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

func (f *features) all() []*live {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*live, 0, len(f.sessions))
	for _, l := range f.sessions {
		out = append(out, l)
	}
	return out
}

// Subscriptions is the number of resource subscriptions held, every
// session's together.
func (s *Server) Subscriptions() int {
	s.feat.mu.Lock()
	defer s.feat.mu.Unlock()
	return s.feat.subs
}

// addFeatureHooks registers the hooks the optional features run on.
func (s *Server) addFeatureHooks(hooks *server.Hooks) {
	hooks.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) { s.feat.open(cs.SessionID()) })
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { s.feat.end(cs.SessionID()) })
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, _ *mcpgo.SetLevelRequest, _ *mcpgo.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			if l := s.feat.session(cs.SessionID()); l != nil {
				l.mu.Lock()
				l.levelSet = true
				l.mu.Unlock()
			}
		}
	})
	// A subscription is taken, or refused, before mcp-go acknowledges
	// it: its hooks cannot refuse, this one can.
	hooks.AddOnRequestInitialization(func(ctx context.Context, id any, message any) error {
		raw, ok := message.(json.RawMessage)
		if !ok {
			return nil
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		switch mcpgo.MCPMethod(m.Method) {
		case mcpgo.MethodResourcesSubscribe:
			return s.subscribe(ctx, m.Params.URI)
		case mcpgo.MethodResourcesUnsubscribe:
			s.unsubscribe(ctx, m.Params.URI)
		case mcpgo.MethodSubscriptionsListen:
			return s.listen(ctx, id, raw)
		}
		return nil
	})
	// A listen stream's subscriptions end with it, or with its refusal.
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcpgo.SubscriptionsListenRequest, _ *mcpgo.SubscriptionsListenResult) {
		s.endListen(ctx, id)
	})
	hooks.AddOnError(func(ctx context.Context, id any, method mcpgo.MCPMethod, _ any, _ error) {
		if method == mcpgo.MethodSubscriptionsListen {
			s.endListen(ctx, id)
		}
	})
}

// notice sends a session a notifications/message at level, where it set
// a level at or below it, within the session's notices per minute; data
// is the server's own words, never a caller's.
func (s *Server) notice(l *live, level mcpgo.LoggingLevel, data map[string]any) {
	l.mu.Lock()
	if !l.levelSet {
		l.mu.Unlock()
		return
	}
	now := time.Now()
	if now.Sub(l.window) >= time.Minute {
		l.window, l.sent = now, 0
	}
	if l.sent >= s.feat.perMinute {
		l.mu.Unlock()
		return
	}
	l.sent++
	l.mu.Unlock()
	_ = s.mcp.SendLogMessageToSpecificClient(l.id, mcpgo.NewLoggingMessageNotification(level, noticeLogger, data))
}

// quietKey marks a context whose refusals are not the session's own
// calls (a subscription's reread on activation): no notice tells of them.
type quietKey struct{}

// refused tells the session of ctx, where it asked for notices, that
// one of its calls was refused: the action (a registered one's name) and
// the contract's code, nothing of the call's arguments or the detail.
func (s *Server) refused(ctx context.Context, name string, err error) {
	if err == nil || ctx.Value(quietKey{}) != nil {
		return
	}
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	l := s.feat.session(cs.SessionID())
	if l == nil {
		return
	}
	if _, ok := s.actions[name]; !ok {
		name = "(unknown action)"
	}
	code := contractError(err).Code
	s.notice(l, mcpgo.LoggingLevelWarning, map[string]any{
		"event": "refused", "action": name, "code": string(code),
		"message": "A call of this session to " + name + " was refused " + string(code) + "; its answer says why.",
	})
}

// noticeDispatcher is the dispatcher the front end calls through: each
// refusal of a call is also told to the calling session (refused).
type noticeDispatcher struct {
	Caller
	s *Server
}

func (n noticeDispatcher) Call(ctx context.Context, name string, args map[string]any) (any, error) {
	res, err := n.Caller.Call(ctx, name, args)
	n.s.refused(ctx, name, err)
	return res, err
}

func (n noticeDispatcher) Check(ctx context.Context, name string, args map[string]any) error {
	err := n.Caller.Check(ctx, name, args)
	n.s.refused(ctx, name, err)
	return err
}

func (n noticeDispatcher) Refuse(ctx context.Context, name string, err error) error {
	err = n.Caller.Refuse(ctx, name, err)
	n.s.refused(ctx, name, err)
	return err
}

func (n noticeDispatcher) ReadWhole(ctx context.Context, name string, args map[string]any, limit int) (string, string, error) {
	text, mime, err := n.Caller.ReadWhole(ctx, name, args, limit)
	n.s.refused(ctx, name, err)
	return text, mime, err
}

// resourceRead is the read that gives a resource URI's text: the action
// and its arguments, as resources/read reads it.
func resourceRead(uri string) (string, map[string]any, error) {
	switch {
	case strings.HasPrefix(uri, ContextPrefix):
		id, err := url.PathUnescape(strings.TrimPrefix(uri, ContextPrefix))
		if err != nil || id == "" {
			break
		}
		return "read_context", map[string]any{"id": id}, nil
	case strings.HasPrefix(uri, DocsPrefix) && strings.HasSuffix(uri, "/outline") && !strings.Contains(uri, "/page/"):
		return "read_documentation", map[string]any{"tree": strings.TrimSuffix(strings.TrimPrefix(uri, DocsPrefix), "/outline"), "part": "outline"}, nil
	case strings.HasPrefix(uri, DocsPrefix):
		rest := strings.TrimPrefix(uri, DocsPrefix)
		tree, route, ok := strings.Cut(rest, "/page/")
		if !ok {
			tree, route = strings.TrimSuffix(rest, "/page"), ""
		}
		route, err := url.PathUnescape(route)
		if err != nil {
			break
		}
		return "read_documentation", map[string]any{"tree": tree, "page": "/" + tree + "/" + route}, nil
	}
	return "", nil, tzctx.Errorf(tzctx.InvalidRequest, "the URI is not a resource of this server; resources/list and resources/templates/list give them")
}

// stampOf reads the first code point of a resource's text, as its
// caller, for the stamp that digests the whole text: a recorded read,
// refused where a read of the resource would be.
func (s *Server) stampOf(ctx context.Context, action string, args map[string]any) (string, error) {
	call := map[string]any{"limit": json.Number("1")}
	for k, v := range args {
		call[k] = v
	}
	res, err := s.d.Call(ctx, action, call)
	if err != nil {
		return "", err
	}
	chunk, ok := res.(dispatch.Chunk)
	if !ok {
		return "", fmt.Errorf("%s answered %T, not a chunk of text", action, res)
	}
	_, _, stamp, _ := chunk.Chunk()
	return stamp, nil
}

// subscribe takes a subscription of the session of ctx to uri, or
// refuses it: over a bound, or where a read of the resource by this
// caller is refused (with that read's code and detail).
func (s *Server) subscribe(ctx context.Context, uri string) error {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || uri == "" {
		return nil // mcp-go answers these
	}
	l := s.feat.session(cs.SessionID())
	if l == nil {
		return errors.New("invalid_request: this session is not open; initialize first")
	}
	return s.subscribeAs(ctx, l, uri)
}

// subscribeAs takes l's subscription to uri as the caller of ctx, or
// refuses it as subscribe does.
func (s *Server) subscribeAs(ctx context.Context, l *live, uri string) error {
	action, args, err := resourceRead(uri)
	if err != nil {
		return readError(s.d.Refuse(ctx, "read_context", err))
	}
	l.mu.Lock()
	_, had := l.subs[uri]
	n := len(l.subs)
	l.mu.Unlock()
	if !had && n >= s.feat.perSession {
		return readError(s.d.Refuse(ctx, action, perSessionBound(n)))
	}
	stamp, err := s.stampOf(ctx, action, args)
	if err != nil {
		return readError(err)
	}
	if err := s.feat.take(l, uri, &subscription{action: action, args: args, caller: context.WithValue(context.WithoutCancel(ctx), quietKey{}, true), stamp: stamp}); err != nil {
		return readError(s.d.Refuse(ctx, action, err))
	}
	return nil
}

// listen takes the resource subscriptions a subscriptions/listen request
// (protocol 2026-07-28) lists, for as long as its stream is open: each
// URI is checked, read and bounded as resources/subscribe's is, and the
// request is refused, holding none of them, with the refusal
// resources/subscribe gives the first URI it would refuse. A request of
// an earlier protocol, which mcp-go refuses, or listing no resource,
// takes none.
func (s *Server) listen(ctx context.Context, id any, raw json.RawMessage) error {
	var m struct {
		Params struct {
			Meta          *mcpgo.Meta `json:"_meta"`
			Notifications struct {
				ResourceSubscriptions []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		} `json:"params"`
	}
	if id == nil || server.ClientSessionFromContext(ctx) == nil || json.Unmarshal(raw, &m) != nil || !mcpgo.IsModernProtocol(m.Params.Meta.ProtocolVersion()) {
		return nil // mcp-go answers these
	}
	uris := m.Params.Notifications.ResourceSubscriptions
	if len(uris) == 0 {
		return nil
	}
	k, ok := listenKeyOf(ctx, id)
	if !ok {
		return errors.New("invalid_request: the request's id is neither a string nor a number; send one that is")
	}
	l := s.feat.openListen(k, id)
	// Each URI once: a list that names one URI many times costs one
	// read of it.
	seen := make(map[string]bool, len(uris))
	for _, uri := range uris {
		if seen[uri] {
			continue
		}
		seen[uri] = true
		if err := s.subscribeAs(ctx, l, uri); err != nil {
			s.feat.endListen(k, l.id)
			return err
		}
	}
	// A stream's state ends with its request's context too, where no
	// hook tells of its end (a request mcp-go refuses after this hook).
	stop := context.AfterFunc(ctx, func() { s.feat.endListen(k, l.id) })
	l.mu.Lock()
	l.stopWatch = stop
	l.mu.Unlock()
	return nil
}

// endListen ends the subscriptions of the subscriptions/listen request
// id of the session of ctx, where it holds any.
func (s *Server) endListen(ctx context.Context, id any) {
	k, ok := listenKeyOf(ctx, id)
	if !ok {
		return
	}
	if lid := s.feat.listenOf(k); lid != "" {
		s.feat.endListen(k, lid)
	}
}

// take holds sub as l's subscription to uri, or refuses it over a bound.
func (f *features) take(l *live, uri string, sub *subscription) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, had := l.subs[uri]; !had {
		if len(l.subs) >= f.perSession {
			return perSessionBound(len(l.subs))
		}
		if f.subs >= f.total {
			return &tzctx.Error{Code: tzctx.ContextUnavailable, Status: 503, Detail: fmt.Sprintf("the server holds %d resource subscriptions, its bound (mcp_subscriptions); try again later", f.subs)}
		}
		f.subs++
	}
	l.subs[uri] = sub
	return nil
}

// perSessionBound refuses a subscription past a session's bound.
func perSessionBound(n int) error {
	return &tzctx.Error{Code: tzctx.RateLimited, Status: 429, Detail: fmt.Sprintf("this session holds %d resource subscriptions, its bound (mcp_subscriptions_per_session); unsubscribe from one first", n)}
}

// unsubscribe ends a subscription of the session of ctx, where it holds
// one.
func (s *Server) unsubscribe(ctx context.Context, uri string) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	l := s.feat.session(cs.SessionID())
	if l == nil {
		return
	}
	s.feat.mu.Lock()
	defer s.feat.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.subs[uri]; ok {
		delete(l.subs, uri)
		s.feat.subs--
	}
}

// versionSwitched runs on activation: each session that asked for
// notices is told of the switch, and each subscriber of a resource
// whose text changed (its stamp, read again as the subscriber, differs
// from the one last seen, or the read is now refused) is sent
// notifications/resources/updated for it, and only those. A resource is
// read once per caller whatever the number of its subscribers.
func (s *Server) versionSwitched() {
	type key struct{ uri, caller string }
	seen := map[key]string{}
	for _, l := range s.feat.all() {
		s.notice(l, mcpgo.LoggingLevelNotice, map[string]any{
			"event":   "version_switch",
			"message": "The served version changed: the lists, the trees and the texts may have changed; read them again.",
		})
		l.mu.Lock()
		subs := make(map[string]*subscription, len(l.subs))
		for u, sub := range l.subs {
			subs[u] = sub
		}
		l.mu.Unlock()
		for uri, sub := range subs {
			k := key{uri, fmt.Sprint(tzctx.IdentityFrom(sub.caller))}
			now, ok := seen[k]
			if !ok {
				stamp, err := s.stampOf(sub.caller, sub.action, sub.args)
				if err != nil {
					stamp = "refused " + string(contractError(err).Code)
				}
				now, seen[k] = stamp, stamp
			}
			l.mu.Lock()
			changed := now != sub.stamp
			sub.stamp = now
			l.mu.Unlock()
			if changed {
				s.updated(l, uri)
			}
		}
	}
}

// updated sends l notifications/resources/updated for uri: to its
// session, or down its subscriptions/listen stream, tagged with the
// stream's subscription as every message of it is. A stream whose
// messages are not being read is not waited for.
func (s *Server) updated(l *live, uri string) {
	if l.stream == nil {
		_ = s.mcp.SendNotificationToSpecificClient(l.id, string(mcpgo.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
		return
	}
	n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
		Method: string(mcpgo.MethodNotificationResourceUpdated),
		Params: mcpgo.NotificationParams{Meta: map[string]any{mcpgo.MetaKeySubscriptionID: l.listenID}, AdditionalFields: map[string]any{"uri": uri}},
	}}
	if h, ok := l.stream.(server.SessionWithStreamableHTTPConfig); ok {
		h.UpgradeToSSEWhenReceiveNotification()
	}
	select {
	case l.stream.NotificationChannel() <- n:
	default:
	}
}
