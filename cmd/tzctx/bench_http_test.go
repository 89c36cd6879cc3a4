package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/server"
)

// The load every HTTP run shares: wrk's keep-alive connections and
// threads, the Go load generator's MCP sessions, and how long each run
// lasts. The machine has 2 cores; nginx runs 2 workers and tzctx
// GOMAXPROCS=2, so both servers get the same CPU budget, which they share
// with the load generator.
const (
	benchConns    = 32
	benchThreads  = 2
	benchDuration = 10 * time.Second
	benchCPUs     = 2
	benchRoutes   = 200
)

// benchQueries is the fixed rotating query list of the search runs: common
// and rare words, one to three words, short words, a cmdlet name and a
// miss.
var benchQueries = []string{
	"jobs", "remote session", "Get-ChildItem", "about_Jobs", "execution policy",
	"pipeline", "hashtable", "CimInstance", "xyzzyquokka", "ps", "foreach loop",
	"error action preference", "module manifest", "transcript", "credential",
	"parameter binding", "Invoke-Command", "json", "registry", "a",
}

// httpBench is what the HTTP sub-benchmarks share: the tzctx and nginx
// base URLs and the page routes both serve.
type httpBench struct {
	tzctx, nginx string
	routes       []string // tree-qualified routes such as tzdocs/7.6/CimCmdlets/Get-CimClass
	dir          string
}

// BenchmarkHTTP serves the PowerShell corpus from a real `tzctx serve`
// process and the same pages' Markdown from nginx, and measures both with
// wrk (keep-alive, 32 connections, 2 threads, 10 s a run, rotating over
// 200 page routes): page reads on each and their ratio (target: tzctx at
// least 0.6x nginx), searches on tzctx, and the same page reads over MCP
// streamable HTTP from a Go load generator of 32 sessions. It skips where
// wrk, nginx or the corpus is absent.
func BenchmarkHTTP(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is absent: this benchmark drives the servers with it (apt-get install wrk)")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			b.Skip("nginx is absent: this benchmark compares tzctx with it (apt-get install nginx)")
		}
		nginx = "/usr/sbin/nginx"
	}
	corpus := testkit.Corpus(b, "powershell-docs")
	bin := buildBinary(b)
	h := &httpBench{dir: b.TempDir()}
	data := filepath.Join(h.dir, "data")
	runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+corpus, "--activate")
	tzAddr, tzPID := startServeBenchPID(b, bin, data, h.dir)
	h.tzctx = "http://" + tzAddr
	h.routes = pageCopies(b, h.tzctx, filepath.Join(h.dir, "pages"))
	ngAddr, ngPID := startNginx(b, nginx, h.dir)
	h.nginx = "http://" + ngAddr

	var tzPage, ngPage, search wrkResult
	// The CPU time each server spent a request: on a shared machine the
	// requests/s move with the neighbours' load, the CPU a request takes
	// much less.
	var tzCPU, ngCPU float64
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			c0 := processCPU(tzPID)
			tzPage = runWrk(b, wrk, h.dir, h.tzctx, h.tzctxPagePaths())
			tzCPU = perRequestUS(processCPU(tzPID)-c0, tzPage.requests)
			c0 = processCPU(ngPID)
			ngPage = runWrk(b, wrk, h.dir, h.nginx, h.nginxPagePaths())
			ngCPU = perRequestUS(processCPU(ngPID)-c0, ngPage.requests)
		}
		b.ReportMetric(tzPage.rps, "tzctx-page-rps")
		b.ReportMetric(tzPage.p99ms, "tzctx-page-p99-ms")
		b.ReportMetric(tzCPU, "tzctx-page-cpu-us")
		b.ReportMetric(ngPage.rps, "nginx-page-rps")
		b.ReportMetric(ngPage.p99ms, "nginx-page-p99-ms")
		b.ReportMetric(ngCPU, "nginx-page-cpu-us")
		b.ReportMetric(tzPage.rps/ngPage.rps, "page-ratio")
	})
	b.Run("search", func(b *testing.B) {
		paths := make([]string, len(benchQueries))
		for i, q := range benchQueries {
			paths[i] = "/api/v1/actions/read_documentation?query=" + url.QueryEscape(q)
		}
		for b.Loop() {
			search = runWrk(b, wrk, h.dir, h.tzctx, paths)
		}
		b.ReportMetric(search.rps, "search-rps")
		b.ReportMetric(search.p99ms, "search-p99-ms")
	})
	var mcpRes wrkResult
	b.Run("mcp-page", func(b *testing.B) {
		for b.Loop() {
			mcpRes = mcpLoad(b, h.tzctx+"/mcp", h.routes)
		}
		b.ReportMetric(mcpRes.rps, "mcp-page-rps")
		b.ReportMetric(mcpRes.p99ms, "mcp-page-p99-ms")
	})
	fmt.Printf("HTTP on powershell-docs (%d page routes, %d connections, %v a run, %d CPUs each): page reads tzctx %.0f req/s p99 %.2f ms (%.0f µs of CPU a request), nginx %.0f req/s p99 %.2f ms (%.0f µs), ratio %.2fx (target >= 0.6x); search %.0f req/s p99 %.2f ms; MCP page reads %.0f req/s p99 %.2f ms\n",
		len(h.routes), benchConns, benchDuration, benchCPUs, tzPage.rps, tzPage.p99ms, tzCPU, ngPage.rps, ngPage.p99ms, ngCPU, tzPage.rps/ngPage.rps, search.rps, search.p99ms, mcpRes.rps, mcpRes.p99ms)
}

