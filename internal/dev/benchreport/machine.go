package benchreport

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Detect describes this machine: the CPU model and core count from
// /proc/cpuinfo, the memory from /proc/meminfo, the kernel release, the
// load averages (other work on a shared machine skews the figures), this
// program's Go version, the time now in UTC, and the commit of the
// working tree in dir (with -dirty where it has changes other than to the
// paths in ignore, such as the report being rewritten). What it cannot
// read it leaves empty.
func Detect(dir string, now time.Time, ignore ...string) Machine {
	m := Machine{Go: runtime.Version(), Date: now.UTC().Format("2006-01-02 15:04 UTC"), Cores: runtime.NumCPU()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		cores := 0
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				if m.CPU == "" {
					m.CPU = strings.TrimSpace(v)
				}
			case "processor":
				cores++
			}
		}
		f.Close()
		if cores > 0 {
			m.Cores = cores
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					if kib, err := strconv.ParseFloat(f[0], 64); err == nil {
						m.Memory = fmt.Sprintf("%.1f GiB", kib/(1<<20))
					}
				}
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(raw))
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	if out, err := git(dir, "rev-parse", "--short", "HEAD"); err == nil {
		m.Commit = out
		args := []string{"status", "--porcelain", "--", "."}
		for _, p := range ignore {
			args = append(args, ":(exclude)"+p)
		}
		if st, err := git(dir, args...); err == nil && st != "" {
			m.Commit += "-dirty"
		}
	}
	return m
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
