package benchreport

import (
	"os"
	"strings"
	"testing"
)

// TestParseVerbose reads output captured from `go test -v -run '^$'
// -bench ... -benchtime 1x` with the corpora absent: a skipped
// sub-benchmark with its reason, a sub-benchmark whose name ends in a
// number, its custom metrics and its printed summary, and a second package.
func TestParseVerbose(t *testing.T) {
	f, err := os.Open("testdata/bench.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 {
		t.Fatalf("%d packages, want 2", len(pkgs))
	}
	cmd, rec := pkgs[0], pkgs[1]
	if cmd.Path != "github.com/turnzerocloud/tzctx/cmd/tzctx" || cmd.Status != Passed || cmd.Elapsed != "27.516s" || cmd.CPU != "AMD EPYC" {
		t.Errorf("first package: %+v", cmd)
	}
	byName := map[string]*Result{}
	for _, r := range cmd.Results {
		byName[r.Name] = r
	}
	ps := byName["BenchmarkIngest/powershell"]
	if ps == nil || ps.Status != Skipped || len(ps.Log) != 1 || !strings.Contains(ps.Log[0], "real corpora folder /nonexistent is absent") {
		t.Errorf("powershell: %+v", ps)
	}
	syn := byName["BenchmarkIngest/synthetic-1000"]
	if syn == nil {
		t.Fatalf("no BenchmarkIngest/synthetic-1000 among %v", cmd.Results)
	}
	if syn.Status != Passed || syn.Procs != 2 || syn.Iterations != 1 {
		t.Errorf("synthetic-1000: %+v", syn)
	}
	want := map[string]float64{"ns/op": 13723401770, "index-MiB": 5.541, "ingest-s": 13.72, "meta-KiB": 1.009, "other-MiB": 0, "pagesdb-MiB": 16, "peak-rss-MiB": 447, "total-MiB": 21.54}
	if len(syn.Metrics) != len(want) {
		t.Errorf("synthetic-1000 metrics %v, want %v", syn.Metrics, want)
	}
	for _, m := range syn.Metrics {
		if v, ok := want[m.Unit]; !ok || v != m.Value {
			t.Errorf("metric %v %s, want %v", m.Value, m.Unit, v)
		}
	}
	if len(syn.Printed) != 1 || !strings.HasPrefix(syn.Printed[0], "ingest of synthetic-1000: 13.72 s") {
		t.Errorf("synthetic-1000 printed %q", syn.Printed)
	}
	if rec.Path != "github.com/turnzerocloud/tzctx/internal/ops/records" || len(rec.Results) != 4 {
		t.Fatalf("second package: %+v", rec)
	}
	if r := rec.Results[2]; r.Name != "BenchmarkRecord/log" || len(r.Metrics) != 1 || r.Metrics[0] != (Metric{285373, "ns/op"}) {
		t.Errorf("BenchmarkRecord/log: %+v", r)
	}
}

// TestParseFailure: a failing benchmark keeps its log, continuation lines
// included, and the package is marked failed.
func TestParseFailure(t *testing.T) {
	out := `goos: linux
pkg: example.com/p
BenchmarkBroken
    x_test.go:12: tzctx ingest: exit status 1
        stderr:
        no such tree
--- FAIL: BenchmarkBroken
FAIL
exit status 1
FAIL	example.com/p	0.5s
`
	pkgs, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || pkgs[0].Status != Failed || len(pkgs[0].Results) != 1 {
		t.Fatalf("%+v", pkgs)
	}
	r := pkgs[0].Results[0]
	if r.Status != Failed || len(r.Log) != 1 || r.Log[0] != "tzctx ingest: exit status 1\nstderr:\nno such tree" {
		t.Errorf("%+v", r)
	}
}

// TestParsePlain reads output without -v: printed lines before a result
// line belong to it, and a name with no GOMAXPROCS suffix reads whole.
func TestParsePlain(t *testing.T) {
	out := "summary of x\ngoos: linux\npkg: example.com/p\nBenchmarkX-4   \t       1\t      12.5 ns/op\t   3.000 hits\nPASS\nok  \texample.com/p\t1.0s\n"
	pkgs, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	r := pkgs[0].Results[0]
	if r.Name != "BenchmarkX" || r.Procs != 4 || len(r.Metrics) != 2 || r.Metrics[1] != (Metric{3, "hits"}) || len(r.Printed) != 1 || r.Printed[0] != "summary of x" {
		t.Errorf("%+v", r)
	}
}