// tzctxPagePaths are the GET paths of the routes' whole-page reads.
func (h *httpBench) tzctxPagePaths() []string {
	out := make([]string, len(h.routes))
	for i, r := range h.routes {
		out[i] = "/api/v1/actions/read_documentation?page=" + url.QueryEscape(r) + "&limit=16000"
	}
	return out
}

// nginxPagePaths are the paths of the routes' .md copies nginx serves.
func (h *httpBench) nginxPagePaths() []string {
	out := make([]string, len(h.routes))
	for i, r := range h.routes {
		out[i] = "/" + (&url.URL{Path: r + ".md"}).EscapedPath()
	}
	return out
}

// freeAddr returns a loopback address no listener holds at the moment.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServeBenchPID starts `tzctx serve` on a free loopback port with
// GOMAXPROCS=benchCPUs, its log going to a file in dir as a deployed
// server's would (not through a pipe the benchmark must drain), and
// returns its address and process id once /healthz answers 200.
func startServeBenchPID(b *testing.B, bin, data, dir string) (string, int) {
	b.Helper()
	addr := freeAddr(b)
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logf.Close() })
	// The load comes from one address, so one caller may hold every
	// call slot (max_in_flight_per_caller), as behind a proxy.
	cfgPath := filepath.Join(dir, "serve-bench.json")
	if err := os.WriteFile(cfgPath, []byte(`{"max_in_flight_per_caller": 64}`), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "--data", data, "serve", "--config", cfgPath, "--addr", addr)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(benchCPUs))
	cmd.Stdout, cmd.Stderr = logf, logf
	startKilled(b, cmd)
	waitHealthy(b, "http://"+addr+"/healthz", filepath.Join(dir, "serve.log"))
	return addr, cmd.Process.Pid
}

// startKilled starts cmd in its own process group and, at the
// benchmark's end, stops the group: SIGTERM, on which nginx's master
// stops its workers before it exits, then SIGKILL to the group after
// 10 s. Killing the master alone would leave the workers running.
func startKilled(b *testing.B, cmd *exec.Cmd) {
	b.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	b.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
	})
}

// waitHealthy polls u until it answers 200, at most 30 s, and fails with
// the log file's text otherwise.
func waitHealthy(b *testing.B, u, logPath string) {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	raw, _ := os.ReadFile(logPath)
	b.Fatalf("%s did not answer 200 within 30 s:\n%s", u, raw)
}

var indexLink = regexp.MustCompile(`\]\(/(tzdocs/[^)\s]+?)/?\)`)

// pageCopies reads the tree's index, picks benchRoutes page routes spread
// evenly over it whose whole page fits one 16,000-code-point answer, and
// writes each page's text, as tzctx answers it, to dir/<route>.md. It
// returns the routes.
func pageCopies(b *testing.B, base, dir string) []string {
	b.Helper()
	var index strings.Builder
	args := url.Values{"tree": {"tzdocs"}, "limit": {"16000"}}
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
	for _, m := range indexLink.FindAllStringSubmatch(index.String(), -1) {
		all = append(all, m[1])
	}
	if len(all) < benchRoutes {
		b.Fatalf("the index lists %d pages; the benchmark rotates over %d", len(all), benchRoutes)
	}
	var routes []string
	var bytes int
	// Every step-th route, then those after them, until enough fit.
	step := len(all) / benchRoutes
	for off := 0; off < step && len(routes) < benchRoutes; off++ {
		for j := off; j < len(all) && len(routes) < benchRoutes; j += step {
			r := all[j]
			if slices.Contains(routes, r) {
				continue
			}
			a := getAnswer(b, base, url.Values{"page": {r}, "limit": {"16000"}})
			if a.NextOffset != nil {
				continue // the whole page is not one answer
			}
			f := filepath.Join(dir, filepath.FromSlash(r)+".md")
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(a.Text), 0o644); err != nil {
				b.Fatal(err)
			}
			bytes += len(a.Text)
			routes = append(routes, r)
		}
	}
	if len(routes) < benchRoutes {
		b.Fatalf("only %d pages fit one answer", len(routes))
	}
	b.Logf("%d page copies, %.1f KB of Markdown on average", len(routes), float64(bytes)/float64(len(routes))/1000)
	return routes
}

