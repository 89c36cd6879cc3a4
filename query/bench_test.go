package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// powershell ingests the PowerShell corpus once per benchmark binary and
// reports what that took.
var psStore struct {
	st      *store.Store
	seconds float64
	bytes   int64
	dir     string
}

func powershell(b *testing.B) *store.Store {
	b.Helper()
	if psStore.st != nil {
		return psStore.st
	}
	dir := testkit.Corpus(b, "powershell-docs")
	data, err := os.MkdirTemp("", "tzctx-bench-")
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: []ingest.TreeSource{{Name: "tzdocs", Dir: dir}}})
	if err != nil {
		b.Fatal(err)
	}
	psStore.seconds = time.Since(start).Seconds()
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	psStore.st, psStore.dir = st, data
	psStore.bytes = st.Size(sum.Version)
	var idx int64
	filepath.Walk(filepath.Join(data, "versions", sum.Version, "index.bleve"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			idx += fi.Size()
		}
		return nil
	})
	fmt.Printf("ingest of powershell-docs: %.2f s; version %d MiB on disk, of which the bleve index %d MiB\n",
		psStore.seconds, psStore.bytes>>20, idx>>20)
	return st
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p * float64(len(s)-1))
	return s[i]
}

// BenchmarkChunkOffset reads the first and the last chunk of the
// PowerShell whole text (33 MB) side by side: a chunk must cost time
// proportional to the chunk, not to its offset.
func BenchmarkChunkOffset(b *testing.B) {
	st := powershell(b)
	r := NewReader(Config{Limits: testLimits()}, FromStore(st))
	ctx := context.Background()
	first, _, err := r.ReadDocumentation(ctx, DocRequest{Tree: str("tzdocs"), Part: str("full")})
	if err != nil {
		b.Fatal(err)
	}
	// The last chunk as a pager meets it: asked at a place (the begin of
	// the chunk asked one limit before the end), so it holds at most one
	// limit, as the first does.
	near := first.Total - testLimits().TextDefaultLimit
	a, _, err := r.ReadDocumentation(ctx, DocRequest{Tree: str("tzdocs"), Part: str("full"), Paging: Paging{Offset: &near, Stamp: &first.Stamp}})
	if err != nil {
		b.Fatal(err)
	}
	lastOff := a.Offset
	var tFirst, tLast []time.Duration
	for b.Loop() {
		for range 200 {
			t0 := time.Now()
			if _, _, err := r.ReadDocumentation(ctx, DocRequest{Tree: str("tzdocs"), Part: str("full")}); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			a, _, err := r.ReadDocumentation(ctx, DocRequest{Tree: str("tzdocs"), Part: str("full"), Paging: Paging{Offset: &lastOff, Stamp: &first.Stamp}})
			if err != nil || a.Offset != lastOff {
				b.Fatalf("last chunk asked at %d began at %d: %v", lastOff, a.Offset, err)
			}
			tFirst, tLast = append(tFirst, t1.Sub(t0)), append(tLast, time.Since(t1))
		}
	}
	mf, ml := percentile(tFirst, 0.5), percentile(tLast, 0.5)
	b.ReportMetric(float64(mf.Microseconds()), "first-µs")
	b.ReportMetric(float64(ml.Microseconds()), "last-µs")
	b.ReportMetric(float64(ml)/float64(mf), "last/first")
	fmt.Printf("whole text of %d code points, limit %d: first chunk median %v, last chunk median %v, ratio %.2f (target <= 1.5)\n", first.Total, testLimits().TextDefaultLimit, mf, ml, float64(ml)/float64(mf))
}

// BenchmarkSearch runs the same queries through the real path and the
// brute-force oracle on the PowerShell corpus and prints median and p99
// per path and their ratio.
func BenchmarkSearch(b *testing.B) {
	st := powershell(b)
	r := NewReader(Config{Limits: testLimits()}, FromStore(st))
	v, err := st.Acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer v.Release()
	trees := []*store.Tree{v.Tree("tzdocs")}
	o := newOracle(b, v, trees, testLimits().SearchMatchLimit)
	qv, qtrees := seam(v, trees)
	qs := o.queries(42, 1000)
	ctx := context.Background()
	for b.Loop() {
		var real, brute []time.Duration
		for _, q := range qs {
			words := QueryWords(q)
			if len(words) == 0 {
				continue
			}
			t0 := time.Now()
			got, err := r.searchText(ctx, qv, qtrees, words, RuleCode(q))
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			want := o.answer(q)
			t2 := time.Now()
			if got != want {
				b.Fatalf("query %q: real path and oracle differ", q)
			}
			real, brute = append(real, t1.Sub(t0)), append(brute, t2.Sub(t1))
		}
		rm, rp := percentile(real, 0.5), percentile(real, 0.99)
		om, op := percentile(brute, 0.5), percentile(brute, 0.99)
		b.ReportMetric(float64(rm.Microseconds()), "real-median-µs")
		b.ReportMetric(float64(rp.Microseconds()), "real-p99-µs")
		b.ReportMetric(float64(om)/float64(rm), "oracle/real-median")
		fmt.Printf("search, %d queries on powershell-docs: real median %v p99 %v; oracle median %v p99 %v; oracle/real at the median %.1fx, at p99 %.1fx (targets: median <= 2ms, p99 <= 15ms, ratio >= 10)\n",
			len(real), rm, rp, om, op, float64(om)/float64(rm), float64(op)/float64(rp))
	}
}

