package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit/sqlitepeer"
	"github.com/turnzerocloud/tzctx/store"
)

// ingestCorpus is a tree folder a benchmark ingests as tzdocs, with a page
// whose words make its search queries.
type ingestCorpus struct {
	name  string
	dir   string
	words string // a page, relative to dir, whose words the queries draw on
}

// ingestCorpora returns, for the ingest and start benchmarks, one function
// per corpus that a sub-benchmark calls to get it: the PowerShell corpus
// (which skips the sub-benchmark, saying why, where it is absent) and a
// deterministic synthetic site written by genSite for each size.
func ingestCorpora(sizes ...int) []func(b *testing.B) ingestCorpus {
	out := []func(b *testing.B) ingestCorpus{func(b *testing.B) ingestCorpus {
		return ingestCorpus{name: "powershell", dir: testkit.Corpus(b, "powershell-docs"), words: "7.6/Microsoft.PowerShell.Core/About/about_Jobs.md"}
	}}
	for _, n := range sizes {
		out = append(out, func(b *testing.B) ingestCorpus {
			dir := filepath.Join(b.TempDir(), "site")
			genSite(b, dir, n)
			return ingestCorpus{name: fmt.Sprintf("synthetic-%d", n), dir: dir, words: "part00/page00000.mdx"}
		})
	}
	return out
}

// ingestCorpusNames names the sub-benchmarks ingestCorpora's entries run as.
func ingestCorpusNames(sizes ...int) []string {
	names := []string{"powershell"}
	for _, n := range sizes {
		names = append(names, fmt.Sprintf("synthetic-%d", n))
	}
	return names
}

// versionParts are the parts of a version folder the ingest benchmark
// reports, in order.
var versionParts = []string{"texts.bin", "aux.bin", "pages.db", "index.bleve", "meta.json", "other"}

// versionPartSizes sums the sizes of the files in a version folder by
// part (versionParts): each file of the folder, the bleve index folder,
// and everything else.
func versionPartSizes(b *testing.B, dir string) map[string]int64 {
	b.Helper()
	sizes := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if !slices.Contains(versionParts, first) {
			first = "other"
		}
		sizes[first] += fi.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sizes
}

// ingestMiB converts bytes to MiB.
func ingestMiB(n int64) float64 { return float64(n) / (1 << 20) }

// formatCorpora are the real corpora of each generator other than
// Mintlify that BenchmarkIngest ingests, named by format and corpus, each
// folder as tzctx ingest --tree is given it with no other flag.
var formatCorpora = []struct{ name, dir string }{
	{"mkdocs-fastapi", "fastapi-docs/docs/en"},
	{"docusaurus-redux", "redux-docs"},
	{"vitepress-vite", "vite-docs"},
	{"starlight-starlight", "starlight-docs"},
	{"mdbook-rust-book", "rust-book"},
}

// sqliteBuild builds the SQLite FTS5 trigram peer of the search
// benchmarks (sqlitepeer.Build) from the pages of the version name in the
// data folder data, trees named by their "NAME=DIR" arguments, in a
// temporary folder, and returns the seconds the build took: reading the
// pages from the version, lower-casing them, finding their headings,
// inserting them and optimizing the index.
func sqliteBuild(b *testing.B, data, name string, trees []string) float64 {
	b.Helper()
	st, err := store.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.Activate(context.Background(), name); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	v, err := st.Acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer v.Release()
	var ts []*store.Tree
	for _, t := range trees {
		tn, _, _ := strings.Cut(t, "=")
		ts = append(ts, v.Tree(tn))
	}
	start := time.Now()
	db := sqlitepeer.Build(b, b.TempDir(), ts)
	seconds := time.Since(start).Seconds()
	db.Close()
	return seconds
}