// readAnswer is the part of a read_documentation answer the benchmark
// reads.
type readAnswer struct {
	Stamp      string `json:"stamp"`
	NextOffset *int64 `json:"next_offset"`
	Text       string `json:"text"`
}

// getAnswer calls read_documentation by GET and fails on anything but 200.
func getAnswer(b *testing.B, base string, args url.Values) readAnswer {
	b.Helper()
	resp, err := http.Get(base + "/api/v1/actions/read_documentation?" + args.Encode())
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var a readAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("read_documentation %v: %d %v", args, resp.StatusCode, err)
	}
	return a
}

// startNginx writes an nginx.conf in dir serving dir/pages on a free
// loopback port (benchCPUs workers, no access log, keep-alive connections
// never closed by a request count), starts nginx in the foreground, and
// returns its address once a page answers.
func startNginx(b *testing.B, nginx, dir string) (string, int) {
	b.Helper()
	addr := freeAddr(b)
	user := ""
	if os.Getuid() == 0 {
		// Workers would run as nobody, who cannot read the temp folder.
		user = "user root;"
	}
	tmp := filepath.Join(dir, "nginx-tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		b.Fatal(err)
	}
	conf := fmt.Sprintf(`daemon off;
%[1]s
worker_processes %[2]d;
pid %[3]s/nginx.pid;
error_log %[3]s/nginx-error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000000;
	keepalive_timeout 120s;
	client_body_temp_path %[4]s/body;
	proxy_temp_path %[4]s/proxy;
	fastcgi_temp_path %[4]s/fastcgi;
	uwsgi_temp_path %[4]s/uwsgi;
	scgi_temp_path %[4]s/scgi;
	types { text/markdown md; }
	default_type text/markdown;
	server {
		listen %[5]s;
		root %[3]s/pages;
	}
}
`, user, benchCPUs, dir, tmp, addr)
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", cfg, "-e", filepath.Join(dir, "nginx-error.log"))
	startKilled(b, cmd)
	waitHealthy(b, "http://"+addr+"/"+firstCopy(b, filepath.Join(dir, "pages")), filepath.Join(dir, "nginx-error.log"))
	return addr, cmd.Process.Pid
}

// clockTick is the unit of /proc's CPU times (USER_HZ), 100 a second
// on every Linux the benchmarks run on.
const clockTick = 10 * time.Millisecond

// processCPU returns the CPU time, user and system, that the process pid
// and its child processes (nginx's workers) have used so far, or 0 where
// /proc does not say.
func processCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's parenthesis: state is field 3,
	// utime 14 and stime 15.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	d := time.Duration(ut+st) * clockTick
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, k := range strings.Fields(string(kids)) {
		if kp, err := strconv.Atoi(k); err == nil {
			d += processCPU(kp)
		}
	}
	return d
}

// firstCopy returns the slash path, below pages, of one .md copy.
func firstCopy(b *testing.B, pages string) string {
	b.Helper()
	var found string
	_ = filepath.WalkDir(pages, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(pages, p)
			found = (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath()
		}
		return err
	})
	if found == "" {
		b.Fatal("no page copies written")
	}
	return found
}

// wrkResult is one load run's throughput and 99th-percentile latency,
// and the requests it completed.
type wrkResult struct {
	rps, p99ms float64
	requests   int
}

// perRequestUS is cpu spread over n requests, in microseconds.
func perRequestUS(cpu time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / float64(n)
}

var (
	wrkRPS    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkCount  = regexp.MustCompile(`(\d+) requests in `)
	wrkP99    = regexp.MustCompile(`\s99%\s+([0-9.]+)(us|ms|s)\b`)
	wrkNon2xx = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkErrors = regexp.MustCompile(`Socket errors: .*`)
)

