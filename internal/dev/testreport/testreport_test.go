package testreport

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

const stream = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestOK"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"    a_test.go:9: a log line of a passing test\n"}
{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestOK"}
{"Action":"output","Package":"example.com/a","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBad","Output":"    a_test.go:12: got 1, want 2\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"example.com/a","Test":"TestBad"}
{"Action":"output","Package":"example.com/a","Test":"TestNode","Output":"=== RUN   TestNode\n"}
{"Action":"output","Package":"example.com/a","Test":"TestNode","Output":"    tools.go:40: node is not on PATH; install nodejs\n"}
{"Action":"output","Package":"example.com/a","Test":"TestNode","Output":"--- SKIP: TestNode (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestNode"}
{"Action":"output","Package":"example.com/a","Output":"PASS\n"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\texample.com/a\t0.01s\n"}
{"Action":"fail","Package":"example.com/a"}
not an event: a build error
`

func TestCopy(t *testing.T) {
	var out bytes.Buffer
	s, err := Copy(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := "    a_test.go:12: got 1, want 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\texample.com/a\t0.01s\nnot an event: a build error\n"
	if out.String() != want {
		t.Errorf("Copy wrote\n%q\nwant\n%q", out.String(), want)
	}
	if s.Passed != 1 || s.Failed != 1 || len(s.Skips) != 1 {
		t.Fatalf("summary %+v, want 1 passed, 1 failed, 1 skip", s)
	}
	if k := s.Skips[0]; k.Test != "TestNode" || k.Reason != "node is not on PATH; install nodejs" {
		t.Errorf("skip %+v", k)
	}
	out.Reset()
	s.WriteSkips(&out)
	if want := "skipped example.com/a TestNode: node is not on PATH; install nodejs\ntests: 1 passed, 1 failed, 1 skipped\n"; out.String() != want {
		t.Errorf("WriteSkips wrote %q, want %q", out.String(), want)
	}
}

// TestRealStream runs go test -json on a package of this module and
// checks its closing line comes through as plain go test prints it.
func TestRealStream(t *testing.T) {
	tier.Long(t, "runs go test")
	raw, err := exec.Command("go", "test", "-count=1", "-json", "-run", "^TestCopy$", ".").Output()
	if err != nil {
		t.Fatalf("go test -json: %v", err)
	}
	var out bytes.Buffer
	s, err := Copy(bytes.NewReader(raw), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "ok  \tgithub.com/turnzerocloud/tzctx/internal/dev/testreport\t") || s.Passed != 1 || s.Failed != 0 {
		t.Errorf("wrote %q, summary %+v", out.String(), s)
	}
}
