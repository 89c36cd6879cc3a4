package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// timedIngest runs tzctx --data data ingest ARGS as a process, stopping
// it as a failure past limit, and returns its wall and CPU seconds. The
// limit is a backstop against a hung process, not a verdict: the 100,000
// page site's whole ingest takes minutes (ingestLimit).
func timedIngest(b *testing.B, limit time.Duration, bin, data string, args ...string) (wall, cpu float64) {
	b.Helper()
	start := time.Now()
	p := runProcWithin(b, limit, bin, nil, append([]string{"--data", data, "ingest"}, args...)...)
	wall = time.Since(start).Seconds()
	ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatalf("no rusage for the ingest process on this system")
	}
	return wall, float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// ingestLimit is timedIngest's limit for the corpus and the small sites,
// and bigIngestLimit for the 100,000-page site, whose whole ingest took
// 304 s on a loaded machine: the two minutes of runProc stopped it.
const (
	ingestLimit    = 2 * time.Minute
	bigIngestLimit = 30 * time.Minute
)

// editPage appends a paragraph to the page file rel of the folder dir.
func editPage(b *testing.B, dir, rel string) {
	b.Helper()
	f := filepath.Join(dir, filepath.FromSlash(rel))
	raw, err := os.ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(f, append(raw, "\n\nAn edited paragraph.\n"...), 0o644); err != nil {
		b.Fatal(err)
	}
}

// reportBase reports a built-on ingest against the ingest it is measured
// beside, in the same run: wall and CPU seconds of each and their ratios.
func reportBase(b *testing.B, what, beside string, wall, cpu, wallBeside, cpuBeside float64, target string) {
	b.ReportMetric(wall, "based-s")
	b.ReportMetric(cpu, "based-cpu-s")
	b.ReportMetric(wallBeside, "beside-s")
	b.ReportMetric(cpuBeside, "beside-cpu-s")
	b.ReportMetric(wall/wallBeside, "based/beside")
	b.ReportMetric(cpu/cpuBeside, "based/beside-cpu")
	fmt.Printf("%s: built on the base %.2f s (%.2f s of CPU); %s %.2f s (%.2f s of CPU); ratio %.2fx wall, %.2fx CPU (%s)\n",
		what, wall, cpu, beside, wallBeside, cpuBeside, wall/wallBeside, cpu/cpuBeside, target)
}

// BenchmarkIngestBase measures the three built-on ingests of issue 33,
// each beside the ingest it is compared with, in the same run:
//
//   - powershell: the PowerShell corpus with one page edited, built on
//     the version without the edit, beside the full ingest of the edited
//     corpus (target: at most 10% of its time);
//   - synthetic-100000: the synthetic 100,000-page site with one page
//     edited, built on the version without the edit (target: at most
//     5 s), beside its full ingest;
//   - five-trees: a base of five synthetic 2,000-page trees, one replaced
//     by an edited copy, beside the ingest of that tree alone (target: its
//     time within 20%).
func BenchmarkIngestBase(b *testing.B) {
	bin := buildBinary(b)
	b.Run("powershell", func(b *testing.B) {
		corpus := testkit.Corpus(b, "powershell-docs")
		for b.Loop() {
			data := b.TempDir()
			edited := filepath.Join(b.TempDir(), "powershell")
			testkit.CopyTree(b, corpus, edited)
			editPage(b, edited, "7.6/Microsoft.PowerShell.Core/About/about_Jobs.md")
			timedIngest(b, ingestLimit, bin, data, "--tree", "tzdocs="+corpus, "--version", "base")
			wall, cpu := timedIngest(b, ingestLimit, bin, data, "--tree", "tzdocs="+edited, "--base", "base", "--version", "based")
			fullWall, fullCPU := timedIngest(b, ingestLimit, bin, data, "--tree", "tzdocs="+edited, "--version", "full")
			reportBase(b, "powershell, one page edited", "the full ingest", wall, cpu, fullWall, fullCPU, "target <= 0.10x")
		}
	})
	b.Run("synthetic-100000", func(b *testing.B) {
		for b.Loop() {
			data, site := b.TempDir(), filepath.Join(b.TempDir(), "site")
			genSite(b, site, 100000)
			timedIngest(b, bigIngestLimit, bin, data, "--tree", "tzdocs="+site, "--version", "base")
			editPage(b, site, "part00/page00000.mdx")
			wall, cpu := timedIngest(b, bigIngestLimit, bin, data, "--tree", "tzdocs="+site, "--base", "base", "--version", "based")
			fullWall, fullCPU := timedIngest(b, bigIngestLimit, bin, data, "--tree", "tzdocs="+site, "--version", "full")
			reportBase(b, "synthetic-100000, one page edited", "the full ingest", wall, cpu, fullWall, fullCPU, fmt.Sprintf("target: built on the base <= 5 s; %s", met(wall <= 5)))
		}
	})
	b.Run("five-trees", func(b *testing.B) {
		for b.Loop() {
			data, alone, src := b.TempDir(), b.TempDir(), b.TempDir()
			var trees []string
			for _, name := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
				dir := filepath.Join(src, name)
				genSite(b, dir, 2000)
				trees = append(trees, "--tree", name+"="+dir)
			}
			timedIngest(b, ingestLimit, bin, data, append(trees, "--version", "base")...)
			charlie := filepath.Join(src, "charlie")
			editPage(b, charlie, "part00/page00000.mdx")
			wall, cpu := timedIngest(b, ingestLimit, bin, data, "--tree", "charlie="+charlie, "--base", "base", "--version", "based")
			aloneWall, aloneCPU := timedIngest(b, ingestLimit, bin, alone, "--tree", "charlie="+charlie, "--version", "alone")
			reportBase(b, "five 2,000-page trees, one replaced", "that tree ingested alone", wall, cpu, aloneWall, aloneCPU, "target <= 1.2x")
		}
	})
}

// met says whether a target is met.
func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
