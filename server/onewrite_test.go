package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the writes of the connections it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{TCPConn: c.(*net.TCPConn), writes: &l.writes}, nil
}

type countingConn struct {
	*net.TCPConn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.TCPConn.Write(p)
}

// oneWriteServer serves h as serve does, through oneWrite, and returns
// its base URL and the count of its connections' writes.
func oneWriteServer(t *testing.T, h http.Handler) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := &http.Server{Handler: oneWrite(h), ConnContext: oneWriteContext}
	go func() { _ = srv.Serve(oneWriteListener(cl)) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String(), &cl.writes
}

// sizedAnswer writes a body of n bytes with its length, as api.writeJSON does.
func sizedAnswer(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	_, _ = w.Write(body)
}

// TestOneWriteAnswers checks that each /api/ answer, of any size, leaves
// in one write with its bytes unchanged, over one keep-alive connection,
// and that paths outside /api/ are written as net/http writes them.
func TestOneWriteAnswers(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/answer", sizedAnswer)
	mux.HandleFunc("/other", sizedAnswer)
	mux.HandleFunc("/api/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	base, writes := oneWriteServer(t, mux)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	for _, n := range []int{0, 1, 100, 3900, 4096, 5000, 7300, 9929, 16384, 70000, 200000, 10} {
		before := writes.Load()
		resp, body := get(fmt.Sprintf("/api/answer?n=%d", n))
		want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		if resp.StatusCode != 200 || !bytes.Equal(body, want) || resp.ContentLength != int64(n) {
			t.Errorf("n=%d: status %d, %d bytes (length %d); want 200 and the %d bytes written", n, resp.StatusCode, len(body), resp.ContentLength, n)
		}
		if w := writes.Load() - before; w != 1 {
			t.Errorf("n=%d: the answer left in %d writes, want 1", n, w)
		}
	}
	before := writes.Load()
	if resp, _ := get("/api/empty"); resp.StatusCode != http.StatusNoContent || writes.Load()-before != 1 {
		t.Errorf("an answer without a body: status %d in %d writes, want 204 in 1", resp.StatusCode, writes.Load()-before)
	}
	before = writes.Load()
	if _, body := get("/other?n=9000"); len(body) != 9000 || writes.Load()-before != 2 {
		t.Errorf("outside /api/: %d bytes in %d writes; want 9000 bytes in net/http's 2", len(body), writes.Load()-before)
	}
}

// TestOneWriteStreamsOutsideAPI checks that a streamed response outside
// /api/, such as /mcp's, reaches the client part by part: a held part
// would never arrive, and the handler waits for it to.
func TestOneWriteStreamsOutsideAPI(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	var gaveUp atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first\n")
		http.NewResponseController(w).Flush()
		// A held part would never arrive: the handler gives up waiting
		// after a minute, and the test fails on that, not on a time.
		select {
		case <-arrived:
		case <-time.After(time.Minute):
			gaveUp.Store(true)
		}
		_, _ = io.WriteString(w, "second\n")
	})
	base, _ := oneWriteServer(t, mux)
	resp, err := http.Get(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 6)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first\n" {
		t.Fatalf("first part: %q, %v", buf, err)
	}
	if gaveUp.Load() {
		t.Error("the first part arrived only after the handler gave up waiting for it")
	}
	close(arrived)
	rest, _ := io.ReadAll(resp.Body)
	if string(rest) != "second\n" {
		t.Errorf("second part %q", rest)
	}
}

// TestOneWriteContinue checks that a POST asking for 100 Continue gets it
// at once: nothing written before the answer's body is held.
func TestOneWriteContinue(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	base, _ := oneWriteServer(t, mux)
	// The client waits for the 100 Continue (an hour) before it sends the
	// body, so a held one fails the call at its deadline (a minute), not
	// by a time measured.
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Hour}, Timeout: time.Minute}
	payload := strings.Repeat("x", 20000)
	req, err := http.NewRequest(http.MethodPost, base+"/api/echo", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Expect", "100-continue")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the call ended with %v: the 100 Continue was held", err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != payload {
		t.Errorf("the answer holds %d bytes, want the %d posted", len(got), len(payload))
	}
}

// TestOneWriteConcurrentConnections answers many connections at once, for
// the race detector: a connection's hold is its own.
func TestOneWriteConcurrentConnections(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/answer", sizedAnswer)
	base, _ := oneWriteServer(t, mux)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}}
			for j := range 20 {
				n := 1000 + 997*(i+j)
				resp, err := client.Get(fmt.Sprintf("%s/api/answer?n=%d", base, n))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if len(body) != n || !bytes.HasPrefix(body, []byte("0123456789abcdef")) {
					t.Errorf("n=%d: %d bytes", n, len(body))
				}
			}
		})
	}
	wg.Wait()
}
