// Package benchreport turns the plain output of `go test -bench` into
// BENCHMARKS.md: the machine, the date and the commit, then one table per
// benchmark with every metric it reported and the lines it printed.
//
// Nothing in it knows a benchmark by name: a metric a benchmark reports
// with b.ReportMetric appears as a column of its table, and a line it
// prints appears under that table. A metric whose unit is another's with
// "-max" or "-min" added is that metric's target: its cell shows the
// bound and whether the value meets it.
package benchreport

import (
	"bufio"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Status says how a benchmark ended.
type Status string

// The ways a benchmark ends.
const (
	Passed  Status = "ok"
	Skipped Status = "skip"
	Failed  Status = "fail"
)

// Metric is one value a benchmark reported, in its unit (ns/op, or the
// unit given to b.ReportMetric).
type Metric struct {
	Value float64
	Unit  string
}

// Result is one benchmark or sub-benchmark of one run.
type Result struct {
	// Name is the full name without the GOMAXPROCS suffix, such as
	// BenchmarkIngest/synthetic-1000.
	Name string
	// Procs is the GOMAXPROCS suffix of the result line, 0 where there
	// was none.
	Procs int
	// Iterations is b.N.
	Iterations int
	// Metrics are in the order the result line gave them.
	Metrics []Metric
	Status  Status
	// Log is what the benchmark logged (b.Log, b.Skip, b.Fatal), one
	// entry a call, without the file:line prefix: for a skipped or failed
	// benchmark, the reason.
	Log []string
	// Printed are the lines the benchmark wrote to standard output, the
	// one-line summaries.
	Printed []string
}

// Package is one package's part of the output.
type Package struct {
	Path       string
	CPU        string
	Results    []*Result
	Status     Status
	Elapsed    string   // as go test printed it, such as 41.2s
	Unattached []string // printed lines no benchmark claimed
}

var (
	runLine    = regexp.MustCompile(`^(?:=== (?:RUN|CONT|NAME)\s+)?(Benchmark\S*)$`)
	resultLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-(\d+))?\s+(\d+)\s+(.*)$`)
	outcome    = regexp.MustCompile(`^\s*--- (SKIP|FAIL|BENCH|PASS): (Benchmark\S*)`)
	logLine    = regexp.MustCompile(`^\s+\S+\.go:\d+: ?(.*)$`)
	pkgEnd     = regexp.MustCompile(`^(ok|FAIL|\?)\s+(\S+)\s*(.*)$`)
)

// Parse reads the plain (not -json) output of one or more packages'
// `go test -v -bench` runs, with go test's standard error on the same
// stream. It needs -v for skips: without it, go test prints nothing for a
// skipped benchmark. With -v, go test names each benchmark on a line of
// its own as it starts, and a line belongs to the benchmark named last;
// without -v, lines printed before a result line belong to that result's
// benchmark.
func Parse(r io.Reader) ([]*Package, error) {
	var (
		pkgs    []*Package
		cur     *Package
		pending []string
		running *Result // the benchmark named last on a line of its own
		ended   *Result // the benchmark of the latest --- line, whose log follows
		logTo   *Result // the benchmark of the latest log line, which may go on
	)
	pkg := func() *Package {
		if cur == nil {
			cur = &Package{Status: Passed}
			pkgs = append(pkgs, cur)
		}
		return cur
	}
	lookup := func(name string) *Result {
		for _, res := range pkg().Results {
			if res.Name == name {
				return res
			}
		}
		return nil
	}
	find := func(name string) *Result {
		if res := lookup(name); res != nil {
			return res
		}
		p := pkg()
		res := &Result{Name: name, Status: Passed}
		p.Results = append(p.Results, res)
		return res
	}
	claim := func(res *Result) {
		res.Printed = append(res.Printed, pending...)
		pending = nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if m := logLine.FindStringSubmatch(line); m != nil && (running != nil || ended != nil) {
			res := running
			if ended != nil {
				res = ended
			}
			if !slices.Contains(res.Log, m[1]) || ended == nil {
				res.Log = append(res.Log, m[1])
				logTo = res
			} else {
				logTo = nil
			}
			continue
		}
		if logTo != nil && strings.HasPrefix(line, "    ") && !outcome.MatchString(line) {
			// A log message of several lines goes on indented further.
			logTo.Log[len(logTo.Log)-1] += "\n" + strings.TrimSpace(line)
			continue
		}
		logTo = nil
		if !strings.HasPrefix(line, "        ") {
			ended = nil
		}
		switch {
		case line == "":
		case strings.HasPrefix(line, "goos: "), strings.HasPrefix(line, "goarch: "):
		case strings.HasPrefix(line, "pkg: "):
			p := pkg()
			if p.Path != "" && p.Path != strings.TrimPrefix(line, "pkg: ") {
				cur, running = nil, nil
				p = pkg()
			}
			p.Path = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "cpu: "):
			pkg().CPU = strings.TrimPrefix(line, "cpu: ")
		case line == "PASS" || line == "FAIL":
			if line == "FAIL" {
				pkg().Status = Failed
			}
		case runLine.MatchString(line):
			running = find(runLine.FindStringSubmatch(line)[1])
			claim(running)
		case outcome.MatchString(line):
			m := outcome.FindStringSubmatch(line)
			res := lookup(m[2])
			if res == nil {
				res = find(trimProcs(m[2]))
			}
			switch m[1] {
			case "SKIP":
				res.Status = Skipped
			case "FAIL":
				res.Status = Failed
			}
			claim(res)
			ended = res
		case resultLine.MatchString(line) && metricsOK(resultLine.FindStringSubmatch(line)[4]):
			m := resultLine.FindStringSubmatch(line)
			name, procs := m[1], m[2]
			// A name the === RUN lines gave wins over the shortest
			// reading: BenchmarkX/size-1000-2 is BenchmarkX/size-1000 on
			// two procs.
			full, _, _ := strings.Cut(line, "\t")
			full = strings.TrimSpace(full)
			if i := strings.LastIndexByte(full, '-'); i > 0 && lookup(full[:i]) != nil {
				name, procs = full[:i], full[i+1:]
			} else if lookup(full) != nil {
				name, procs = full, ""
			}
			res := find(name)
			res.Procs, _ = strconv.Atoi(procs)
			res.Iterations, _ = strconv.Atoi(m[3])
			res.Metrics = parseMetrics(m[4])
			claim(res)
		case pkgEnd.MatchString(line) && strings.Contains(line, "\t"):
			m := pkgEnd.FindStringSubmatch(line)
			p := pkg()
			if p.Path == "" {
				p.Path = m[2]
			}
			switch m[1] {
			case "FAIL":
				p.Status = Failed
			case "?":
				p.Status = Skipped
			}
			p.Elapsed = strings.TrimSpace(m[3])
			p.Unattached = append(p.Unattached, pending...)
			pending, cur, running = nil, nil, nil
		case running != nil:
			running.Printed = append(running.Printed, line)
		default:
			pending = append(pending, line)
		}
	}
	if cur != nil {
		cur.Unattached = append(cur.Unattached, pending...)
	}
	return pkgs, sc.Err()
}

// trimProcs drops a -N GOMAXPROCS suffix from a benchmark name as a
// --- line after a run gives it.
func trimProcs(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && !strings.Contains(name[i:], "/") {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// metricsOK says whether s is a sequence of value-unit pairs.
func metricsOK(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || len(f)%2 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 2 {
		if _, err := strconv.ParseFloat(f[i], 64); err != nil {
			return false
		}
	}
	return true
}

func parseMetrics(s string) []Metric {
	f := strings.Fields(s)
	var out []Metric
	for i := 0; i+1 < len(f); i += 2 {
		v, _ := strconv.ParseFloat(f[i], 64)
		out = append(out, Metric{Value: v, Unit: f[i+1]})
	}
	return out
}