// BenchmarkIngest runs `tzctx ingest` with the built binary on the
// PowerShell corpus (Mintlify), on that corpus ingested as three trees
// (three times the text, to show how memory grows with a site), on a real
// corpus of each other generator (formatCorpora), and on synthetic
// sites of 1,000 and 5,000 pages, and reports the seconds it took, the
// child's peak resident memory from its rusage, and the version's size on
// disk by part. Beside each, in the same run, it builds the SQLite FTS5
// trigram index of the same pages (sqliteBuild) and reports the ratio of
// the ingest's seconds to SQLite's: the target, on PowerShell, is at
// most 1.0.
func BenchmarkIngest(b *testing.B) {
	bin := buildBinary(b)
	sizes := []int{1000, 5000}
	peaks := map[string]float64{}
	run := func(b *testing.B, name string, trees ...string) {
		for b.Loop() {
			data := b.TempDir()
			args := []string{"--data", data, "ingest"}
			for _, t := range trees {
				args = append(args, "--tree", t)
			}
			start := time.Now()
			p := runProc(b, bin, nil, append(args, "--version", "bench")...)
			seconds := time.Since(start).Seconds()
			ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				b.Fatalf("no rusage for the ingest process on this system")
			}
			peak := peakRSS(p)
			peaks[name] = peak
			parts := versionPartSizes(b, filepath.Join(data, "versions", "bench"))
			var total int64
			var line strings.Builder
			for _, part := range versionParts {
				total += parts[part]
				b.ReportMetric(ingestMiB(parts[part]), part+"-MiB")
				fmt.Fprintf(&line, ", %s %.1f", part, ingestMiB(parts[part]))
			}
			b.ReportMetric(seconds, "ingest-s")
			b.ReportMetric(peak, "peak-rss-MiB")
			b.ReportMetric(ingestMiB(total), "total-MiB")
			b.ReportMetric(float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9, "cpu-s")
			fmt.Printf("ingest of %s: %.2f s (%.2f s of CPU), peak RSS %.0f MiB; version %.1f MiB on disk (%s)\n",
				name, seconds, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9, peak, ingestMiB(total), strings.TrimPrefix(line.String(), ", "))
			lite := sqliteBuild(b, data, "bench", trees)
			b.ReportMetric(lite, "sqlite-build-s")
			b.ReportMetric(seconds/lite, "ingest/sqlite")
			target := ""
			if name == "powershell" {
				target = " (target <= 1.0x)"
			}
			fmt.Printf("ingest of %s: %.2f s; SQLite FTS5 built its trigram index of the same pages in %.2f s: %.2fx SQLite%s\n", name, seconds, lite, seconds/lite, target)
		}
	}
	for _, f := range formatCorpora {
		b.Run(f.name, func(b *testing.B) {
			dir := filepath.Join(testkit.Corpora(b), filepath.FromSlash(f.dir))
			if _, err := os.Stat(dir); err != nil {
				b.Skipf("corpus %s is absent: the benchmark needs it", f.dir)
			}
			run(b, f.name, "tzdocs="+dir)
		})
	}
	for i, mk := range ingestCorpora(sizes...) {
		name := ingestCorpusNames(sizes...)[i]
		b.Run(name, func(b *testing.B) {
			c := mk(b)
			run(b, name, "tzdocs="+c.dir)
		})
		if name == "powershell" {
			b.Run("powershell-x3", func(b *testing.B) {
				c := mk(b)
				run(b, "powershell-x3", "cloud="+c.dir, "blueprint="+c.dir, "tzdocs="+c.dir)
				if one, ok := peaks["powershell"]; ok {
					b.ReportMetric(peaks["powershell-x3"]/one, "rss-x3/x1")
					fmt.Printf("peak RSS for three times the text: %.2fx that of once (target <= 1.5x)\n", peaks["powershell-x3"]/one)
				}
			})
		}
	}
}

// startSearcher sends searches to a server over keep-alive connections.
type startSearcher struct {
	base    string
	client  *http.Client
	queries []string
}

// newStartSearcher makes 200 fixed queries of one or two words drawn,
// from a fixed seed, from the words of the file page.
func newStartSearcher(b *testing.B, base, page string) *startSearcher {
	b.Helper()
	words := strings.Fields(readFile(b, page))
	rng := rand.New(rand.NewPCG(3, 5))
	s := &startSearcher{base: base, client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	for range 200 {
		q := words[rng.IntN(len(words))]
		if rng.IntN(2) == 0 {
			q += " " + words[rng.IntN(len(words))]
		}
		s.queries = append(s.queries, q)
	}
	return s
}

// search sends query i and returns how long the answer took.
func (s *startSearcher) search(i int) (time.Duration, error) {
	raw, _ := json.Marshal(map[string]any{"query": s.queries[i%len(s.queries)]})
	t0 := time.Now()
	resp, err := s.client.Post(s.base+"/api/v1/actions/read_documentation", "application/json", bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("search %q: status %d", s.queries[i%len(s.queries)], resp.StatusCode)
	}
	return d, err
}

// load searches from workers goroutines until stop closes and returns
// every latency and the first error.
func (s *startSearcher) load(workers int, stop <-chan struct{}) ([]time.Duration, error) {
	var (
		mu   sync.Mutex
		all  []time.Duration
		ferr error
		wg   sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			var mine []time.Duration
			for i := w * 37; ; i++ {
				select {
				case <-stop:
					mu.Lock()
					all = append(all, mine...)
					mu.Unlock()
					return
				default:
				}
				d, err := s.search(i)
				if err != nil {
					mu.Lock()
					if ferr == nil {
						ferr = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, d)
			}
		})
	}
	wg.Wait()
	return all, ferr
}

