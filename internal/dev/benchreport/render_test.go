package benchreport

import (
	"os"
	"strings"
	"testing"
)

// TestRender renders the captured sample: the machine table, one table
// per top-level benchmark with a column for every unit, the skip with its
// reason, and the printed summary; a metric's target ("<unit>-max",
// "<unit>-min") is no column but stands in its metric's cell, met or
// missed.
func TestRender(t *testing.T) {
	f, err := os.Open("testdata/bench.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	m := Machine{CPU: "AMD EPYC 7B13", Cores: 2, Memory: "23.5 GiB", Kernel: "linux 6.1", Go: "go1.26.8", Date: "2026-12-01 12:00 UTC", Commit: "abc1234-dirty"}
	if err := Render(&b, m, pkgs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"| commit | abc1234-dirty |",
		"| CPU | AMD EPYC 7B13 |",
		"### BenchmarkIngest",
		"| benchmark | runs | ns/op | index-MiB | ingest-s | meta-KiB | other-MiB | pagesdb-MiB | peak-rss-MiB | total-MiB |",
		"| synthetic-1000 | 1 | 13723401770 | 5.541 | 13.72 | 1.009 | 0 | 16 | 447 | 21.54 |",
		"- `powershell` skipped: real corpora folder /nonexistent is absent",
		"ingest of synthetic-1000: 13.72 s",
		"### BenchmarkMCPvsHTTP",
		"| benchmark | runs | ns/op | http-median-ms | mcp-median-ms | mcp/http-bytes | mcp/http-median | http-p99-ms | http-rps | mcp-p99-ms | mcp-rps | mcp/http-rps |",
		"| one-client | 1 | 630835261 | 0.1485 | 0.2616 | 2.015 | 1.762 (target ≤ 1.3: **missed**) |  |  |  |  |  |",
		"| concurrent | 1 | 20034587419 |  |  |  |  | 39.59 | 5806 | 72.57 | 2659 | 0.61 (target ≥ 0.6: met) |",
		"MCP/HTTP 0.46x (target >= 0.6x)",
		"### BenchmarkRecord",
		"| log | 1 | 285373 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
}
