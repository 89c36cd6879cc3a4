package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/server"
)

// mcpRounds is how many times the one-client run reads every route over
// each front end, after one round that is not counted.
const mcpRounds = 5

// BenchmarkMCPvsHTTP reads the same whole pages (limit 16000) over the
// HTTP API (GET /api/v1/actions/read_documentation) and over MCP
// tools/call on streamable HTTP, in one session opened with the latest
// protocol version that has sessions, from one server in this process
// (so -cpuprofile and -memprofile cover its handlers) on the PowerShell
// corpus, or on the sample site where the corpus is absent. Both front
// ends are driven by the same plain Go load generator: keep-alive
// connections, bodies read whole and discarded.
//
//   - one-client: one connection each, the calls alternating; the median
//     of each and their ratio (target: MCP within 1.3x of HTTP);
//   - concurrent: benchConns connections each, benchDuration a run, one
//     MCP session shared by every connection; calls/s of each and their
//     ratio (target: MCP at least 0.6x of HTTP).
//
// Profile the MCP side alone with
//
//	go test ./cmd/tzctx -run '^$' -bench 'MCPvsHTTP/concurrent' -benchtime 1x -cpuprofile /tmp/mcp.cpu
//
// (the HTTP run is in the same profile; focus on mcp.) and keep profiles
// out of the repository.
func BenchmarkMCPvsHTTP(b *testing.B) {
	dir := b.TempDir()
	data := filepath.Join(dir, "data")
	corpus, trees := "powershell-docs", []ingest.TreeSource(nil)
	if _, err := os.Stat(filepath.Join(mcpCorpora(), "powershell-docs", "docs.json")); err == nil {
		trees = []ingest.TreeSource{{Name: "tzdocs", Dir: filepath.Join(mcpCorpora(), "powershell-docs")}}
	} else {
		corpus = "the sample site"
		b.Logf("the PowerShell corpus is absent from %s (set TZCTX_CORPORA): measuring on the sample site, whose pages are smaller", mcpCorpora())
		trees = testkit.SiteTrees(b, testkit.SampleSite(b))
	}
	testkit.IngestInto(b, data, "bench", true, trees...)
	base := startServeInProcess(b, data, dir)
	routes := wholePages(b, base, "tzdocs", benchRoutes)
	sess := openBenchSession(b, base+"/mcp")
	httpReq := func(i int) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, base+"/api/v1/actions/read_documentation?page="+url.QueryEscape(routes[i%len(routes)])+"&limit=16000", nil)
		return r
	}
	mcpReq := func(i int) *http.Request { return sess.call(routes[i%len(routes)]) }

	// The answer sizes, as a client reads them off the wire.
	one := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	var httpBytes, mcpBytes int
	for i := range routes {
		httpBytes += mustCall(b, one, httpReq(i), checkHTTP)
		mcpBytes += mustCall(b, one, mcpReq(i), checkMCP)
	}

	b.Run("one-client", func(b *testing.B) {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		mc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		for b.Loop() {
			var h, m []time.Duration
			for round := range mcpRounds + 1 {
				for i := range routes {
					t0 := time.Now()
					mustCall(b, hc, httpReq(i), checkHTTP)
					dh := time.Since(t0)
					t0 = time.Now()
					mustCall(b, mc, mcpReq(i), checkMCP)
					dm := time.Since(t0)
					if round > 0 {
						h, m = append(h, dh), append(m, dm)
					}
				}
			}
			hm, hp := quantiles(h)
			mm, mp := quantiles(m)
			b.ReportMetric(ms(hm), "http-median-ms")
			b.ReportMetric(ms(mm), "mcp-median-ms")
			b.ReportMetric(float64(mm)/float64(hm), "mcp/http-median")
			b.ReportMetric(1.3, "mcp/http-median-max") // the target, which the report prints beside the ratio
			b.ReportMetric(float64(mcpBytes)/float64(httpBytes), "mcp/http-bytes")
			fmt.Printf("page reads on %s, one client, one keep-alive connection each, %d pages x %d rounds: HTTP API median %.3f ms p99 %.3f ms, %.1f KB an answer; MCP tools/call median %.3f ms p99 %.3f ms, %.1f KB an answer; MCP/HTTP at the median %.2fx (target <= 1.3x)\n",
				corpus, len(routes), mcpRounds, ms(hm), ms(hp), float64(httpBytes)/float64(len(routes))/1000,
				ms(mm), ms(mp), float64(mcpBytes)/float64(len(routes))/1000, float64(mm)/float64(hm))
		}
	})
	b.Run("concurrent", func(b *testing.B) {
		for b.Loop() {
			h := loadRun(b, httpReq, checkHTTP)
			m := loadRun(b, mcpReq, checkMCP)
			b.ReportMetric(h.rps, "http-rps")
			b.ReportMetric(h.p99ms, "http-p99-ms")
			b.ReportMetric(m.rps, "mcp-rps")
			b.ReportMetric(m.p99ms, "mcp-p99-ms")
			b.ReportMetric(m.rps/h.rps, "mcp/http-rps")
			b.ReportMetric(0.6, "mcp/http-rps-min")
			fmt.Printf("page reads on %s, %d keep-alive connections each, %v a run, one MCP session: HTTP API %.0f req/s p99 %.2f ms; MCP tools/call %.0f calls/s p99 %.2f ms; MCP/HTTP %.2fx (target >= 0.6x)\n",
				corpus, benchConns, benchDuration, h.rps, h.p99ms, m.rps, m.p99ms, m.rps/h.rps)
		}
	})
}

