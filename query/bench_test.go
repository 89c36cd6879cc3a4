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
	"github.com/turnzerocloud/tzctx/internal/testkit"
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
	r := NewReader(Config{Limits: testLimits()}, st)
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
	r := NewReader(Config{Limits: testLimits()}, st)
	v, err := st.Acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer v.Release()
	trees := []*store.Tree{v.Tree("tzdocs")}
	o := newOracle(b, v, trees, testLimits().SearchMatchLimit)
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
			got, err := r.searchText(ctx, v, trees, words, RuleCode(q))
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
