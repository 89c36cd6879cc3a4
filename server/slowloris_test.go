package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slowlorisConns is how many connections TestServeManyConnections holds
// open: a quarter that never send a byte, a quarter that send half a
// request's headers, a quarter that send the headers and half the body,
// and a quarter idle between requests on keep-alive.
const slowlorisConns = 3000

// TestServeManyConnections: with several thousand idle and half-sent
// connections open to a real server (New and Serve on a loopback
// listener, as tzctx serve runs them), a normal search is answered,
// and not shed: a body sent slowly holds no slot of max_in_flight. The
// server closes the half-sent requests within its own timeouts (5 s for
// headers, read_timeout for a body). It logs the latency of a search
// with none and with all of them open, in the same run.
func TestServeManyConnections(t *testing.T) {
	t.Parallel()
	// The connections' both ends are in this process: the test's and
	// the server's.
	need := uint64(2*slowlorisConns + 200)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("cannot read the open-file limit: %v", err)
	}
	if lim.Cur < need {
		if lim.Max < need {
			t.Skipf("the open-file hard limit is %d; this test holds %d connections, both ends in this process, %d descriptors (raise it with ulimit -Hn)", lim.Max, slowlorisConns, need)
		}
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Skipf("cannot raise the open-file limit to %d: %v", lim.Max, err)
		}
	}
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	cfg := DefaultConfig()
	// read_timeout 8 s: a half-sent body is closed well within the test.
	cfg.ReadTimeout = Duration(8 * time.Second)
	base := startServer(t, dataDir, cfg).base
	addr := strings.TrimPrefix(base, "http://")

	client := &http.Client{Timeout: 30 * time.Second}
	search := func() (time.Duration, error) {
		body := `{"tree":"cloud","query":"stamp offset"}`
		start := time.Now()
		resp, err := client.Post(base+"/api/v1/actions/read_documentation", "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		d := time.Since(start)
		if err != nil {
			return d, err
		}
		var a struct {
			Text  string `json:"text"`
			Total int    `json:"total"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(raw, &a) != nil || a.Total == 0 {
			return d, fmt.Errorf("search answered %d: %.200s", resp.StatusCode, raw)
		}
		return d, nil
	}
	measure := func(what string, n int) []time.Duration {
		t.Helper()
		var ds []time.Duration
		for i := 0; i < n; i++ {
			d, err := search()
			if err != nil {
				t.Fatalf("a search %s: %v", what, err)
			}
			ds = append(ds, d)
		}
		slices.Sort(ds)
		return ds
	}
	measure("warming up", 5)
	quiet := measure("with no other connection", 50)

	// Open the connections.
	kinds := []string{"silent", "half headers", "half body", "idle keep-alive"}
	conns := make([][]net.Conn, len(kinds))
	defer func() {
		for _, cs := range conns {
			for _, c := range cs {
				c.Close()
			}
		}
	}()
	openStart := time.Now()
	for i := 0; i < slowlorisConns; i++ {
		k := i % len(kinds)
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, slowlorisConns, err)
		}
		conns[k] = append(conns[k], c)
		var err2 error
		switch k {
		case 1:
			_, err2 = io.WriteString(c, "POST /api/v1/actions/read_documentation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
		case 2:
			_, err2 = io.WriteString(c, "POST /api/v1/actions/read_documentation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"tree\":\"cl")
		case 3:
			_, err2 = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		}
		if err2 != nil {
			t.Fatalf("connection %d: %v", i+1, err2)
		}
	}
	// The keep-alive ones read their answer and stay open.
	for _, c := range conns[3] {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 512)
		n, err := c.Read(buf)
		if err != nil || !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200")) {
			t.Fatalf("a keep-alive connection's /healthz: %v %q", err, buf[:n])
		}
		_ = c.SetReadDeadline(time.Time{})
	}
	opened := time.Since(openStart)
	loaded := measure(fmt.Sprintf("with %d connections open", slowlorisConns), 50)
	t.Logf("search latency, 50 requests each, same run: no other connection: p50 %v p90 %v max %v; %d idle and half-sent connections open (opened in %v): p50 %v p90 %v max %v",
		quiet[25], quiet[45], quiet[49], slowlorisConns, opened.Round(time.Millisecond), loaded[25], loaded[45], loaded[49])

	// The server closes what is half-sent within its timeouts: 5 s for
	// headers, read_timeout for a body. A connection it closes reads EOF
	// (or, for headers, a 408 first, then EOF). The client waits a
	// minute, far past them, so that a slow machine does not pass for a
	// server that holds connections open.
	closedBy := func(cs []net.Conn, within time.Duration) (int, time.Duration) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		closed, last := 0, time.Duration(0)
		start := time.Now()
		for _, c := range cs {
			wg.Add(1)
			go func(c net.Conn) {
				defer wg.Done()
				_ = c.SetReadDeadline(start.Add(within))
				_, err := io.Copy(io.Discard, c)
				var ne net.Error
				if err == nil || !(errors.As(err, &ne) && ne.Timeout()) {
					mu.Lock()
					closed++
					last = max(last, time.Since(start))
					mu.Unlock()
				}
			}(c)
		}
		wg.Wait()
		return closed, last
	}
	type result struct {
		closed int
		last   time.Duration
	}
	res := make([]result, 3)
	var wg sync.WaitGroup
	for k, within := range []time.Duration{time.Minute, time.Minute, time.Minute} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[k].closed, res[k].last = closedBy(conns[k], within)
		}()
	}
	wg.Wait()
	for k := 0; k < 3; k++ {
		t.Logf("%s connections: %d of %d closed by the server, the last %v after the search measure", kinds[k], res[k].closed, len(conns[k]), res[k].last.Round(time.Millisecond))
		if res[k].closed != len(conns[k]) {
			t.Errorf("%s: the server closed %d of %d connections within its timeouts", kinds[k], res[k].closed, len(conns[k]))
		}
	}
	if _, err := search(); err != nil {
		t.Fatalf("a search after the connections closed: %v", err)
	}
}
