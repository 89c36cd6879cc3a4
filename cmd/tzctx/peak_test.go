package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// watchPeak polls the high-water mark of pid's resident set (VmHWM in
// /proc/PID/status, which counts the process's own memory since its exec)
// until done closes, and returns a function that waits for the last poll
// and gives the highest mark seen, in MiB. The child's ru_maxrss is no use
// here: os/exec starts a child with vfork, and Linux counts the test
// process's own peak, shared until the exec, as the child's (every child
// of a 340 MiB test process reported 340 MiB).
func watchPeak(pid int, done <-chan struct{}) func() float64 {
	var (
		mu   sync.Mutex
		peak int64
		wg   sync.WaitGroup
	)
	file := "/proc/" + strconv.Itoa(pid) + "/status"
	poll := func() {
		raw, err := os.ReadFile(file)
		if err != nil {
			return
		}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
				kib, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
				if err == nil {
					mu.Lock()
					peak = max(peak, kib)
					mu.Unlock()
				}
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			poll()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() float64 {
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return float64(peak) / 1024
	}
}
