package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// The load of the shedding runs: many more connections than slots.
const (
	shedConns    = 64
	shedDuration = 10 * time.Second
	shedSlots    = 4
	// The rate-limit run's bucket.
	ratePerSecond = 50
	rateBurst     = 20
)

// statusLua counts wrk's answers by status, and those refusals lacking a
// Retry-After header, over all threads; done prints one STATUS line.
const statusLua = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok = 0; shed = 0; limited = 0; other = 0; noretry = 0 end
function response(status, headers, body)
	if status == 200 then ok = ok + 1
	elseif status == 503 then shed = shed + 1
	elseif status == 429 then limited = limited + 1
	else other = other + 1 end
	if (status == 503 or status == 429) and headers["Retry-After"] == nil then noretry = noretry + 1 end
end
function done(summary, latency, requests)
	local o, s, l, x, n = 0, 0, 0, 0, 0
	for _, t in ipairs(threads) do
		o = o + t:get("ok"); s = s + t:get("shed"); l = l + t:get("limited"); x = x + t:get("other"); n = n + t:get("noretry")
	end
	io.write(string.format("STATUS ok=%d shed=%d limited=%d other=%d noretry=%d\n", o, s, l, x, n))
end
`

var wrkStatus = regexp.MustCompile(`STATUS ok=(\d+) shed=(\d+) limited=(\d+) other=(\d+) noretry=(\d+)`)

// statusRun is one wrk run's answers by status and its p99 over all.
type statusRun struct {
	ok, shed, limited, other, noRetry int
	rps, p99ms                        float64
}

// runWrkStatus runs wrk with conns connections against one URL for d,
// with extra headers, and returns its answers by status.
func runWrkStatus(b *testing.B, wrk, dir, u string, conns int, d time.Duration, headers ...string) statusRun {
	b.Helper()
	// A file of its own: two runs may start at once.
	f, err := os.CreateTemp(dir, "status-*.lua")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.WriteString(statusLua); err != nil {
		b.Fatal(err)
	}
	f.Close()
	script := f.Name()
	args := []string{"-t", strconv.Itoa(benchThreads), "-c", strconv.Itoa(conns), "-d", fmt.Sprintf("%ds", int(d.Seconds())), "--latency", "-s", script}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	out, err := exec.Command(wrk, append(args, u)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	text := string(out)
	if m := wrkErrors.FindString(text); m != "" {
		b.Fatalf("wrk against %s: %s\n%s", u, m, text)
	}
	m := wrkStatus.FindStringSubmatch(text)
	rps := wrkRPS.FindStringSubmatch(text)
	p99 := wrkP99.FindStringSubmatch(text)
	if m == nil || rps == nil || p99 == nil {
		b.Fatalf("wrk output without its STATUS line, requests/s or p99:\n%s", text)
	}
	var r statusRun
	for i, p := range []*int{&r.ok, &r.shed, &r.limited, &r.other, &r.noRetry} {
		*p, _ = strconv.Atoi(m[i+1])
	}
	r.rps, _ = strconv.ParseFloat(rps[1], 64)
	r.p99ms, _ = strconv.ParseFloat(p99[1], 64)
	switch p99[2] {
	case "us":
		r.p99ms /= 1000
	case "s":
		r.p99ms *= 1000
	}
	return r
}

// probeLoad GETs u one request after another until stop closes, and returns
// the latencies of its 200 answers, sorted, and how many were shed.
func probeLoad(u string, stop <-chan struct{}) (oks []time.Duration, shed int) {
	c := &http.Client{Timeout: 30 * time.Second}
	for {
		select {
		case <-stop:
			slices.Sort(oks)
			return oks, shed
		default:
		}
		start := time.Now()
		resp, err := c.Get(u)
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case 200:
			oks = append(oks, time.Since(start))
		case 503:
			shed++
		}
	}
}

func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	return float64(ds[int(float64(len(ds)-1)*p)].Microseconds()) / 1000
}

// startServeConfig starts `tzctx serve` with a configuration file of the
// given JSON, GOMAXPROCS=benchCPUs, and returns its base URL.
func startServeConfig(b *testing.B, bin, data, dir, name, cfg string) string {
	b.Helper()
	addr := freeAddr(b)
	cfgPath := filepath.Join(dir, name+".json")
	logPath := filepath.Join(dir, name+".log")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logf.Close() })
	cmd := exec.Command(bin, "--data", data, "serve", "--addr", addr, "--config", cfgPath)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(benchCPUs))
	cmd.Stdout, cmd.Stderr = logf, logf
	startKilled(b, cmd)
	waitHealthy(b, "http://"+addr+"/healthz", logPath)
	return "http://" + addr
}

// metricValue reads one unlabelled-or-labelled sample's value from a
// /metrics text, 0 where absent.
func metricValue(b *testing.B, base, sample string) float64 {
	b.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// BenchmarkShed drives a real `tzctx serve` with wrk (64 connections,
// 10 s a run) reading a tree's whole text, 16,000 code points an answer:
// with max_in_flight 4 and no queue wait, how many answers are 200 and
// how many shed 503, wrk's p99 over all, and the p99 of a separate
// sequential client's 200 answers; the same against max_in_flight
// 100000 (no shedding); and with one credential's bucket of 50 a second,
// burst 20, how many answers are 200 and 429 against the
// 50 x duration + 20 the bucket allows. Every refusal must carry
// Retry-After, and the meter's counts must match wrk's. It skips where
// wrk is absent.
func BenchmarkShed(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is absent: this benchmark drives the server with it (apt-get install wrk)")
	}
	bin := buildBinary(b)
	dir := b.TempDir()
	data := filepath.Join(dir, "data")
	site := testkit.SampleSite(b)
	tree, what := "cloud", "the sample site's cloud tree"
	if corpus := os.Getenv("TZCTX_CORPORA"); corpus != "" {
		if _, err := os.Stat(filepath.Join(corpus, "powershell-docs")); err == nil {
			runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+filepath.Join(corpus, "powershell-docs"), "--activate")
			tree, what = "tzdocs", "the powershell-docs corpus"
		}
	}
	if tree == "cloud" {
		runProc(b, bin, nil, "--data", data, "ingest", site, "--activate")
	}
	path := "/api/v1/actions/read_documentation?tree=" + tree + "&part=full&limit=16000"

	var shedRun, openRun statusRun
	var shedOKs, openOKs []time.Duration
	var probeShed int
	var metered float64
	b.Run("shed", func(b *testing.B) {
		base := startServeConfig(b, bin, data, dir, "shed", fmt.Sprintf(`{"max_in_flight": %d, "max_in_flight_per_caller": %d, "queue_wait": "0s"}`, shedSlots, shedSlots))
		for b.Loop() {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); shedOKs, probeShed = probeLoad(base+path, stop) }()
			shedRun = runWrkStatus(b, wrk, dir, base+path, shedConns, shedDuration)
			close(stop)
			wg.Wait()
		}
		metered = metricValue(b, base, `tzctx_shed_total{surface="http"}`)
		if shedRun.noRetry != 0 || shedRun.other != 0 {
			b.Fatalf("%d refusals without Retry-After, %d answers neither 200 nor 503", shedRun.noRetry, shedRun.other)
		}
		// wrk does not count the answers of the requests in flight when
		// it stops: the meter may count up to one a connection more.
		if seen := shedRun.shed + probeShed; int(metered) < seen || int(metered) > seen+shedConns+1 {
			b.Errorf("tzctx_shed_total %v, want wrk's %d and the probe's %d, and at most %d more", metered, shedRun.shed, probeShed, shedConns+1)
		}
		total := float64(shedRun.ok + shedRun.shed)
		b.ReportMetric(float64(shedRun.ok)/shedDuration.Seconds(), "ok-per-s")
		b.ReportMetric(float64(shedRun.shed)/shedDuration.Seconds(), "shed-per-s")
		b.ReportMetric(100*float64(shedRun.shed)/total, "shed-%")
		b.ReportMetric(shedRun.p99ms, "wrk-p99-ms")
		b.ReportMetric(pct(shedOKs, 0.99), "probe-ok-p99-ms")
	})
	b.Run("unbounded", func(b *testing.B) {
		base := startServeConfig(b, bin, data, dir, "open", `{"max_in_flight": 100000, "max_in_flight_per_caller": 100000}`)
		for b.Loop() {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); openOKs, _ = probeLoad(base+path, stop) }()
			openRun = runWrkStatus(b, wrk, dir, base+path, shedConns, shedDuration)
			close(stop)
			wg.Wait()
		}
		b.ReportMetric(float64(openRun.ok)/shedDuration.Seconds(), "ok-per-s")
		b.ReportMetric(openRun.p99ms, "wrk-p99-ms")
		b.ReportMetric(pct(openOKs, 0.99), "probe-ok-p99-ms")
	})
	var rateRun, otherRun statusRun
	var limited float64
	b.Run("rate-limit", func(b *testing.B) {
		const token, other = "bench-rate-token", "bench-other-token"
		cfg := fmt.Sprintf(`{"rate_limit": {"per_second": %d, "burst": %d}, "credentials": [{"token_sha256": %q, "account": "bench"}, {"token_sha256": %q, "account": "other"}]}`,
			ratePerSecond, rateBurst, sha256Hex(token), sha256Hex(other))
		base := startServeConfig(b, bin, data, dir, "rate", cfg)
		small := "/api/v1/actions/read_documentation?tree=" + tree + "&part=outline&limit=200"
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Add(1)
			// A second credential, at 8 connections, is limited by its
			// own bucket alone.
			go func() {
				defer wg.Done()
				otherRun = runWrkStatus(b, wrk, dir, base+small, 8, shedDuration, "Authorization: Bearer "+other)
			}()
			rateRun = runWrkStatus(b, wrk, dir, base+small, 16, shedDuration, "Authorization: Bearer "+token)
			wg.Wait()
		}
		limited = metricValue(b, base, `tzctx_rate_limited_total{surface="http"}`)
		if rateRun.noRetry != 0 || rateRun.other != 0 || rateRun.shed != 0 {
			b.Fatalf("%d refusals without Retry-After, %d shed, %d other answers", rateRun.noRetry, rateRun.shed, rateRun.other)
		}
		if seen := rateRun.limited + otherRun.limited; int(limited) < seen || int(limited) > seen+16+8 {
			b.Errorf("tzctx_rate_limited_total %v, want wrk's %d + %d, and at most one a connection more", limited, rateRun.limited, otherRun.limited)
		}
		allowed := float64(ratePerSecond)*shedDuration.Seconds() + rateBurst
		b.ReportMetric(float64(rateRun.ok), "ok")
		b.ReportMetric(allowed, "allowed")
		b.ReportMetric(float64(rateRun.limited), "limited")
		b.ReportMetric(float64(otherRun.ok), "other-ok")
	})
	allowed := float64(ratePerSecond)*shedDuration.Seconds() + rateBurst
	fmt.Printf("Shedding on %s, whole text 16,000 code points an answer, wrk %d connections %v, %d CPUs: max_in_flight %d, queue_wait 0: %.0f ok/s, %.0f shed/s (%.1f%% shed), wrk p99 %.2f ms over all, a sequential client's 200s p99 %.2f ms (%d of them, %d shed); max_in_flight 100000: %.0f ok/s, wrk p99 %.2f ms, the client's p99 %.2f ms. tzctx_shed_total %v.\n",
		what, shedConns, shedDuration, benchCPUs, shedSlots, float64(shedRun.ok)/shedDuration.Seconds(), float64(shedRun.shed)/shedDuration.Seconds(),
		100*float64(shedRun.shed)/float64(max(1, shedRun.ok+shedRun.shed)), shedRun.p99ms, pct(shedOKs, 0.99), len(shedOKs), probeShed,
		float64(openRun.ok)/shedDuration.Seconds(), openRun.p99ms, pct(openOKs, 0.99), metered)
	fmt.Printf("Rate limit %d/s burst %d, one credential at 16 connections for %v: %d ok (the bucket allows %.0f), %d refused 429 (%.0f req/s in all); a second credential at 8 connections: %d ok, %d refused. tzctx_rate_limited_total %v.\n",
		ratePerSecond, rateBurst, shedDuration, rateRun.ok, allowed, rateRun.limited, rateRun.rps, otherRun.ok, otherRun.limited, limited)
}