// synthStore writes the synthetic corpus of n pages (seed 1) and ingests it
// as the tzdocs tree, both into b.TempDir(), and reports what that took.
func synthStore(b *testing.B, n int) *store.Store {
	b.Helper()
	site := filepath.Join(b.TempDir(), "site")
	start := time.Now()
	if err := testkit.WriteSynthSite(site, n, 1); err != nil {
		b.Fatal(err)
	}
	wrote := time.Since(start)
	st, err := store.Open(filepath.Join(b.TempDir(), "data"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	start = time.Now()
	sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: []ingest.TreeSource{{Name: "tzdocs", Dir: site}}})
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("synthetic corpus of %d pages: written in %.2f s, ingested in %.2f s; version %d MiB on disk\n",
		n, wrote.Seconds(), took.Seconds(), st.Size(sum.Version)>>20)
	return st
}

// BenchmarkSearchSuite runs the fixed query set (testkit.SearchQueries)
// through four paths side by side, on the PowerShell corpus and on each
// synthetic size: the real path, the brute-force oracle, the SQLite FTS5
// trigram peer computing the same answer, and the peer's bare candidate
// lookup. Every answer of the peer and of the real path is checked equal
// to the oracle's, byte for byte, or the benchmark fails. It reports
// median and p99 per path and prints one line with the ratios to the
// real path.
func BenchmarkSearchSuite(b *testing.B) {
	b.Run("powershell", func(b *testing.B) { searchSuite(b, "powershell-docs", powershell(b)) })
	for _, n := range testkit.SynthSizes {
		b.Run(fmt.Sprintf("synth-%d", n), func(b *testing.B) {
			searchSuite(b, fmt.Sprintf("synthetic-%d", n), synthStore(b, n))
		})
	}
}

