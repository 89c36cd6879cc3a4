package soak_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// soakDuration is the soak's length: $TZCTX_SOAK (a Go duration, such as
// 10m), else 2 minutes, else 20 seconds under -short.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("TZCTX_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second {
			t.Fatalf("TZCTX_SOAK=%q: give a Go duration of 10s or more, such as 2m or 30m", v)
		}
		return d
	}
	if testing.Short() {
		return 20 * time.Second
	}
	return 2 * time.Minute
}

// soakOvertime is how much longer than its length the soak may run on a
// machine too slow or loaded to make its activations and calls in time.
const soakOvertime = 3 * time.Minute

// tally counts calls by kind and outcome, and keeps their latencies.
type tally struct {
	mu       sync.Mutex
	outcomes map[string]map[string]int // kind → outcome → calls
	lat      map[string][]time.Duration
	bad      []string // the first unexpected outcomes, described
	nbad     int
}

func newTally() *tally {
	return &tally{outcomes: map[string]map[string]int{}, lat: map[string][]time.Duration{}}
}

func (ty *tally) add(kind, outcome string, d time.Duration) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	if ty.outcomes[kind] == nil {
		ty.outcomes[kind] = map[string]int{}
	}
	ty.outcomes[kind][outcome]++
	ty.lat[kind] = append(ty.lat[kind], d)
}

// calls returns the calls counted so far.
func (ty *tally) calls() int {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	n := 0
	for _, l := range ty.lat {
		n += len(l)
	}
	return n
}

func (ty *tally) fail(format string, args ...any) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	ty.nbad++
	if len(ty.bad) < 20 {
		ty.bad = append(ty.bad, fmt.Sprintf(format, args...))
	}
}

// growth is what the server's /metrics and /proc say at one moment, the
// minimum of a few samples a little apart (in-flight calls add goroutines
// and garbage; a leak raises the floor).
type growth struct {
	goroutines, fds, heapInuse, rss float64
}

func sampleGrowth(base string, pid int) (growth, error) {
	g := growth{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}
	for i := 0; i < 5; i++ {
		m, err := metricsOf(base, "")
		if err != nil {
			return g, err
		}
		fds, err := openFDs(pid)
		if err != nil {
			return g, err
		}
		g.goroutines = min(g.goroutines, m["go_goroutines"])
		g.heapInuse = min(g.heapInuse, m["go_memstats_heap_inuse_bytes"])
		g.rss = min(g.rss, m["process_resident_memory_bytes"])
		g.fds = min(g.fds, float64(fds))
		time.Sleep(200 * time.Millisecond)
	}
	return g, nil
}

var linkRE = regexp.MustCompile(`\]\((/[^)\s]*)\)`)