// startP99 is the 99th percentile of d, 0 where d is empty.
func startP99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(0.99*float64(len(s)-1))]
}

// startMS converts a duration to milliseconds.
func startMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkStart serves an existing version from the built binary and
// reports the cold start until /healthz answers 200, the first search
// after that, and the search p99 over HTTP from 4 goroutines while `tzctx
// activate` switches to a second version (the first plus the sample cloud
// tree), beside the p99 of the same load without a switch in the same run,
// after every query has been asked once. It runs on the PowerShell corpus
// and on a synthetic site of 1,000 pages.
func BenchmarkStart(b *testing.B) {
	bin := buildBinary(b)
	sizes := []int{1000}
	for i, mk := range ingestCorpora(sizes...) {
		b.Run(ingestCorpusNames(sizes...)[i], func(b *testing.B) {
			c := mk(b)
			cloud := filepath.Join(testkit.SampleSite(b), "cloud")
			for b.Loop() {
				data := b.TempDir()
				runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+c.dir, "--version", "A", "--activate")
				runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+c.dir, "--tree", "cloud="+cloud, "--version", "B")

				start := time.Now()
				srv := startProc(b, bin, nil, "--data", data, "serve", "--addr", "127.0.0.1:0")
				var base string
				for base == "" {
					if m := servingAddr.FindStringSubmatch(srv.stderr.String()); m != nil {
						base = "http://" + m[1]
					} else if time.Since(start) > 60*time.Second {
						b.Fatalf("the server did not listen within 60 s:\n%s", srv.stderr.String())
					} else {
						time.Sleep(time.Millisecond)
					}
				}
				for {
					if code, _, _ := health(base); code == http.StatusOK {
						break
					}
					if time.Since(start) > 60*time.Second {
						b.Fatalf("/healthz did not answer 200 within 60 s:\n%s", srv.stderr.String())
					}
					time.Sleep(time.Millisecond)
				}
				startDur := time.Since(start)
				s := newStartSearcher(b, base, filepath.Join(c.dir, c.words))
				first, err := s.search(0)
				if err != nil {
					b.Fatal(err)
				}

				// Every query once, so that neither load pays for a first
				// read; then the baseline: the load for 3 s, no switch.
				for i := range s.queries {
					if _, err := s.search(i); err != nil {
						b.Fatal(err)
					}
				}
				stop := make(chan struct{})
				time.AfterFunc(3*time.Second, func() { close(stop) })
				base0, err := s.load(4, stop)
				if err != nil {
					b.Fatal(err)
				}

				// The switch: the load runs from 0.5 s before the activation
				// until 1 s after the server names B on /healthz.
				stop = make(chan struct{})
				type result struct {
					d   []time.Duration
					err error
				}
				done := make(chan result, 1)
				go func() { d, err := s.load(4, stop); done <- result{d, err} }()
				time.Sleep(500 * time.Millisecond)
				runProc(b, bin, nil, "--data", data, "activate", "B")
				if !waitFor(30*time.Second, func() bool { _, v, _ := health(base); return v == "B" }) {
					close(stop)
					b.Fatal("the server did not serve B within 30 s of its activation")
				}
				time.Sleep(time.Second)
				close(stop)
				sw := <-done
				if sw.err != nil {
					b.Fatal(sw.err)
				}
				pBase, pSwitch := startP99(base0), startP99(sw.d)
				b.ReportMetric(startMS(startDur), "start-ms")
				b.ReportMetric(startMS(first), "first-search-ms")
				b.ReportMetric(startMS(pBase), "p99-baseline-ms")
				b.ReportMetric(startMS(pSwitch), "p99-during-switch-ms")
				b.ReportMetric(float64(pSwitch)/float64(pBase), "switch/baseline-p99")
				fmt.Printf("start on %s: healthy after %v, first search %v; search p99 %v over %d searches without a switch, %v over %d during the switch (%.2fx)\n",
					c.name, startDur.Round(time.Millisecond), first.Round(10*time.Microsecond), pBase.Round(10*time.Microsecond), len(base0), pSwitch.Round(10*time.Microsecond), len(sw.d), float64(pSwitch)/float64(pBase))
				if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
					b.Fatal(err)
				}
				srv.wait(b, 15*time.Second)
			}
		})
	}
}