// mcpCorpora is the corpora folder testkit.Corpora reads, without
// skipping where it is absent.
func mcpCorpora() string {
	if dir := os.Getenv("TZCTX_CORPORA"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "corpora")
}

// startServeInProcess serves data with the default configuration on a
// free loopback port in this process, its log going to a file in dir,
// and returns the base URL; the server stops when the benchmark ends.
func startServeInProcess(b *testing.B, data, dir string) string {
	b.Helper()
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logf, nil)))
	cfg := server.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	// The load comes from one address: let it hold every call slot.
	cfg.MaxInFlightPerCaller = cfg.MaxInFlight
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, data, cfg, ready) }()
	b.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			b.Error("serve did not return within 15 s of its context ending")
		}
		slog.SetDefault(prev)
		logf.Close()
	})
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-done:
		b.Fatalf("serve returned before listening: %v", err)
	}
	return ""
}

// wholePages reads tree's index and returns up to n of the page routes
// it links, spread evenly over it, whose whole page is one answer of
// limit 16000.
func wholePages(b *testing.B, base, tree string, n int) []string {
	b.Helper()
	link := regexp.MustCompile(`\]\(/(` + regexp.QuoteMeta(tree) + `/[^)\s#]+?)/?\)`)
	var index bytes.Buffer
	args := url.Values{"tree": {tree}, "limit": {"16000"}}
	for {
		a := getAnswer(b, base, args)
		index.WriteString(a.Text)
		if a.NextOffset == nil {
			break
		}
		args.Set("offset", strconv.FormatInt(*a.NextOffset, 10))
		args.Set("stamp", a.Stamp)
	}
	var all []string
	for _, m := range link.FindAllStringSubmatch(index.String(), -1) {
		if !slices.Contains(all, m[1]) {
			all = append(all, m[1])
		}
	}
	step := max(1, len(all)/n)
	var routes []string
	for off := 0; off < step && len(routes) < n; off++ {
		for j := off; j < len(all) && len(routes) < n; j += step {
			if slices.Contains(routes, all[j]) {
				continue
			}
			if a := getAnswer(b, base, url.Values{"page": {all[j]}, "limit": {"16000"}}); a.NextOffset == nil && len(a.Text) > 0 {
				routes = append(routes, all[j])
			}
		}
	}
	if len(routes) == 0 {
		b.Fatalf("no page of tree %s is whole in one answer", tree)
	}
	return routes
}

