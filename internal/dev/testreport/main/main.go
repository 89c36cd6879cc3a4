// Command main reads `go test -json` on standard input and prints what
// plain go test would, then every skipped test with its reason; `make
// test` pipes the test run through it. Its exit status is 0: the run's
// status is go test's.
package main

import (
	"fmt"
	"os"

	"github.com/turnzerocloud/tzctx/internal/dev/testreport"
)

func main() {
	s, err := testreport.Copy(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
	}
	s.WriteSkips(os.Stdout)
}