// runWrk runs wrk against base, rotating over paths with a Lua script, and
// parses its requests/s and p99 latency. A run with any non-2xx answer or
// socket error fails: its figures would not be of the path measured.
func runWrk(b *testing.B, wrk, dir, base string, paths []string) wrkResult {
	b.Helper()
	var lua strings.Builder
	lua.WriteString("local paths = {\n")
	for _, p := range paths {
		fmt.Fprintf(&lua, "\t%q,\n", p)
	}
	lua.WriteString("}\nlocal i = 0\nrequest = function()\n\ti = i % #paths + 1\n\treturn wrk.format(\"GET\", paths[i])\nend\n")
	script := filepath.Join(dir, "rotate.lua")
	if err := os.WriteFile(script, []byte(lua.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(wrk, "-t", strconv.Itoa(benchThreads), "-c", strconv.Itoa(benchConns),
		"-d", fmt.Sprintf("%ds", int(benchDuration.Seconds())), "--latency", "-s", script, base).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		b.Fatalf("wrk against %s: %v\n%s", base, err, out)
	}
	return r
}

// parseWrk reads requests/s and the p99 latency from wrk --latency output.
// Output with any non-2xx answer or socket error is refused: its figures
// would not be of the path measured.
func parseWrk(text string) (wrkResult, error) {
	if m := wrkNon2xx.FindStringSubmatch(text); m != nil {
		return wrkResult{}, fmt.Errorf("%s answers were not 2xx or 3xx", m[1])
	}
	if m := wrkErrors.FindString(text); m != "" {
		return wrkResult{}, fmt.Errorf("%s", m)
	}
	rps := wrkRPS.FindStringSubmatch(text)
	p99 := wrkP99.FindStringSubmatch(text)
	if rps == nil || p99 == nil {
		return wrkResult{}, fmt.Errorf("the output has no requests/s or 99%% latency")
	}
	var r wrkResult
	r.rps, _ = strconv.ParseFloat(rps[1], 64)
	r.p99ms, _ = strconv.ParseFloat(p99[1], 64)
	if m := wrkCount.FindStringSubmatch(text); m != nil {
		r.requests, _ = strconv.Atoi(m[1])
	}
	switch p99[2] {
	case "us":
		r.p99ms /= 1000
	case "s":
		r.p99ms *= 1000
	}
	return r, nil
}

// mcpLoad opens benchConns initialized MCP sessions on endpoint and has
// each call read_documentation on the routes in turn, whole pages, for
// benchDuration. It returns calls/s and the p99 latency of a call.
func mcpLoad(b *testing.B, endpoint string, routes []string) wrkResult {
	b.Helper()
	ctx := context.Background()
	clients := make([]*client.Client, benchConns)
	for i := range clients {
		// Each session keeps its own keep-alive connection, as each of
		// wrk's does: mcp-go's default client shares http.DefaultTransport,
		// which keeps 2 idle connections a host, so 30 of 32 sessions
		// would open a new connection on most calls.
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		c, err := client.NewStreamableHttpClient(endpoint, transport.WithHTTPBasicClient(hc))
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		req := mcpgo.InitializeRequest{}
		req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
		req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-bench", Version: "1"}
		if _, err := c.Initialize(ctx, req); err != nil {
			b.Fatalf("initialize: %v", err)
		}
		clients[i] = c
	}
	defer func() {
		for _, c := range clients {
			_ = c.Close()
		}
	}()
	lat := make([][]time.Duration, benchConns)
	errs := make([]error, benchConns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(benchDuration)
	for i, c := range clients {
		wg.Go(func() {
			for k := i; time.Now().Before(deadline); k++ {
				req := mcpgo.CallToolRequest{}
				req.Params.Name = "read_documentation"
				req.Params.Arguments = map[string]any{"page": routes[k%len(routes)], "limit": 16000}
				t0 := time.Now()
				res, err := c.CallTool(ctx, req)
				lat[i] = append(lat[i], time.Since(t0))
				if err == nil && res.IsError {
					err = fmt.Errorf("tool error on %s: %v", routes[k%len(routes)], res.Content)
				}
				if err != nil {
					errs[i] = err
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
	if len(all) == 0 {
		b.Fatal("no MCP calls completed")
	}
	return wrkResult{
		rps:   float64(len(all)) / elapsed.Seconds(),
		p99ms: float64(all[len(all)*99/100].Microseconds()) / 1000,
	}
}

// wrkSample is wrk 4.1's --latency output, as the parser meets it.
const wrkSample = `Running 10s test @ http://127.0.0.1:40000
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    11.80ms   20.13ms 163.13ms   88.35%
    Req/Sec     1.45k   312.07     2.31k    70.50%
  Latency Distribution
     50%    4.07ms
     75%    9.90ms
     90%   32.48ms
     99%  163.13ms
  28862 requests in 10.01s, 260.61MB read
Requests/sec:   2882.44
Transfer/sec:     26.03MB
`

// TestWrkOutputParse checks the reading of wrk's figures, and that runs
// with failed answers are refused rather than reported.
func TestWrkOutputParse(t *testing.T) {
	r, err := parseWrk(wrkSample)
	if err != nil || r.rps != 2882.44 || r.p99ms != 163.13 || r.requests != 28862 {
		t.Fatalf("parseWrk = %+v, %v; want 2882.44 req/s, p99 163.13 ms, 28862 requests", r, err)
	}
	r, err = parseWrk(strings.Replace(wrkSample, "163.13ms\n", "812.00us\n", 1))
	if err != nil || r.p99ms != 0.812 {
		t.Fatalf("p99 in us: %+v, %v; want 0.812 ms", r, err)
	}
	r, err = parseWrk(strings.Replace(wrkSample, "163.13ms\n", "1.20s\n", 1))
	if err != nil || r.p99ms != 1200 {
		t.Fatalf("p99 in s: %+v, %v; want 1200 ms", r, err)
	}
	for _, bad := range []string{
		strings.Replace(wrkSample, "Requests/sec", "Non-2xx or 3xx responses: 7\nRequests/sec", 1),
		strings.Replace(wrkSample, "Requests/sec", "  Socket errors: connect 0, read 3, write 0, timeout 0\nRequests/sec", 1),
		"wrk: command failed\n",
	} {
		if r, err := parseWrk(bad); err == nil {
			t.Errorf("parseWrk accepted %q as %+v", bad, r)
		}
	}
}

// BenchmarkHTTPProfile runs the server in this process, so that
// -cpuprofile and -memprofile cover its handlers, and drives it as
// BenchmarkHTTP does: page reads with wrk, searches with wrk, then the page reads over MCP.
// Its log goes to a file in batches, as a deployed server's would. Profile with
//
//	go test ./cmd/tzctx -run '^$' -bench 'HTTPProfile/^page$' -benchtime 1x -cpuprofile /tmp/page.cpu
//
// and keep the profiles out of the repository.
func BenchmarkHTTPProfile(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is absent: this benchmark drives the server with it (apt-get install wrk)")
	}
	corpus := testkit.Corpus(b, "powershell-docs")
	bin := buildBinary(b)
	dir := b.TempDir()
	data := filepath.Join(dir, "data")
	runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+corpus, "--activate")
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer logf.Close()
	// Its lines leave in batches, as tzctx serve writes them.
	lw := server.NewLineWriter(logf)
	defer lw.Close()
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lw, nil)))
	defer slog.SetDefault(prev)
	cfg := server.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	// wrk's 32 connections are one anonymous caller: give it every call
	// slot (max_in_flight_per_caller), as behind a proxy, so that the
	// profile measures serving, not the per-caller share's 429s.
	cfg.MaxInFlightPerCaller = cfg.MaxInFlight
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, data, cfg, ready) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			b.Error("serve did not return within 15 s of its context ending")
		}
	}()
	var base string
	select {
	case addr := <-ready:
		base = "http://" + addr
	case err := <-done:
		b.Fatalf("serve returned before listening: %v", err)
	}
	h := &httpBench{tzctx: base, dir: dir, routes: pageCopies(b, base, filepath.Join(dir, "pages"))}
	b.Run("page", func(b *testing.B) {
		var r wrkResult
		for b.Loop() {
			r = runWrk(b, wrk, dir, base, h.tzctxPagePaths())
		}
		b.ReportMetric(r.rps, "tzctx-page-rps")
		b.ReportMetric(r.p99ms, "tzctx-page-p99-ms")
	})
	// Searches, for a profile of the search request's path beside the
	// page read's.
	b.Run("search", func(b *testing.B) {
		paths := make([]string, len(benchQueries))
		for i, q := range benchQueries {
			paths[i] = "/api/v1/actions/read_documentation?query=" + url.QueryEscape(q)
		}
		var r wrkResult
		for b.Loop() {
			r = runWrk(b, wrk, dir, base, paths)
		}
		b.ReportMetric(r.rps, "tzctx-search-rps")
		b.ReportMetric(r.p99ms, "tzctx-search-p99-ms")
	})
	b.Run("mcp-page", func(b *testing.B) {
		var r wrkResult
		for b.Loop() {
			r = mcpLoad(b, base+"/mcp", h.routes)
		}
		b.ReportMetric(r.rps, "mcp-page-rps")
		b.ReportMetric(r.p99ms, "mcp-page-p99-ms")
	})
}