// benchSession is an initialized MCP session on a streamable HTTP endpoint.
type benchSession struct {
	endpoint, id, version string
	next                  atomic.Int64
}

// openBenchSession initializes a session with the latest protocol version
// that has sessions, as a client does, and sends notifications/initialized.
func openBenchSession(b *testing.B, endpoint string) *benchSession {
	b.Helper()
	s := &benchSession{endpoint: endpoint, version: mcpgo.LATEST_LEGACY_PROTOCOL_VERSION}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": s.version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "tzctx-bench", "version": "1"},
	}})
	req := s.post(init)
	req.Header.Del("Mcp-Session-Id")
	req.Header.Del("Mcp-Protocol-Version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s.id = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || s.id == "" {
		b.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, s.id, body)
	}
	resp, err = http.DefaultClient.Do(s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		b.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return s
}

// post is a POST of body in the session.
func (s *benchSession) post(body []byte) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, s.endpoint, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Session-Id", s.id)
	r.Header.Set("Mcp-Protocol-Version", s.version)
	return r
}

// call is a tools/call of read_documentation reading route whole, under
// an ID of its own.
func (s *benchSession) call(route string) *http.Request {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_documentation","arguments":{"page":%q,"limit":16000}}}`, s.next.Add(1), route)
	return s.post(body)
}

// checkHTTP and checkMCP tell an answer from a refusal: a 200 for HTTP;
// a 200 holding a tool result that is no error for MCP.
func checkHTTP(status int, _ []byte) bool { return status == http.StatusOK }

func checkMCP(status int, body []byte) bool {
	return status == http.StatusOK && bytes.Contains(body, []byte(`"result":`)) && !bytes.Contains(body, []byte(`"isError":true`))
}

// mustCall sends req on c, reads its answer whole and fails where check
// refuses it; it returns the answer's length.
func mustCall(b *testing.B, c *http.Client, req *http.Request, check func(int, []byte) bool) int {
	n, body, err := doCall(c, req, check)
	if err != nil {
		b.Fatalf("%s %s: %v: %.300s", req.Method, req.URL.Path, err, body)
	}
	return n
}

// callBufs hold the answers the load generator reads.
var callBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func doCall(c *http.Client, req *http.Request, check func(int, []byte) bool) (int, []byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	buf := callBufs.Get().(*bytes.Buffer)
	defer callBufs.Put(buf)
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, nil, err
	}
	if !check(resp.StatusCode, buf.Bytes()) {
		return 0, slices.Clone(buf.Bytes()), fmt.Errorf("status %d, not an answer", resp.StatusCode)
	}
	return buf.Len(), nil, nil
}

// loadRun has benchConns goroutines, each on a keep-alive connection of
// its own, send the requests next makes, in turn, for benchDuration, and
// returns requests/s and the p99 latency.
func loadRun(b *testing.B, next func(int) *http.Request, check func(int, []byte) bool) wrkResult {
	b.Helper()
	lat := make([][]time.Duration, benchConns)
	errs := make([]error, benchConns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(benchDuration)
	for g := range benchConns {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		wg.Go(func() {
			defer c.CloseIdleConnections()
			for k := g; time.Now().Before(deadline); k += benchConns {
				req := next(k)
				t0 := time.Now()
				_, body, err := doCall(c, req, check)
				lat[g] = append(lat[g], time.Since(t0))
				if err != nil {
					errs[g] = fmt.Errorf("%s %s: %w: %.300s", req.Method, req.URL.Path, err, body)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	return wrkResult{
		rps:   float64(len(all)) / elapsed.Seconds(),
		p99ms: ms(all[len(all)*99/100]),
	}
}
