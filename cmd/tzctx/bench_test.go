package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// procKiB reads a /proc/<pid>/status memory line, in KiB.
func procKiB(pid int, key string) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return -1
}

var servingAddr = regexp.MustCompile(`serving addr=(\S+)`)

// BenchmarkServerMemory ingests the PowerShell corpus with the real binary,
// serves it from a real process, sends 1,000 searches and pages the whole
// text, and reports the server's peak resident memory (target: under 600
// MiB) beside the ingest time (target: under 15 s).
func BenchmarkServerMemory(b *testing.B) {
	corpus := testkit.Corpus(b, "powershell-docs")
	bin := buildBinary(b)
	for b.Loop() {
		data := b.TempDir()
		start := time.Now()
		runProc(b, bin, nil, "--data", data, "ingest", "--tree", "tzdocs="+corpus, "--activate")
		ingestSeconds := time.Since(start).Seconds()
		srv := startProc(b, bin, nil, "--data", data, "serve", "--addr", "127.0.0.1:0")
		var base string
		for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if m := servingAddr.FindStringSubmatch(srv.stderr.String()); m != nil {
				base = "http://" + m[1]
			}
		}
		if base == "" {
			b.Fatalf("the server did not start:\n%s", srv.stderr.String())
		}
		pid := srv.cmd.Process.Pid
		idle := procKiB(pid, "VmRSS")
		call := func(body map[string]any) map[string]any {
			raw, _ := json.Marshal(body)
			resp, err := http.Post(base+"/api/v1/actions/read_documentation", "application/json", bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			var out map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
				b.Fatalf("%v: %d %v", body, resp.StatusCode, err)
			}
			return out
		}
		words := strings.Fields(readFile(b, filepath.Join(corpus, "7.6/Microsoft.PowerShell.Core/About/about_Jobs.md")))
		rng := rand.New(rand.NewPCG(1, 2))
		for range 1000 {
			q := words[rng.IntN(len(words))]
			if rng.IntN(2) == 0 {
				q += " " + words[rng.IntN(len(words))]
			}
			call(map[string]any{"query": q})
		}
		a := call(map[string]any{"tree": "tzdocs", "part": "full", "limit": 16000})
		chunks := 1
		for a["next_offset"] != nil {
			a = call(map[string]any{"tree": "tzdocs", "part": "full", "limit": 16000, "offset": a["next_offset"], "stamp": a["stamp"]})
			chunks++
		}
		peak := procKiB(pid, "VmHWM")
		b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
		b.ReportMetric(ingestSeconds, "ingest-s")
		fmt.Printf("server on powershell-docs: RSS %d MiB idle, peak %d MiB after 1,000 searches and %d chunks of the whole text (target < 600 MiB); ingest by the CLI %.2f s (target < 15 s)\n",
			idle/1024, peak/1024, chunks, ingestSeconds)
		if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
			b.Fatal(err)
		}
		srv.wait(b, 15*time.Second)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