// TestSoak drives a real `tzctx serve` with many concurrent clients over
// HTTP and MCP streamable HTTP (searches, page reads, pagings that follow
// next_offset with the stamp, catalog listings and reads; one client opens
// and closes MCP sessions again and again) while a loop
// ingests a changed site and activates it every few seconds. Every call
// must succeed, except context_changed on a paging's continuation whose
// text an activation changed (checked by reading the text afresh); the
// server's goroutines, open file descriptors and heap must not grow
// between the end of the warm-up (a minute, or the first third of a
// shorter run) and the end. It logs p50 and p99 per kind of call and
// overall, calls per second, activations, and the growth figures. Its
// length is $TZCTX_SOAK (default 2m, 20s under -short), run longer where
// the machine is too slow to make one activation every 6 s and 100 calls
// in it.
func TestSoak(t *testing.T) {
	tier.Long(t, "soaks a tzctx serve child process for minutes")
	dur := soakDuration(t)
	warm := dur / 3
	if dur >= 2*time.Minute {
		warm = time.Minute
	}
	tzctxBin(t)
	work := t.TempDir()
	dataDir := filepath.Join(work, "data")
	site := filepath.Join(work, "site")
	testkit.CopyTree(t, testkit.SampleSite(t), site)
	cli(t, dataDir, "ingest", site, "--version", "soak-0", "--activate")
	srv := startServe(t, dataDir, writeConfig(t, "250ms"), "127.0.0.1:0")
	pid := srv.cmd.Process.Pid

	// What the clients read: the routes each tree's index links to, and
	// search words taken from the pages' titles and headings.
	var routes []string
	words := map[string]bool{}
	for _, tree := range []string{"cloud", "tzdocs", "blueprint"} {
		a, _ := mustCall(t, srv.base, tokenHolder, "read_documentation", map[string]any{"tree": tree, "limit": 16000})
		for _, m := range linkRE.FindAllStringSubmatch(a.Text, -1) {
			routes = append(routes, m[1])
		}
		o, _ := mustCall(t, srv.base, tokenHolder, "read_documentation", map[string]any{"tree": tree, "part": "outline", "limit": 16000})
		for _, w := range strings.FieldsFunc(strings.ToLower(o.Text), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			if len(w) >= 4 {
				words[w] = true
			}
		}
	}
	slices.Sort(routes)
	routes = slices.Compact(routes)
	// The search benchmarks' fixed query set joins them: rare and
	// one-character words, misses and rule codes.
	vocab := append(sortedKeys(words), testkit.SearchQueries...)
	if len(routes) < 10 || len(vocab) < 20 {
		t.Fatalf("the sample site gave %d routes and %d words; the soak needs more", len(routes), len(vocab))
	}
	// The page every activation edits, read and paged often so pagings
	// span activations.
	const changing = "/cloud/reference/http/"
	if !slices.Contains(routes, changing) {
		t.Fatalf("the cloud index does not link %s", changing)
	}
	t.Logf("soak: %v (warm-up %v), %d routes, %d search words", dur, warm, len(routes), len(vocab))

	idle, err := sampleGrowth(srv.base, pid)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average at the start: %s", strings.TrimSpace(string(b)))
	}
	ty := newTally()
	var activationsStarted, activationsDone atomic.Int64
	// The soak lasts dur, and longer where a slow or loaded machine has
	// not yet done the activations and calls it must (soakOvertime at
	// most): what it holds the server to is counts, not speed.
	wantActivations := int64(dur / (3 * time.Second) / 2)
	const wantCalls = 100
	ctx, cancel := context.WithTimeout(context.Background(), dur+soakOvertime)
	defer cancel()
	var wg sync.WaitGroup

	// The ingest loop: one page edited, ingested and activated every
	// few seconds, as a subprocess against the same data directory.
	wg.Go(func() {
		tick := time.NewTicker(3 * time.Second)
		defer tick.Stop()
		page := filepath.Join(site, "cloud", "reference", "http.mdx")
		orig, err := os.ReadFile(page)
		if err != nil {
			ty.fail("read %s: %v", page, err)
			return
		}
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			edited := string(orig) + fmt.Sprintf("\n\nRevision %d of this page, written by the soak test.\n", n)
			if err := os.WriteFile(page, []byte(edited), 0o644); err != nil {
				ty.fail("write %s: %v", page, err)
				return
			}
			activationsStarted.Add(1)
			if _, err := cliErr(dataDir, "ingest", site, "--version", fmt.Sprintf("soak-%d", n), "--activate"); err != nil {
				ty.fail("ingest and activate soak-%d: %v", n, err)
				continue
			}
			activationsDone.Add(1)
		}
	})

	type reader func(ctx context.Context, tool string, args map[string]any) (answer, error)
	httpReader := func(token string) reader {
		return func(ctx context.Context, tool string, args map[string]any) (answer, error) {
			st, raw, err := call(srv.base, token, tool, args)
			if err != nil {
				return answer{}, err
			}
			a, err := decode(raw)
			if err != nil {
				return a, fmt.Errorf("status %d, not JSON: %.200q", st, raw)
			}
			if (st == http.StatusOK) != (a.Error == nil) {
				return a, fmt.Errorf("status %d with body %.200q", st, raw)
			}
			return a, nil
		}
	}
	mcpReader := func(c *client.Client) reader {
		return func(ctx context.Context, tool string, args map[string]any) (answer, error) {
			a, _, err := toolCall(ctx, c, tool, args)
			return a, err
		}
	}

	// one runs one call and counts it; it returns the answer and whether
	// it was an answer (not a refusal or a failure).
	one := func(ctx context.Context, rd reader, transport, kind, tool string, args map[string]any) (answer, bool) {
		start := time.Now()
		a, err := rd(ctx, tool, args)
		d := time.Since(start)
		if ctx.Err() != nil {
			return a, false // the run ended mid-call: not counted
		}
		kind = transport + " " + kind
		switch {
		case err != nil:
			ty.add(kind, "transport error", d)
			ty.fail("%s %s %v: %v", kind, tool, args, err)
			return a, false
		case a.Error != nil:
			ty.add(kind, a.Error.Code, d)
			return a, false
		}
		ty.add(kind, "ok", d)
		return a, true
	}

	// page follows a text from offset 0 with the given limit to its end.
	// A continuation refused context_changed is allowed only where the
	// text read afresh has another stamp: an activation changed it.
	page := func(ctx context.Context, rd reader, transport, kind, tool string, req map[string]any) {
		off, stamp := 0, ""
		var text strings.Builder
		for i := 0; i < 1000 && ctx.Err() == nil; i++ {
			args := maps(req)
			if off > 0 {
				args["offset"], args["stamp"] = off, stamp
			}
			a, ok := one(ctx, rd, transport, kind, tool, args)
			if !ok {
				if a.Error == nil || ctx.Err() != nil {
					return // counted already, or the run ended
				}
				if a.Error.Code == "context_changed" && off > 0 {
					fresh, err := rd(ctx, tool, maps(req))
					if ctx.Err() != nil {
						return
					}
					if err != nil || fresh.Error != nil || fresh.Stamp == stamp {
						ty.fail("%s %s %v: context_changed, but the text read afresh has the same stamp (%v, %v)", transport, kind, args, err, fresh.Error)
					}
					return
				}
				ty.fail("%s %s %v: refused %s: %s", transport, kind, args, a.Error.Code, a.Error.Detail)
				return
			}
			if a.Offset != off || (off > 0 && a.Stamp != stamp) {
				ty.fail("%s %s %v: offset %d stamp %s, want %d %s", transport, kind, args, a.Offset, a.Stamp, off, stamp)
				return
			}
			text.WriteString(a.Text)
			if a.NextOffset == nil {
				// A text's stamp is the SHA-256 of the whole text: the
				// chunks joined must be it, whatever was activated meanwhile.
				sum := sha256.Sum256([]byte(text.String()))
				if tool != "list_context" && (hex.EncodeToString(sum[:]) != a.Stamp || utf8.RuneCountInString(text.String()) != a.Total) {
					ty.fail("%s %s %v: the chunks joined are not the text the stamp and total name", transport, kind, req)
				}
				return
			}
			off, stamp = *a.NextOffset, a.Stamp
		}
	}

	// loop is one client's loop of mixed reads.
	loop := func(ctx context.Context, seed uint64, rd reader, transport string, holder bool) {
		r := rand.New(rand.NewPCG(seed, 1))
		for ctx.Err() == nil {
			route := routes[r.IntN(len(routes))]
			if !holder && strings.HasPrefix(route, "/blueprint/") {
				route = changing
			}
			switch k := r.IntN(10); {
			case k < 3: // search: one tree or all the caller reads
				q := vocab[r.IntN(len(vocab))]
				if r.IntN(2) == 0 {
					q += " " + vocab[r.IntN(len(vocab))]
				}
				args := map[string]any{"query": q}
				if r.IntN(2) == 0 {
					args["tree"] = []string{"cloud", "tzdocs"}[r.IntN(2)]
				}
				if a, ok := one(ctx, rd, transport, "search", "read_documentation", args); !ok && a.Error != nil {
					ty.fail("%s search %v: refused %s: %s", transport, args, a.Error.Code, a.Error.Detail)
				}
			case k < 5: // a page read's first chunk
				args := map[string]any{"page": route, "limit": 1 + r.IntN(4000)}
				if a, ok := one(ctx, rd, transport, "page", "read_documentation", args); !ok && a.Error != nil {
					ty.fail("%s page %v: refused %s: %s", transport, args, a.Error.Code, a.Error.Detail)
				}
			case k < 7: // a paging, the changing page half the time
				if r.IntN(2) == 0 {
					route = changing
				}
				page(ctx, rd, transport, "paging", "read_documentation", map[string]any{"page": route, "limit": 200 + r.IntN(800)})
			case k < 8: // the changing tree's whole text, paged
				page(ctx, rd, transport, "paging", "read_documentation", map[string]any{"tree": "cloud", "part": "full", "limit": 8000})
			case k < 9: // the catalog, listed to its end
				page(ctx, rd, transport, "catalog", "list_context", map[string]any{})
			default: // catalog entries read
				id := []string{"overview", "service_contracts", "docs:cloud", "docs:tzdocs:full", "guide:reading", "payload:read_documentation"}[r.IntN(6)]
				page(ctx, rd, transport, "catalog", "read_context", map[string]any{"id": id, "limit": 4000})
			}
		}
	}

	const httpClients, mcpClients = 8, 4
	var sessions []*client.Client
	for i := range httpClients {
		token := ""
		if i%2 == 1 {
			token = tokenHolder
		}
		wg.Go(func() { loop(ctx, uint64(i), httpReader(token), "http", token != "") })
	}
	for i := range mcpClients {
		var opts []transport.StreamableHTTPCOption
		if i%2 == 0 {
			//lint:ignore SA1019 the GET stream is what clients of 2025-11-25 listen on
			opts = append(opts, transport.WithContinuousListening())
		}
		token := ""
		if i%2 == 1 {
			token = tokenHolder
		}
		c := mcpSession(t, srv.base, token, opts...)
		sessions = append(sessions, c)
		wg.Go(func() { loop(ctx, uint64(100+i), mcpReader(c), "mcp", token != "") })
	}

	// Session churn: a client that opens an MCP session, lists the
	// catalog and closes the session, again and again, so sessions the
	// server does not let go of show as growth.
	wg.Go(func() {
		for ctx.Err() == nil {
			start := time.Now()
			c, err := newMCPSession(srv.base, "")
			if ctx.Err() != nil {
				if c != nil {
					_ = c.Close()
				}
				return
			}
			if err != nil {
				ty.add("mcp session", "transport error", time.Since(start))
				ty.fail("mcp session: %v", err)
				continue
			}
			one(ctx, mcpReader(c), "mcp", "session", "list_context", map[string]any{})
			_ = c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	})

	// The growth figures: at the end of the warm-up and at the end.
	start := time.Now()
	var first, last growth
	var sampleErr error
	wg.Go(func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(warm):
		}
		first, sampleErr = sampleGrowth(srv.base, pid)
	})
	time.Sleep(time.Until(start.Add(dur - 2*time.Second)))
	for (activationsDone.Load() < wantActivations || ty.calls() < wantCalls) && time.Since(start) < dur+soakOvertime-2*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	if over := time.Since(start) - (dur - 2*time.Second); over > time.Second {
		t.Logf("the soak ran %v past its length to reach %d activations and %d calls", over.Round(time.Second), wantActivations, wantCalls)
	}
	last, err = sampleGrowth(srv.base, pid)
	cancel()
	wg.Wait()
	elapsed := time.Since(start)
	if err != nil || sampleErr != nil {
		t.Fatalf("sampling the server: %v, %v", sampleErr, err)
	}

	// The figures.
	var all []time.Duration
	calls := 0
	for _, kind := range sortedKeys(ty.lat) {
		s := sortedCopy(ty.lat[kind])
		all = append(all, s...)
		calls += len(s)
		t.Logf("%-14s %7d calls  p50 %-10v p99 %-10v outcomes %v", kind, len(s), quantile(s, 0.5), quantile(s, 0.99), ty.outcomes[kind])
	}
	all = sortedCopy(all)
	t.Logf("all            %7d calls  p50 %-10v p99 %-10v  %.0f calls/s over %v; %d activations done (%d started)",
		calls, quantile(all, 0.5), quantile(all, 0.99), float64(calls)/elapsed.Seconds(), elapsed.Round(time.Second), activationsDone.Load(), activationsStarted.Load())
	t.Logf("growth from %v to the end: goroutines %.0f → %.0f, open fds %.0f → %.0f, heap in use %.1f → %.1f MiB, RSS %.1f → %.1f MiB",
		warm, first.goroutines, last.goroutines, first.fds, last.fds, first.heapInuse/(1<<20), last.heapInuse/(1<<20), first.rss/(1<<20), last.rss/(1<<20))

	if ty.nbad > 0 {
		t.Errorf("%d failed calls or faults, the first:\n%s", ty.nbad, strings.Join(ty.bad, "\n"))
	}
	if want := wantActivations; activationsDone.Load() < want {
		t.Errorf("%d activations in %v, want at least %d", activationsDone.Load(), elapsed, want)
	}
	if calls < wantCalls {
		t.Errorf("only %d calls in %v", calls, elapsed)
	}
	for kind, outs := range ty.outcomes {
		for out, n := range outs {
			if out != "ok" && !(out == "context_changed" && strings.HasSuffix(kind, "paging")) && !(out == "context_changed" && strings.HasSuffix(kind, "catalog")) {
				t.Errorf("%s: %d calls ended %s", kind, n, out)
			}
		}
	}
	if last.goroutines > first.goroutines*1.5+10 {
		t.Errorf("the server's goroutines grew from %.0f to %.0f", first.goroutines, last.goroutines)
	}
	if last.fds > first.fds+20 {
		t.Errorf("the server's open file descriptors grew from %.0f to %.0f", first.fds, last.fds)
	}
	if last.heapInuse > 2*first.heapInuse+8<<20 {
		t.Errorf("the server's heap in use grew from %.1f to %.1f MiB", first.heapInuse/(1<<20), last.heapInuse/(1<<20))
	}
	// Once the clients are gone, the server's goroutines return to what
	// they were before the load: nothing a session or an activation
	// started outlives it.
	for _, c := range sessions {
		_ = c.Close()
	}
	httpClient.CloseIdleConnections()
	var after growth
	settled := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !settled; {
		if after, err = sampleGrowth(srv.base, pid); err != nil {
			t.Fatal(err)
		}
		settled = after.goroutines <= idle.goroutines+5 && after.fds <= idle.fds+5
	}
	t.Logf("idle before the load: goroutines %.0f, open fds %.0f; after it: %.0f, %.0f", idle.goroutines, idle.fds, after.goroutines, after.fds)
	if !settled {
		t.Errorf("after the load the server holds %.0f goroutines and %.0f fds, before it %.0f and %.0f", after.goroutines, after.fds, idle.goroutines, idle.fds)
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average at the end: %s", strings.TrimSpace(string(b)))
	}
	srv.stop(t)
}

// maps returns a shallow copy of m.
func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}
