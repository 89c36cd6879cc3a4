package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// searchRounds is how many times BenchmarkHTTPSearch sends the fixed
// query set, after one round that is not counted.
const searchRounds = 30

// bareEnv names, in the environment of the test binary run again as a
// child, the loopback address it serves the bare baseline on.
const bareEnv = "TZCTX_BENCH_BARE_HTTP"

// init serves, in a test binary run again with bareEnv set, the bare
// baseline of BenchmarkHTTPSearch: a net/http server answering every GET
// with a fixed JSON body of /healthz's size, with nothing between
// net/http and the handler. It never returns.
func init() {
	addr := os.Getenv(bareEnv)
	if addr == "" {
		return
	}
	body := []byte(`{"status":"ok","version":"bench"}` + "\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hd := w.Header()
		hd.Set("Content-Type", "application/json")
		hd.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintln(os.Stderr, srv.ListenAndServe())
	os.Exit(1)
}

// startBare runs this test binary again as the bare baseline's server
// (init), GOMAXPROCS=benchCPUs as tzctx serve's, and returns its base URL
// once it answers.
func startBare(b *testing.B, dir string) string {
	b.Helper()
	addr := freeAddr(b)
	logPath := filepath.Join(dir, "bare.log")
	logf, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logf.Close() })
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), bareEnv+"="+addr, "GOMAXPROCS="+strconv.Itoa(benchCPUs))
	cmd.Stdout, cmd.Stderr = logf, logf
	startKilled(b, cmd)
	waitHealthy(b, "http://"+addr+"/healthz", logPath)
	return "http://" + addr
}

