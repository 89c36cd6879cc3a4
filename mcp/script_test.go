package mcp_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// nodeScript is a running node script a test talks to a line at a time:
// it writes to Stdin and reads the script's stdout lines from Lines.
type nodeScript struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Lines  <-chan string
	Stderr *testkit.SyncBuffer
}

// startScript starts node on the script in dir with args, until ctx ends.
func startScript(ctx context.Context, t *testing.T, node, dir string, args ...string) *nodeScript {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &nodeScript{Cmd: cmd, Stdin: stdin, Stderr: &testkit.SyncBuffer{}}
	cmd.Stderr = s.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	s.Lines = lines
	return s
}
