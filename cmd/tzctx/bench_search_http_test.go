package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// searchRounds is how many times BenchmarkHTTPSearch sends the fixed
// query set, after one round that is not counted.
const searchRounds = 30

// BenchmarkHTTPSearch measures what one agent calling in a loop sees: the
// fixed query set (testkit.SearchQueries), sent one at a time over one
// keep-alive connection to `tzctx serve`, on the PowerShell corpus and on
// the synthetic corpus of 20,000 pages. Its baseline, in the same run and
// over the same connection, is GET /healthz, the round trip of a call
// that does no work, so that the ratio shows what search adds to HTTP.
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
			base := "http://" + startServeBench(b, bin, data, b.TempDir())
			client := &http.Client{Timeout: 30 * time.Second}
			search := func(q string) time.Duration {
				raw, _ := json.Marshal(map[string]any{"query": q})
				t0 := time.Now()
				resp, err := client.Post(base+"/api/v1/actions/read_documentation", "application/json", bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("search %d: status %d, %v", len(q), resp.StatusCode, err)
				}
				return d
			}
			health := func() time.Duration {
				t0 := time.Now()
				resp, err := client.Get(base + "/healthz")
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return time.Since(t0)
			}
			for b.Loop() {
				for _, q := range testkit.SearchQueries {
					search(q)
					health()
				}
				var s, h []time.Duration
				for range searchRounds {
					for _, q := range testkit.SearchQueries {
						s = append(s, search(q))
						h = append(h, health())
					}
				}
				sm, sp := quantiles(s)
				hm, hp := quantiles(h)
				b.ReportMetric(ms(sm), "search-median-ms")
				b.ReportMetric(ms(sp), "search-p99-ms")
				b.ReportMetric(ms(hm), "healthz-median-ms")
				b.ReportMetric(ms(hp), "healthz-p99-ms")
				b.ReportMetric(float64(sm)/float64(hm), "search/healthz-median")
				target := "median <= 0.5 ms, p99 <= 2 ms"
				if c.name != "powershell" {
					target = "median <= 2 ms, p99 <= 8 ms"
				}
				fmt.Printf("search over HTTP on %s, one client, %d queries x %d rounds: median %.3f ms, p99 %.3f ms (target %s); GET /healthz on the same connection median %.3f ms, p99 %.3f ms; search/healthz at the median %.2fx\n",
					c.name, len(testkit.SearchQueries), searchRounds, ms(sm), ms(sp), target, ms(hm), ms(hp), float64(sm)/float64(hm))
			}
		})
	}
}

// quantiles returns the median and the 99th percentile of d.
func quantiles(d []time.Duration) (median, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
