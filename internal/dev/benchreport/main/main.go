// Command main writes BENCHMARKS.md from the plain output of
// `go test -v -bench`; `make bench` runs it as
//
//	go run ./internal/dev/benchreport/main -in bin/bench.out -out BENCHMARKS.md
//
// It reads the machine and the commit itself, at the time it runs.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/benchreport"
)

func main() {
	in := flag.String("in", "", "the captured go test output (default standard input)")
	out := flag.String("out", "BENCHMARKS.md", "the report to write")
	command := flag.String("command", "", "the command that ran the benchmarks, for the report")
	flag.Parse()
	if err := run(*in, *out, *command); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(in, out, command string) error {
	src := os.Stdin
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	pkgs, err := benchreport.Parse(src)
	if err != nil {
		return err
	}
	m := benchreport.Detect(".", time.Now(), out)
	m.Command = command
	var b bytes.Buffer
	if err := benchreport.Render(&b, m, pkgs); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}
