// Package testreport turns the event stream of `go test -json` back into
// go test's plain output (each package's closing line, and the whole
// output of each test that failed) and lists every skipped test with the
// reason it gave, so that `make test` says what did not run and why.
package testreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Skip is one skipped test and the reason its output gave.
type Skip struct {
	Package, Test, Reason string
}

// Summary is what a stream held.
type Summary struct {
	Passed, Failed int // tests, subtests included
	Skips          []Skip
}

// Copy reads the events of r and writes to w what plain go test would
// print: package-level output (the ok and FAIL lines) as it comes, and
// the output of each failed test when it fails. A line that is not an
// event (a build error printed before the stream) is copied as it is.
func Copy(r io.Reader, w io.Writer) (Summary, error) {
	var s Summary
	out := map[string]*strings.Builder{} // by package and test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				// -json implies -v, whose "PASS" line plain go test
				// does not print.
				if e.Output != "PASS\n" {
					io.WriteString(w, e.Output)
				}
				continue
			}
			if strings.HasPrefix(e.Output, "=== ") {
				continue // -v's RUN, PAUSE and CONT lines
			}
			b := out[key]
			if b == nil {
				b = &strings.Builder{}
				out[key] = b
			}
			b.WriteString(e.Output)
		case "build-output":
			io.WriteString(w, e.Output)
		case "pass":
			if e.Test != "" {
				s.Passed++
			}
			delete(out, key)
		case "fail":
			if e.Test != "" {
				s.Failed++
				if b := out[key]; b != nil {
					io.WriteString(w, b.String())
				}
			}
			delete(out, key)
		case "skip":
			if e.Test != "" {
				s.Skips = append(s.Skips, Skip{Package: e.Package, Test: e.Test, Reason: reason(out[key])})
			}
			delete(out, key)
		}
	}
	sort.Slice(s.Skips, func(i, j int) bool {
		a, b := s.Skips[i], s.Skips[j]
		return a.Package < b.Package || a.Package == b.Package && a.Test < b.Test
	})
	return s, sc.Err()
}

// reason is what a skipped test's output says, less go test's own
// "--- SKIP" line and the file:line prefix of t.Skip's message.
func reason(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	var parts []string
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ".go:"); i > 0 && !strings.Contains(t[:i], " ") {
			if j := strings.Index(t[i:], ": "); j > 0 {
				t = t[i+j+2:]
			}
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// WriteSkips lists the skipped tests of s, one a line, with the reason,
// and then the counts, "tests: N passed, N failed, N skipped".
func (s Summary) WriteSkips(w io.Writer) {
	for _, k := range s.Skips {
		r := k.Reason
		if r == "" {
			r = "(no reason given)"
		}
		fmt.Fprintf(w, "skipped %s %s: %s\n", strings.TrimPrefix(k.Package, "github.com/turnzerocloud/tzctx/"), k.Test, r)
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", s.Passed, s.Failed, len(s.Skips))
}
