package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
)

// stdioSessions numbers the stdio sessions of a process.
var stdioSessions atomic.Int64

// stdioSession is the one client session of a stdio connection.
type stdioSession struct {
	id          string
	notes       chan mcpgo.JSONRPCNotification
	initialized atomic.Bool
}

var _ server.ClientSession = (*stdioSession)(nil)

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
	ctx, cancel := context.WithCancel(WithCaller(dispatch.WithTransport(s.mcp.WithContext(ctx, sess), dispatch.TransportMCPStdio), bearer, id))
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
	handle := func(line []byte) {
		if b := s.precheck(ctx, line, s.sessionVersion(sess.id)); b != nil {
			write(b)
			return
		}
		if resp := s.handleMessage(ctx, line); resp != nil {
			writeMsg(resp)
		}
	}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
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
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line := <-lines:
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(line, &m)
			if len(m.ID) == 0 || m.Method == string(mcpgo.MethodInitialize) {
				// Notifications and initialize keep their order: the
				// session is initialized before the next request runs.
				handle(line)
				continue
			}
			reqs.Go(func() { handle(line) })
		}
	}
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
