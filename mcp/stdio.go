package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
)

// stdioSessions numbers the stdio sessions of a process.
var stdioSessions atomic.Int64

// stdioSession is the one client session of a stdio connection.
type stdioSession struct {
	id          string
	notes       chan mcpgo.JSONRPCNotification
	initialized atomic.Bool
	// level is the log level logging/setLevel set ("" until then).
	level atomic.Value
}

var _ server.SessionWithLogging = (*stdioSession)(nil)

// SetLogLevel and GetLogLevel keep the session's log level, which the
// notices it is sent honour.
func (s *stdioSession) SetLogLevel(level mcpgo.LoggingLevel) { s.level.Store(level) }
func (s *stdioSession) GetLogLevel() mcpgo.LoggingLevel {
	l, _ := s.level.Load().(mcpgo.LoggingLevel)
	return l
}

func (s *stdioSession) SessionID() string                                     { return s.id }
func (s *stdioSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification { return s.notes }
func (s *stdioSession) Initialize()                                           { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool                                     { return s.initialized.Load() }

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done, as the caller whose credential is
// bearer ("" for none) and who resolved to id. Requests run concurrently;
// initialize and notifications run in the order they arrive. Nothing but
// protocol messages is written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, bearer string, id tzctx.Identity) error {
	sess := &stdioSession{id: fmt.Sprintf("stdio-%d", stdioSessions.Add(1)), notes: make(chan mcpgo.JSONRPCNotification, 64)}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return err
	}
	defer s.mcp.UnregisterSession(context.WithoutCancel(ctx), sess.id)
	ctx, cancel := context.WithCancel(WithCaller(tzctx.WithTransport(s.mcp.WithContext(ctx, sess), tzctx.TransportMCPStdio), bearer, id))
	defer cancel()

	var mu sync.Mutex
	var writeErr error
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if writeErr == nil {
			_, writeErr = out.Write(append(b, '\n'))
		}
	}
	writeMsg := func(msg any) {
		b, err := json.Marshal(msg)
		if err != nil {
			s.log.Error("mcp stdio: encode a message", "error", err.Error())
			return
		}
		write(b)
	}
	var notes sync.WaitGroup
	notes.Go(func() {
		for {
			select {
			case n := <-sess.notes:
				writeMsg(n)
			case <-ctx.Done():
				return
			}
		}
	})
	defer notes.Wait()
	defer cancel()

	var reqs sync.WaitGroup
	defer reqs.Wait()
	// A subscriptions/listen stream lasts until the client cancels it or
	// the input ends: the requests still running when it ends are
	// answered, and the streams are ended, so that they are too.
	streams, endStreams := context.WithCancel(ctx)
	defer endStreams()
	handle := func(line []byte, method string) {
		if b := s.precheck(ctx, line, s.sessionVersion(sess.id)); b != nil {
			write(b)
			return
		}
		rctx := ctx
		if method == string(mcpgo.MethodSubscriptionsListen) {
			rctx = streams
		}
		if resp := s.handleMessage(rctx, line); resp != nil {
			writeMsg(resp)
		}
	}
	lines := make(chan stdioLine)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(in)
		for {
			line, over, err := readLine(r, s.bounds.lineLimit)
			if over || len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- stdioLine{raw: line, over: over}:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			endStreams()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case l := <-lines:
			if l.over {
				write(s.refuseLong(ctx, l.raw))
				continue
			}
			line := l.raw
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(line, &m)
			if len(m.ID) == 0 || m.Method == string(mcpgo.MethodInitialize) {
				// Notifications and initialize keep their order: the
				// session is initialized before the next request runs.
				handle(line, m.Method)
				continue
			}
			reqs.Go(func() { handle(line, m.Method) })
		}
	}
}

// stdioLine is one line read from a stdio client: the whole line, or,
// where it is over the bound, its first bytes alone.
type stdioLine struct {
	raw  []byte
	over bool
}

// readLine reads one line of r, its newline included. A line whose
// message (the bytes before its newline) is over limit bytes is read to
// its end without being kept: readLine returns its first limit bytes and
// over set, so a line of any length costs no more memory than limit.
func readLine(r *bufio.Reader, limit int64) (line []byte, over bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !over {
			if int64(len(line)+len(bytes.TrimSuffix(chunk, []byte("\n")))) > limit {
				over = true
				line = append(line, chunk[:limit-int64(len(line))]...)
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, over, err
		}
	}
}

// refuseLong answers a line over the bound, without reading the rest of
// it, with the JSON-RPC error the streamable HTTP transport gives a body
// over the bound (-32600), for the id its first bytes give (null where
// they give none), and records the refusal under the action they name.
func (s *Server) refuseLong(ctx context.Context, prefix []byte) []byte {
	id, action := prefixCall(prefix)
	detail := fmt.Sprintf("the message is over the size bound of %d bytes; send a smaller message", s.bounds.lineLimit)
	_ = s.d.Refuse(ctx, action, &tzctx.Error{Code: tzctx.InvalidRequest, Detail: detail, Status: http.StatusRequestEntityTooLarge})
	return rpcErrorMessage(id, mcpgo.INVALID_REQUEST, detail)
}

// prefixCall reads, from the first bytes of a JSON-RPC message, its id
// and the action it calls (as calledAction names it), where they come
// before the bytes end: members are read in order until one cannot be.
func prefixCall(prefix []byte) (json.RawMessage, string) {
	var id json.RawMessage
	var method, name string
	dec := json.NewDecoder(bytes.NewReader(prefix))
	// member reads the next member's name, false where there is none.
	member := func() (string, bool) {
		if !dec.More() {
			return "", false
		}
		t, err := dec.Token()
		k, ok := t.(string)
		return k, err == nil && ok
	}
	skip := func() bool { return dec.Decode(new(json.RawMessage)) == nil }
	scan := func() {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return
		}
		for key, ok := member(); ok; key, ok = member() {
			switch key {
			case "id":
				var raw json.RawMessage
				if dec.Decode(&raw) != nil {
					return
				}
				if !bytes.Equal(raw, []byte("null")) {
					id = raw
				}
			case "method":
				if dec.Decode(&method) != nil {
					return
				}
			case "params":
				if t, err := dec.Token(); err != nil || t != json.Delim('{') {
					return
				}
				for k, ok := member(); ok; k, ok = member() {
					if k == "name" && dec.Decode(&name) != nil || k != "name" && !skip() {
						return
					}
				}
				if _, err := dec.Token(); err != nil {
					return
				}
			default:
				if !skip() {
					return
				}
			}
		}
	}
	scan()
	call, _ := json.Marshal(map[string]any{"method": method, "params": map[string]any{"name": name}})
	return id, calledAction(call)
}

// handleMessage runs one message through mcp-go, a panic answered as an
// internal error without its value, which may hold the caller's words.
func (s *Server) handleMessage(ctx context.Context, raw []byte) (resp mcpgo.JSONRPCMessage) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp message panicked")
			var m struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(raw, &m)
			resp = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(m.ID), mcpgo.INTERNAL_ERROR, "the server failed to answer; try again", nil)
		}
	}()
	return s.mcp.HandleMessage(ctx, raw)
}
