package benchreport

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Machine describes where and on what the benchmarks ran.
type Machine struct {
	CPU     string // the model, as /proc/cpuinfo names it
	Cores   int
	Memory  string // such as "23.5 GiB"
	Kernel  string
	Go      string // the Go version
	Date    string // UTC, such as 2026-12-01 12:00 UTC
	Commit  string // git rev-parse --short HEAD, with -dirty where the tree is
	Load    string // the 1, 5 and 15 minute load averages as the report is written
	Command string // the command that ran the benchmarks
}

// Render writes the report: the machine, then per package one section
// per top-level benchmark, with a table of its results (one row per
// benchmark or sub-benchmark, one column per unit any of them reported),
// the skips with their reasons, the failures with their log, and the lines
// the benchmarks printed.
func Render(w io.Writer, m Machine, pkgs []*Package) error {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Written by `make bench` (internal/dev/benchreport); absolute times drift on a shared machine, so compare the ratios each benchmark reports against its baseline in the same run.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	for _, kv := range [][2]string{
		{"date", m.Date}, {"commit", m.Commit}, {"CPU", m.CPU}, {"cores", strconv.Itoa(m.Cores)},
		{"memory", m.Memory}, {"kernel", m.Kernel}, {"load average when written", m.Load}, {"Go", m.Go}, {"command", code(m.Command)},
	} {
		if kv[1] != "" && kv[1] != "0" {
			fmt.Fprintf(&b, "| %s | %s |\n", kv[0], cell(kv[1]))
		}
	}
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\n## %s\n\n", code(p.Path))
		switch p.Status {
		case Failed:
			fmt.Fprintf(&b, "The package **failed**%s.\n", after(p.Elapsed))
		case Skipped:
			fmt.Fprintf(&b, "No benchmarks%s.\n", after(p.Elapsed))
		default:
			fmt.Fprintf(&b, "Passed%s.\n", after(p.Elapsed))
		}
		for _, g := range groups(p.Results) {
			renderGroup(&b, g)
		}
		if len(p.Unattached) > 0 {
			b.WriteString("\nOther output:\n\n```\n" + strings.Join(p.Unattached, "\n") + "\n```\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// group is a top-level benchmark and its sub-benchmarks.
type group struct {
	name    string
	results []*Result
}

func groups(rs []*Result) []group {
	var gs []group
	at := map[string]int{}
	for _, r := range rs {
		top, _, _ := strings.Cut(r.Name, "/")
		i, ok := at[top]
		if !ok {
			i = len(gs)
			at[top] = i
			gs = append(gs, group{name: top})
		}
		gs[i].results = append(gs[i].results, r)
	}
	return gs
}

func renderGroup(b *strings.Builder, g group) {
	fmt.Fprintf(b, "\n### %s\n\n", g.name)
	var units []string
	var rows []*Result
	for _, r := range g.results {
		if len(r.Metrics) == 0 {
			continue
		}
		rows = append(rows, r)
		for _, m := range r.Metrics {
			if _, _, ok := targetOf(m.Unit, r.Metrics); ok {
				continue // shown in its metric's cell
			}
			if !slices.Contains(units, m.Unit) {
				units = append(units, m.Unit)
			}
		}
	}
	if len(rows) > 0 {
		b.WriteString("| benchmark | runs |")
		for _, u := range units {
			fmt.Fprintf(b, " %s |", cell(u))
		}
		b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(units)) + "\n")
		for _, r := range rows {
			fmt.Fprintf(b, "| %s | %d |", cell(caseName(g.name, r.Name)), r.Iterations)
			for _, u := range units {
				v := ""
				for _, m := range r.Metrics {
					if m.Unit == u {
						v = formatValue(m.Value) + target(m, r.Metrics)
					}
				}
				fmt.Fprintf(b, " %s |", v)
			}
			b.WriteString("\n")
		}
	}
	first := true
	for _, r := range g.results {
		if r.Status != Passed && first {
			if len(rows) > 0 {
				b.WriteString("\n")
			}
			first = false
		}
		switch r.Status {
		case Skipped:
			fmt.Fprintf(b, "- %s skipped: %s\n", code(caseName(g.name, r.Name)), oneLine(orNone(strings.Join(r.Log, "; "))))
		case Failed:
			fmt.Fprintf(b, "- %s **failed**:\n\n  ```\n%s\n  ```\n", code(caseName(g.name, r.Name)), indent(strings.Join(append(r.Log, r.Printed...), "\n")))
		}
	}
	var said []string
	for _, r := range g.results {
		if r.Status == Failed {
			continue
		}
		lines := r.Printed
		if r.Status == Passed {
			lines = append(append([]string(nil), lines...), r.Log...)
		}
		said = append(said, lines...)
	}
	if len(said) > 0 {
		b.WriteString("\n```\n" + strings.Join(said, "\n") + "\n```\n")
	}
}

// targetOf reports whether unit is the target of another metric of the
// same result: a unit "<metric>-max" or "<metric>-min" where the result
// reports <metric>, its bound from above or below. Such a target is no
// column of its own; its metric's cell shows it.
func targetOf(unit string, ms []Metric) (metric string, max, ok bool) {
	for _, end := range []string{"-max", "-min"} {
		if base, found := strings.CutSuffix(unit, end); found {
			for _, m := range ms {
				if m.Unit == base {
					return base, end == "-max", true
				}
			}
		}
	}
	return "", false, false
}

// target is what a metric's cell shows of its target, where the result
// reports one: the bound and whether the value meets it, such as
// " (target ≤ 1.3: missed)".
func target(m Metric, ms []Metric) string {
	for _, t := range ms {
		base, max, ok := targetOf(t.Unit, ms)
		if !ok || base != m.Unit {
			continue
		}
		sign, met := "≥", m.Value >= t.Value
		if max {
			sign, met = "≤", m.Value <= t.Value
		}
		verdict := "met"
		if !met {
			verdict = "**missed**"
		}
		return " (target " + sign + " " + formatValue(t.Value) + ": " + verdict + ")"
	}
	return ""
}

// caseName is a result's name within its group: the sub-benchmark path,
// or the benchmark's own name where it has none.
func caseName(top, name string) string {
	if rest, ok := strings.CutPrefix(name, top+"/"); ok {
		return rest
	}
	return name
}

// formatValue prints a metric with four significant digits, as go test
// does for small values, and whole for large ones.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1e4 || v <= -1e4:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// after words the time go test printed for a package.
func after(elapsed string) string {
	if elapsed == "" {
		return ""
	}
	return " (" + elapsed + ")"
}

func cell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
