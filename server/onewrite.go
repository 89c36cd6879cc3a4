package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
)

// net/http writes a response through a 4 KiB buffer, so an answer of a
// page (7 to 10 KB) leaves in two writes, and on loopback in two
// segments the client wakes for. oneWrite sends each /api/ answer with
// one write: once the handler begins its body, the connection holds what
// net/http writes to it, and sends it with the rest when the handler is
// done. Answers under /api/ are whole before they are written (a length,
// never a stream); /mcp streams and is never held, nor is anything
// written before the body begins, such as a 100 Continue.

// conn is what oneWrite needs of an accepted connection; *net.TCPConn is
// one.
type conn interface {
	net.Conn
	io.ReaderFrom
	CloseWrite() error
}

var _ conn = (*net.TCPConn)(nil)

// oneWriteListener returns l, its TCP connections wrapped so oneWrite
// can hold their writes.
func oneWriteListener(l net.Listener) net.Listener { return holdingListener{l} }

type holdingListener struct{ net.Listener }

func (l holdingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(conn); ok {
		return &holdingConn{conn: tc}, nil
	}
	return c, err
}

// holdingConn is an accepted connection whose writes are held while hold
// is set. Only the goroutine serving the connection's request writes to
// it, as net/http writes an HTTP/1.x connection.
type holdingConn struct {
	conn
	hold bool
	held []byte
}

// Write implements net.Conn: it holds p while hold is set, and otherwise
// writes what it holds and p with one write.
func (c *holdingConn) Write(p []byte) (int, error) {
	if c.hold {
		c.held = append(c.held, p...)
		return len(p), nil
	}
	if len(c.held) == 0 {
		return c.conn.Write(p)
	}
	n := len(c.held)
	c.held = append(c.held, p...)
	w, err := c.conn.Write(c.held)
	c.held = c.held[:0]
	return max(w-n, 0), err
}

// ReadFrom implements io.ReaderFrom, which net/http uses to send a file:
// what is held goes first.
func (c *holdingConn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.release(); err != nil {
		return 0, err
	}
	return c.conn.ReadFrom(r)
}

// CloseWrite implements net/http's half close, after what is held.
func (c *holdingConn) CloseWrite() error {
	if err := c.release(); err != nil {
		return err
	}
	return c.conn.CloseWrite()
}

// release stops holding and writes what is held.
func (c *holdingConn) release() error {
	c.hold = false
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.conn.Write(c.held)
	c.held = c.held[:0]
	return err
}

// maxHeld bounds the buffer a connection keeps between answers, so one
// large answer (a tree's whole text) does not stay in memory.
const maxHeld = 64 << 10

type holdingKey struct{}

// oneWriteContext is the http.Server's ConnContext: it gives a
// request's handler the connection it came on.
func oneWriteContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*holdingConn); ok {
		return context.WithValue(ctx, holdingKey{}, hc)
	}
	return ctx
}

// oneWrite sends each answer of h under /api/ with one write, on
// connections oneWriteListener accepted and oneWriteContext named.
func oneWrite(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(holdingKey{}).(*holdingConn)
		if c == nil || !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		defer func() {
			_ = c.release() // also where h panicked: nothing stays held
			if cap(c.held) > maxHeld {
				c.held = nil
			}
		}()
		h.ServeHTTP(&holdingWriter{ResponseWriter: w, c: c}, r)
		// net/http writes the rest of its buffer after the handler
		// returns; flushed now, it goes out with what is held.
		c.hold = false
		_ = http.NewResponseController(w).Flush()
	})
}

// holdingWriter starts holding its connection's writes at the first
// write of the body.
type holdingWriter struct {
	http.ResponseWriter
	c *holdingConn
}

func (w *holdingWriter) Write(p []byte) (int, error) {
	w.c.hold = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach net/http's writer.
func (w *holdingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
