package killpoint

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestReachChild is the child process of TestReach: it reaches the
// points "a" three times and "b" once, and prints what it got past.
func TestReachChild(t *testing.T) {
	if os.Getenv("KILLPOINT_CHILD") == "" {
		t.Skip("runs only as TestReach's child")
	}
	for i := range 3 {
		Reach("a")
		os.Stdout.WriteString("past a " + string(rune('1'+i)) + "\n")
	}
	Reach("b")
	os.Stdout.WriteString("past b\n")
}

// TestReach: the process is killed exactly where TZCTX_KILL_AT says, and
// not at all where it is unset, malformed or names another point.
func TestReach(t *testing.T) {
	for _, c := range []struct {
		env    string
		killed bool
		out    string
	}{
		{"", false, "past a 1\npast a 2\npast a 3\npast b\n"},
		{"a", true, ""},
		{"a@2", true, "past a 1\n"},
		{"b", true, "past a 1\npast a 2\npast a 3\n"},
		{"c", false, "past a 1\npast a 2\npast a 3\npast b\n"},
		{"a@x", false, "past a 1\npast a 2\npast a 3\npast b\n"},
		{"a@0", false, "past a 1\npast a 2\npast a 3\npast b\n"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReachChild$")
		cmd.Env = append(os.Environ(), "KILLPOINT_CHILD=1", Env+"="+c.env)
		out, err := cmd.Output()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
		if killed != c.killed {
			t.Errorf("%s=%q: killed %v (%v), want %v", Env, c.env, killed, err, c.killed)
		}
		got := string(out)
		if !c.killed {
			// The test framework adds its own PASS line.
			if len(got) >= len(c.out) {
				got = got[:len(c.out)]
			}
		}
		if got != c.out {
			t.Errorf("%s=%q: printed %q, want %q", Env, c.env, got, c.out)
		}
	}
}
