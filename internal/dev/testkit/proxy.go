package testkit

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections from a loopback port to a target,
// carrying bytes both ways at a bounded rate, and can go down: it
// then cuts every connection it carries and refuses new ones, as a
// network fault or a stopped server would, mid-transfer included. It
// can also stall: it then keeps every connection open and sends clients
// nothing more, as a hung server or a black-holed network would.
type Proxy struct {
	// Addr is the proxy's host:port.
	Addr   string
	target string
	rate   int // bytes per second each way; 0 is unbounded
	ln     net.Listener

	mu       sync.Mutex
	down     bool
	stalled  bool
	conns    map[net.Conn]struct{}
	sent     int64 // to clients
	received int64 // from clients
}

// StartProxy starts a proxy to target on a free loopback port, carrying
// at most rate bytes a second each way (0: no bound), and stops it when
// the test ends.
func StartProxy(t testing.TB, target string, rate int) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, rate: rate, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.SetDown(true)
	})
	return p
}

// Sent returns the bytes sent back to clients so far.
func (p *Proxy) Sent() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

// Received returns the bytes received from clients so far.
func (p *Proxy) Received() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.received
}

// SetDown takes the proxy down (cutting every connection) or up again.
func (p *Proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

// SetStalled stalls the proxy (it holds what the target sends, and sends
// clients nothing, on every connection, open or new) or lets it carry
// bytes again.
func (p *Proxy) SetStalled(stalled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = stalled
}

// holding waits while the proxy is stalled and up, and reports whether
// it went down meanwhile.
func (p *Proxy) holding() (down bool) {
	for {
		p.mu.Lock()
		stalled, down := p.stalled, p.down
		p.mu.Unlock()
		if down || !stalled {
			return down
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	if !p.track(c, up) {
		return
	}
	go func() {
		p.pump(up, c, &p.received)
		up.Close()
	}()
	p.pump(c, up, &p.sent)
}

// pump copies src to dst at the proxy's rate, counting into n.
func (p *Proxy) pump(dst, src net.Conn, n *int64) {
	buf := make([]byte, 16<<10)
	if p.rate > 0 {
		buf = buf[:max(1, min(len(buf), p.rate/20))]
	}
	for {
		k, err := src.Read(buf)
		if k > 0 {
			if n == &p.sent && p.holding() {
				return
			}
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return
			}
			p.mu.Lock()
			*n += int64(k)
			p.mu.Unlock()
			if p.rate > 0 {
				time.Sleep(time.Duration(k) * time.Second / time.Duration(p.rate))
			}
		}
		if err != nil {
			return
		}
	}
}