func searchSuite(b *testing.B, corpus string, st *store.Store) {
	lim := testLimits()
	r := NewReader(Config{Limits: lim}, FromStore(st))
	v, err := st.Acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer v.Release()
	trees := []*store.Tree{v.Tree("tzdocs")}
	o := newOracle(b, v, trees, lim.SearchMatchLimit)
	qv, qtrees := seam(v, trees)
	start := time.Now()
	peer := newSQLitePeer(b, b.TempDir(), trees, lim.SearchMatchLimit)
	built := time.Since(start)
	ctx := context.Background()
	qs := testkit.SearchQueries
	// round runs every query once through the four paths, checks the
	// answers and returns the times, bare only for the queries whose MATCH
	// has a word to look up.
	round := func() (real, brute, fts, bare []time.Duration) {
		for _, q := range qs {
			words := QueryWords(q)
			t0 := time.Now()
			got, err := r.searchText(ctx, qv, qtrees, words, RuleCode(q))
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			want := o.answer(q)
			t2 := time.Now()
			peerGot, err := peer.answer(q)
			if err != nil {
				b.Fatalf("query %q: %v", q, err)
			}
			t3 := time.Now()
			_, ok, err := peer.candidates(q)
			if err != nil {
				b.Fatalf("query %q: %v", q, err)
			}
			t4 := time.Now()
			if got != want {
				b.Fatalf("query %q on %s: the real path and the oracle differ:\n got  %q\n want %q", q, corpus, clip(got), clip(want))
			}
			if peerGot != want {
				b.Fatalf("query %q on %s: the SQLite peer and the oracle differ:\n peer %q\n want %q", q, corpus, clip(peerGot), clip(want))
			}
			real, brute, fts = append(real, t1.Sub(t0)), append(brute, t2.Sub(t1)), append(fts, t3.Sub(t2))
			if ok {
				bare = append(bare, t4.Sub(t3))
			}
		}
		return real, brute, fts, bare
	}
	// One round untimed first: it checks every answer before any figure
	// is taken, and loads what each path reads once per version (the real
	// path's titles and headings, SQLite's pages), which is the cost of a
	// first search, not of a search.
	round()
	var real, brute, fts, bare []time.Duration
	loops := 0
	b.ResetTimer()
	for b.Loop() {
		loops++
		r1, b1, f1, c1 := round()
		real, brute, fts, bare = append(real, r1...), append(brute, b1...), append(fts, f1...), append(bare, c1...)
		// The real path alone, for more rounds: it costs little beside the
		// baselines, and its median and p99 then rest on more samples than
		// one per query, taken without the oracle's garbage around them.
		for range realRounds {
			for _, q := range qs {
				words := QueryWords(q)
				t0 := time.Now()
				if _, err := r.searchText(ctx, qv, qtrees, words, RuleCode(q)); err != nil {
					b.Fatal(err)
				}
				real = append(real, time.Since(t0))
			}
		}
	}
	bareQueries := len(bare) / max(1, loops)
	// The real path's slowest query, by its median over the rounds: what
	// its p99 is made of.
	slowQ, slowD := "", time.Duration(0)
	for i, q := range qs {
		var ds []time.Duration
		for k := i; k < len(real); k += len(qs) { // real holds whole rounds of qs
			ds = append(ds, real[k])
		}
		if d := percentile(ds, 0.5); d > slowD {
			slowQ, slowD = q, d
		}
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	type path struct {
		name        string
		median, p99 time.Duration
	}
	var paths []path
	for _, p := range []struct {
		name string
		d    []time.Duration
	}{{"real", real}, {"oracle", brute}, {"fts5", fts}, {"bare", bare}} {
		m, q := percentile(p.d, 0.5), percentile(p.d, 0.99)
		b.ReportMetric(us(m), p.name+"-median-µs")
		b.ReportMetric(us(q), p.name+"-p99-µs")
		paths = append(paths, path{p.name, m, q})
	}
	line := fmt.Sprintf("search suite on %s, %d pages, %d queries x %d rounds (the baselines x %d):", corpus, len(o.pages), len(qs), len(real)/len(qs), loops)
	for _, p := range paths {
		line += fmt.Sprintf(" %s median %v p99 %v", p.name, p.median.Round(time.Microsecond/10), p.p99.Round(time.Microsecond/10))
		if p.name != "real" {
			line += fmt.Sprintf(" (%.1fx, %.1fx);", float64(p.median)/float64(paths[0].median), float64(p.p99)/float64(paths[0].p99))
		} else {
			line += ";"
		}
	}
	fmt.Printf("%s ratios to real at median, p99; bare over the %d queries with a word of 3+ characters; real path slowest on %q (median %v); SQLite built in %.2f s%s\n",
		line, bareQueries, slowQ, slowD.Round(time.Microsecond/10), built.Seconds(), suiteTargets(b, corpus, paths[0].median, paths[0].p99))
}

// realRounds is how many rounds of the query set the search suite times
// the real path alone, beside the one round of all four paths.
const realRounds = 10

// suiteMedians holds the real path's median per synthetic corpus measured
// in this run, so that growth from 20,000 to 100,000 pages is a ratio of
// two figures of one run.
var suiteMedians = map[string]time.Duration{}

// suiteTargets returns the targets of the search suite on corpus beside
// its figures (issue 26): on 100,000 synthetic pages a median of at most
// 1 ms, a p99 of at most 4 ms, and a median at most twice the median on
// 20,000 pages, where this run measured both.
func suiteTargets(b *testing.B, corpus string, median, p99 time.Duration) string {
	suiteMedians[corpus] = median
	const big, small = "synthetic-100000", "synthetic-20000"
	if corpus != big {
		return ""
	}
	out := fmt.Sprintf("; targets: median %v <= 1ms (%s), p99 %v <= 4ms (%s)", median.Round(time.Microsecond/10), met(median <= time.Millisecond), p99.Round(time.Microsecond/10), met(p99 <= 4*time.Millisecond))
	if m20, ok := suiteMedians[small]; ok {
		ratio := float64(median) / float64(m20)
		b.ReportMetric(ratio, "median/20k-median")
		out += fmt.Sprintf(", median over the 20,000-page median %.2fx <= 2x (%s)", ratio, met(ratio <= 2))
	} else {
		out += ", median over the 20,000-page median <= 2x (not measured: run synth-20000 in the same run)"
	}
	return out
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