// BenchmarkHTTPSearch measures what one agent calling in a loop sees: the
// fixed query set (testkit.SearchQueries), sent one at a time over one
// keep-alive connection to `tzctx serve`, on the PowerShell corpus and on
// the synthetic corpus of 20,000 pages. Its baselines, in the same run,
// are GET /healthz over the same connection, the round trip of a call
// that does no work, so that the ratio shows what search adds to HTTP;
// and the same GET of a bare net/http server (a child process with the
// same CPUs, over a keep-alive connection of its own), so that
// healthz/bare shows what tzctx's request path adds to net/http.
//
// On the PowerShell corpus it measures search_documentation beside the
// contract search, over the same connection in the same rounds: first
// the version's first search_documentation call alone, which reads the
// postings of its terms from the version's stored section index for the
// first time (reported as docsearch-first-ms; before ingest stored the
// index it waited for the index's build); then the same query set, each query sent to both
// actions in turn, so that docsearch/search at the median and at the
// p99 (targets 4x and 6x, issue 30) compare the two under the same load;
// and a few questions as agents ask them (docSearchQuestions), sent to
// both too; and the server's peak RSS before the first call and after
// the rounds (VmHWM).
func BenchmarkHTTPSearch(b *testing.B) {
	bin := buildBinary(b)
	corpora := []struct {
		name string
		site func(b *testing.B) string
	}{
		{"powershell", func(b *testing.B) string { return testkit.Corpus(b, "powershell-docs") }},
		{"synthetic-20000", func(b *testing.B) string {
			dir := filepath.Join(b.TempDir(), "site")
			if err := testkit.WriteSynthSite(dir, 20000, 1); err != nil {
				b.Fatal(err)
			}
			return dir
		}},
	}
	for _, c := range corpora {
		b.Run(c.name, func(b *testing.B) {
			site := c.site(b)
			data := b.TempDir()
			runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+site, "--version", "bench", "--activate")
			addr, pid := startServeBenchPID(b, bin, data, b.TempDir())
			base := "http://" + addr
			client := &http.Client{Timeout: 30 * time.Second}
			post := func(client *http.Client, action, q string) time.Duration {
				raw, _ := json.Marshal(map[string]any{"query": q})
				t0 := time.Now()
				resp, err := client.Post(base+"/api/v1/actions/"+action, "application/json", bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("%s %d: status %d, %v", action, len(q), resp.StatusCode, err)
				}
				return d
			}
			search := func(q string) time.Duration { return post(client, "read_documentation", q) }
			docs := c.name == "powershell"
			docSearch := func(q string) time.Duration { return post(client, "search_documentation", q) }
			var first time.Duration
			peakBefore := procKiB(pid, "VmHWM")
			if docs {
				// The version's first call: a client of its own (the
				// same keep-alive pool) waits for it longer than the
				// rounds' 30 s, as a call that built the section index
				// did.
				first = post(&http.Client{Timeout: 10 * time.Minute}, "search_documentation", testkit.SearchQueries[0])
			}
			get := func(client *http.Client, u string) time.Duration {
				t0 := time.Now()
				resp, err := client.Get(u)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: status %d", u, resp.StatusCode)
				}
				return time.Since(t0)
			}
			health := func() time.Duration { return get(client, base+"/healthz") }
			bareBase := startBare(b, b.TempDir())
			bareClient := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			bare := func() time.Duration { return get(bareClient, bareBase+"/healthz") }
			for b.Loop() {
				for _, q := range testkit.SearchQueries {
					search(q)
					if docs {
						docSearch(q)
					}
					health()
					bare()
				}
				var s, d, sq, dq, h, n []time.Duration
				for range searchRounds {
					for _, q := range testkit.SearchQueries {
						s = append(s, search(q))
						if docs {
							d = append(d, docSearch(q))
						}
						h = append(h, health())
						n = append(n, bare())
					}
					if docs {
						for _, q := range docSearchQuestions {
							sq = append(sq, search(q))
							dq = append(dq, docSearch(q))
						}
					}
				}
				sm, sp := quantiles(s)
				hm, hp := quantiles(h)
				nm, np := quantiles(n)
				b.ReportMetric(ms(sm), "search-median-ms")
				b.ReportMetric(ms(sp), "search-p99-ms")
				b.ReportMetric(ms(hm), "healthz-median-ms")
				b.ReportMetric(ms(hp), "healthz-p99-ms")
				b.ReportMetric(float64(sm)/float64(hm), "search/healthz-median")
				b.ReportMetric(ms(nm), "bare-median-ms")
				b.ReportMetric(ms(np), "bare-p99-ms")
				b.ReportMetric(float64(hm)/float64(nm), "healthz/bare-median")
				target := "median <= 0.5 ms, p99 <= 1.5 ms"
				if c.name != "powershell" {
					target = "median <= 2 ms, p99 <= 8 ms"
				}
				fmt.Printf("search over HTTP on %s, one client, %d queries x %d rounds: median %.3f ms, p99 %.3f ms (target %s); GET /healthz on the same connection median %.3f ms, p99 %.3f ms; search/healthz at the median %.2fx; a bare net/http server's GET median %.3f ms, p99 %.3f ms; healthz/bare at the median %.2fx\n",
					c.name, len(testkit.SearchQueries), searchRounds, ms(sm), ms(sp), target, ms(hm), ms(hp), float64(sm)/float64(hm), ms(nm), ms(np), float64(hm)/float64(nm))
				if docs {
					dm, dp := quantiles(d)
					qm, qp := quantiles(dq)
					cm, cp := quantiles(sq)
					peak := procKiB(pid, "VmHWM")
					b.ReportMetric(ms(first), "docsearch-first-ms")
					b.ReportMetric(ms(dm), "docsearch-median-ms")
					b.ReportMetric(ms(dp), "docsearch-p99-ms")
					b.ReportMetric(float64(dm)/float64(sm), "docsearch/search-median")
					b.ReportMetric(float64(dp)/float64(sp), "docsearch/search-p99")
					b.ReportMetric(ms(qm), "docsearch-questions-median-ms")
					b.ReportMetric(ms(qp), "docsearch-questions-p99-ms")
					b.ReportMetric(ms(cm), "search-questions-median-ms")
					b.ReportMetric(ms(cp), "search-questions-p99-ms")
					b.ReportMetric(float64(qm)/float64(cm), "docsearch/search-questions-median")
					b.ReportMetric(float64(qp)/float64(cp), "docsearch/search-questions-p99")
					b.ReportMetric(float64(peakBefore)/1024, "server-peak-RSS-before-MiB")
					b.ReportMetric(float64(peak)/1024, "server-peak-RSS-MiB")
					fmt.Printf("search_documentation over HTTP on %s, one client, the same %d queries x %d rounds beside the contract search: median %.3f ms, p99 %.3f ms; docsearch/search at the median %.2fx (target <= 4x), at the p99 %.2fx (target <= 6x); the version's first call %.0f ms; %d questions x %d rounds: median %.3f ms, p99 %.3f ms, the contract search's median %.3f ms, p99 %.3f ms (%.2fx, %.2fx); the server's peak RSS %d MiB before the first call, %d MiB after the rounds (bound 400 MiB)\n",
						c.name, len(testkit.SearchQueries), searchRounds, ms(dm), ms(dp), float64(dm)/float64(sm), float64(dp)/float64(sp), ms(first), len(docSearchQuestions), searchRounds, ms(qm), ms(qp), ms(cm), ms(cp), float64(qm)/float64(cm), float64(qp)/float64(cp), peakBefore/1024, peak/1024)
				}
			}
		})
	}
}

// docSearchQuestions are questions as an agent asks them of the
// PowerShell corpus, which BenchmarkHTTPSearch sends to
// search_documentation: written for the benchmark, none of them from the
// evaluation's questions.
var docSearchQuestions = []string{
	"How do I run a script block on a remote computer?",
	"how do I change the execution policy for the current user",
	"What does the -WhatIf parameter do?",
	"how do I remove a key handler in PSReadLine?",
	"How can I write output to a file with UTF-8 encoding?",
	"why does my profile script not load when PowerShell starts",
}

// quantiles returns the median and the 99th percentile of d.
func quantiles(d []time.Duration) (median, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
