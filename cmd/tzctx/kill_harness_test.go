package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/leaf/killpoint"
)

// killLog counts the kill runs of the harness by command and outcome.
type killLog struct {
	mu   sync.Mutex
	runs map[string]map[string]int // command, outcome
}

func (k *killLog) add(command, outcome string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.runs == nil {
		k.runs = map[string]map[string]int{}
	}
	if k.runs[command] == nil {
		k.runs[command] = map[string]int{}
	}
	k.runs[command][outcome]++
}

// summary is one line: the runs in all, then per command its runs and
// their outcomes.
func (k *killLog) summary() (int, string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	total := 0
	var parts []string
	cmds := make([]string, 0, len(k.runs))
	for c := range k.runs {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	for _, c := range cmds {
		n := 0
		var outs []string
		for o, m := range k.runs[c] {
			n += m
			outs = append(outs, fmt.Sprintf("%d %s", m, o))
		}
		sort.Strings(outs)
		total += n
		parts = append(parts, fmt.Sprintf("%s %d (%s)", c, n, strings.Join(outs, ", ")))
	}
	return total, strings.Join(parts, "; ")
}

// servedRefs are the raw answers of a page read and a search, taken
// while one version was served, to compare later answers with byte for
// byte.
type servedRefs struct{ page, search []byte }

var (
	refPage   = map[string]any{"page": "/cloud/reference/http/", "limit": 4000}
	refSearch = map[string]any{"tree": "cloud", "query": "stamp offset"}
)

// takeRefs reads the reference page and search from base.
func takeRefs(t *testing.T, base string) servedRefs {
	t.Helper()
	var r servedRefs
	for _, q := range []struct {
		body map[string]any
		dst  *[]byte
	}{{refPage, &r.page}, {refSearch, &r.search}} {
		code, raw, err := postRaw(base, "read_documentation", q.body)
		if err != nil || code != 200 {
			t.Fatalf("read %v: %d %.300s (%v)", q.body, code, raw, err)
		}
		*q.dst = raw
	}
	return r
}

// sameRefs fails the test where base no longer answers the reference
// reads byte for byte as want.
func sameRefs(t *testing.T, base string, want servedRefs, what string) {
	t.Helper()
	got := takeRefs(t, base)
	if !bytes.Equal(got.page, want.page) {
		t.Errorf("%s: the page read differs from the one taken before:\n got %.200s\nwant %.200s", what, got.page, want.page)
	}
	if !bytes.Equal(got.search, want.search) {
		t.Errorf("%s: the search answer differs from the one taken before:\n got %.200s\nwant %.200s", what, got.search, want.search)
	}
}

// awaitServed waits until base's /healthz names version.
func awaitServed(t *testing.T, base, version string) {
	t.Helper()
	awaitFollow(t, 30*time.Second, base+" serves "+version, func() (bool, string) {
		code, v, err := health(base)
		return code == 200 && v == version, fmt.Sprintf("%d %q %v", code, v, err)
	})
}

// killedBySIGKILL reports whether a process's Wait error says SIGKILL
// ended it.
func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// opensWhole checks that the data directory opens after a kill: tzctx
// versions lists it without faults and every version is ok. It returns
// the rows.
func opensWhole(t *testing.T, bin, dataDir, what string) []versionRow {
	t.Helper()
	rows := parseVersions(t, runProc(t, bin, nil, "--data", dataDir, "versions").stdout.String())
	for _, r := range rows {
		if r.state != "ok" {
			t.Errorf("%s: version %s is %s", what, r.name, r.state)
		}
	}
	return rows
}

// recordCounts reads the data directory's records with tzctx records and
// counts them by call.
func recordCounts(t *testing.T, bin, dataDir string) map[callKey]int {
	t.Helper()
	p := runProc(t, bin, nil, "--data", dataDir, "records", "--json")
	got := map[callKey]int{}
	for _, r := range parseRecordsJSON(t, p.stdout.String()) {
		got[callKey{r.Transport, r.Action, r.Subject, r.Code}]++
	}
	return got
}

// mustAnswerSome returns the count of calls answered before the kills of
// kind, and fails the test at its end where that count is still 0: kills
// that no answered call preceded check no record.
func mustAnswerSome(t *testing.T, kind string, kills int) *int {
	t.Helper()
	n := new(int)
	t.Cleanup(func() {
		if *n == 0 && !t.Failed() {
			t.Errorf("no call was answered before any of the %d %s kills, so no record was checked", kills, kind)
		}
	})
	return n
}

// acknowledgedKept fails the test where a call answered before a kill
// has no record: after must hold at least before plus the answered calls
// of every kind.
func acknowledgedKept(t *testing.T, before, after map[callKey]int, answered *callTally, what string) {
	t.Helper()
	answered.mu.Lock()
	defer answered.mu.Unlock()
	for k, n := range answered.n {
		if got := after[k] - before[k]; got < n {
			t.Errorf("%s: %d calls %+v were answered, %d recorded", what, n, k, got)
		}
	}
}

// killMinimum is the fewest kill runs TestKillHarness makes outside
// -short, whichever of its parts run: where the publish and follow part
// skips (no S3 server) or kills fewer times, the other parts kill more
// often to make up the count.
const killMinimum = 50

// TestKillHarness SIGKILLs tzctx ingest, serve, mcp, publish and serve
// --follow at many points of their work, and after every kill checks
// that the active version still serves byte for byte, that the data
// directory opens, that every call answered before the kill is recorded,
// and that the next run of the command succeeds. The publish and follow
// part needs versitygw and runs first; the parts after it make up what it
// did not run, so the verdict does not depend on which parts ran.
func TestKillHarness(t *testing.T) {
	tier.Long(t, "kills tzctx child processes at many points of their work")
	bin := buildBinary(t)
	var log killLog
	start := time.Now()
	t.Run("publish_follow", func(t *testing.T) { killPublishFollowRuns(t, bin, &log) })
	extra := killExtras(t, &log)
	t.Run("ingest", func(t *testing.T) { killIngestRuns(t, bin, &log, extra.ingest) })
	t.Run("serve", func(t *testing.T) { killServeRuns(t, bin, &log, extra.serve) })
	t.Run("mcp", func(t *testing.T) { killMCPRuns(t, bin, &log, extra.mcp) })
	n, s := log.summary()
	t.Logf("kill runs: %d in %v; %s", n, time.Since(start).Round(time.Second), s)
	if min := killMinimum; !testing.Short() && n < min && !t.Failed() && !t.Skipped() {
		t.Errorf("%d kill runs, want at least %d", n, min)
	}
}

// killExtra is how many kill runs each part adds to its own, to make up
// the harness's minimum.
type killExtra struct{ ingest, serve, mcp int }

// killExtras shares out, one at a time over the ingest, serve and mcp
// parts, the kill runs the harness still needs to reach killMinimum after
// the runs already logged and the ones those parts make of their own.
func killExtras(t *testing.T, log *killLog) killExtra {
	var e killExtra
	if testing.Short() {
		return e
	}
	done, _ := log.summary()
	short := killMinimum - done - (len(ingestKillPoints) + len(ingestKillShares)) - 2*len(serveKillOffsets)
	for i := 0; i < short; i++ {
		switch i % 3 {
		case 0:
			e.ingest++
		case 1:
			e.serve++
		default:
			e.mcp++
		}
	}
	if short > 0 {
		t.Logf("%d kill runs before the other parts; they add %d ingest, %d serve and %d mcp kills to reach %d", done, e.ingest, e.serve, e.mcp, killMinimum)
	}
	return e
}

// moreKills returns base with n more elements, taken in turn from extra
// and, past its end, from extra again with next applied once per round.
func moreKills[T any](base, extra []T, n int, next func(T) T) []T {
	out := append([]T(nil), base...)
	for i := 0; i < n; i++ {
		v := extra[i%len(extra)]
		for range i / len(extra) {
			v = next(v)
		}
		out = append(out, v)
	}
	return out
}

// ingestKillPoints are the named points an ingest of the sample site is
// killed at, over its phases: manifests read, texts written, trees
// composed, the version committed, activated.
var ingestKillPoints = []string{
	"ingest.manifests", "ingest.page@1", "ingest.page@9", "ingest.page@20", "ingest.tree@1", "ingest.tree@3",
	"commit.texts", "commit.db", "commit.index", "commit.synced", "commit.meta", "commit.renamed",
	"activate.verified", "ingest.activated",
}

// ingestBaseKillPoints are the named points a built-on ingest (--base)
// of the changed sample site's cloud tree on version A is killed at: its
// base opened and its manifest read, the tree read anew written, a tree
// carried from the base written (page 30 is the carried blueprint's),
// the texts written (next, the base's section postings are merged in and
// then its index documents), the version committed, activated.
var ingestBaseKillPoints = []string{
	"ingest.manifests", "ingest.tree@1", "ingest.page@30", "ingest.tree@2", "commit.texts", "commit.db", "commit.index", "commit.meta", "commit.renamed", "ingest.activated",
}

// ingestKillShares are the shares of a measured ingest after which it is
// killed, besides its named points; ingestExtraShares are the next ones,
// for the runs that make up the harness's minimum.
var (
	ingestKillShares  = []float64{0.1, 0.3, 0.5, 0.7, 0.9}
	ingestExtraShares = []float64{0.2, 0.4, 0.6, 0.8, 0.05, 0.95, 0.15, 0.35, 0.55, 0.75, 0.85, 0.25}
)

// killIngestRuns kills `tzctx ingest --activate` at every named point
// and at offsets spread over a measured ingest (extra more than
// ingestKillShares), with a server reading the data directory throughout.
func killIngestRuns(t *testing.T, bin string, log *killLog, extra int) {
	work := t.TempDir()
	data := filepath.Join(work, "data")
	runProc(t, bin, nil, "--data", data, "ingest", testkit.SampleSite(t), "--version", "A", "--activate")
	siteB := changedSite(t)
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, base := startServeProc(t, bin, data, cfg, nil)
	refs := map[string]servedRefs{"A": takeRefs(t, base)}
	ingestB := []string{"--data", data, "ingest", siteB, "--version", "B", "--activate"}
	began := time.Now()
	runProc(t, bin, nil, ingestB...)
	took := time.Since(began)
	awaitServed(t, base, "B")
	refs["B"] = takeRefs(t, base)
	reset := func() {
		runProc(t, bin, nil, "--data", data, "activate", "A")
		awaitServed(t, base, "A")
		runProc(t, bin, nil, "--data", data, "delete", "B")
	}
	reset()
	t.Logf("an ingest of the changed sample site took %v", took.Round(time.Millisecond))

	// The same version B built on A, its cloud tree read anew and the
	// others carried from A's stored pages.
	basedB := []string{"--data", data, "ingest", "--tree", "cloud=" + filepath.Join(siteB, "cloud"), "--base", "A", "--version", "B", "--activate"}
	type run struct {
		point string
		after time.Duration // for runs without a point
		based bool          // the built-on ingest, basedB
	}
	var runs []run
	for _, p := range ingestKillPoints {
		runs = append(runs, run{point: p})
	}
	for _, p := range ingestBaseKillPoints {
		runs = append(runs, run{point: p, based: true})
	}
	for _, f := range moreKills(ingestKillShares, ingestExtraShares, extra, func(f float64) float64 { return f / 2 }) {
		runs = append(runs, run{after: time.Duration(f * float64(took))})
	}
	if testing.Short() {
		runs = thin(runs, 2)
	}
	for _, r := range runs {
		what := "ingest killed at " + r.point
		env := []string{killpoint.Env + "=" + r.point}
		if r.point == "" {
			what, env = fmt.Sprintf("ingest killed %v after its start", r.after.Round(time.Millisecond)), nil
		}
		args := ingestB
		if r.based {
			what, args = "ingest --base A killed at "+r.point, basedB
		}
		p := startProc(t, bin, env, args...)
		if r.point == "" {
			time.Sleep(r.after)
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
		}
		err := p.wait(t, time.Minute)
		if r.point != "" && !killedBySIGKILL(err) {
			t.Fatalf("%s: the point was not reached; the ingest ended with %v\n%s", what, err, p.stderr.String())
		}
		rows := opensWhole(t, bin, data, what)
		left := "no version"
		for _, row := range rows {
			if row.name == "B" {
				left = "a whole version"
				runProc(t, bin, nil, "--data", data, "verify", "B")
			}
		}
		active := activeName(t, data)
		if active == "B" {
			left += ", activated"
		}
		if !killedBySIGKILL(err) {
			left = "finished before the kill"
		}
		awaitServed(t, base, active)
		sameRefs(t, base, refs[active], what)
		// The next run of the same command succeeds and clears what the
		// killed one left.
		runProc(t, bin, nil, args...)
		awaitServed(t, base, "B")
		sameRefs(t, base, refs["B"], what+", then run again")
		if names := dirNames(t, filepath.Join(data, "staging")); len(names) != 0 {
			t.Errorf("%s: staging holds %v after the next run", what, names)
		}
		reset()
		if r.based {
			log.add("ingest --base", left)
			continue
		}
		log.add("ingest", left)
	}
}

// serveKillOffsets are how long the server (or tzctx mcp) answers its
// load before the SIGKILL; serveExtraOffsets are the next ones, for the
// runs that make up the harness's minimum.
var (
	serveKillOffsets = []time.Duration{0, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
		200 * time.Millisecond, 300 * time.Millisecond, 450 * time.Millisecond, 600 * time.Millisecond,
		800 * time.Millisecond, time.Second}
	serveExtraOffsets = []time.Duration{10 * time.Millisecond, 150 * time.Millisecond, 375 * time.Millisecond,
		525 * time.Millisecond, 700 * time.Millisecond, 900 * time.Millisecond, 35 * time.Millisecond,
		250 * time.Millisecond, 1200 * time.Millisecond}
)

// killOffsets returns serveKillOffsets and extra more, or every third
// of them under -short.
func killOffsets(extra int) []time.Duration {
	if testing.Short() {
		return thin(serveKillOffsets, 3)
	}
	return moreKills(serveKillOffsets, serveExtraOffsets, extra, func(d time.Duration) time.Duration { return d + 5*time.Millisecond })
}

// killServeRuns kills `tzctx serve` while it answers four callers and
// records their calls, at serveKillOffsets and extra more.
func killServeRuns(t *testing.T, bin string, log *killLog, extra int) {
	work := t.TempDir()
	data := filepath.Join(work, "data")
	runProc(t, bin, nil, "--data", data, "ingest", testkit.SampleSite(t), "--version", "K", "--activate")
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "1h"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var refs *servedRefs
	offsets := killOffsets(extra)
	// Kills with no call answered before them would check no record:
	// the runs must have answered some in all.
	answeredInAll := mustAnswerSome(t, "serve", len(offsets))
	for i := 0; i <= len(offsets); i++ {
		srv, base := startServeProc(t, bin, data, cfg, nil)
		if refs == nil {
			r := takeRefs(t, base)
			refs = &r
		} else {
			sameRefs(t, base, *refs, fmt.Sprintf("the server started after kill %d", i))
		}
		if i == len(offsets) {
			_ = srv.cmd.Process.Signal(syscall.SIGTERM)
			if err := srv.wait(t, 15*time.Second); err != nil {
				t.Errorf("the server after the last kill ended with %v on SIGTERM", err)
			}
			break
		}
		what := fmt.Sprintf("serve killed %v into its load", offsets[i])
		before := recordCounts(t, bin, data)
		var answered callTally
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for j := w; ; j++ {
					c := killLoadCalls[j%len(killLoadCalls)]
					if !c.do(base) {
						return
					}
					answered.add(c.want)
				}
			})
		}
		time.Sleep(offsets[i])
		if i == len(offsets)-1 && *answeredInAll == 0 {
			// However slow the machine, the last kill comes after an
			// answered call, so that some record is checked.
			awaitFollow(t, time.Minute, what+": a call answered", func() (bool, string) {
				n := answered.total(tzctx.TransportHTTP)
				return n > 0, fmt.Sprintf("%d calls answered", n)
			})
		}
		_ = srv.cmd.Process.Signal(syscall.SIGKILL)
		if err := srv.wait(t, 10*time.Second); !killedBySIGKILL(err) {
			t.Fatalf("%s: the server ended by %v, not by SIGKILL", what, err)
		}
		wg.Wait()
		opensWhole(t, bin, data, what)
		acknowledgedKept(t, before, recordCounts(t, bin, data), &answered, what)
		log.add("serve", "answered calls kept")
		*answeredInAll += answered.total(tzctx.TransportHTTP)
		t.Logf("%s: %d calls answered before the kill", what, answered.total(tzctx.TransportHTTP))
	}
}

// canonical re-encodes a JSON value, so that two encodings of one value
// compare equal byte for byte.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v: %.200s", err, raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// killMCPRuns kills `tzctx mcp` mid-session, with calls in flight, at
// serveKillOffsets and extra more, and checks each next session reads
// what HTTP serves.
func killMCPRuns(t *testing.T, bin string, log *killLog, extra int) {
	work := t.TempDir()
	data := filepath.Join(work, "data")
	runProc(t, bin, nil, "--data", data, "ingest", testkit.SampleSite(t), "--version", "M", "--activate")
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "1h"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, data, cfg, nil)
	refs := takeRefs(t, base)
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.wait(t, 15*time.Second); err != nil {
		t.Fatalf("the server ended with %v on SIGTERM", err)
	}
	offsets := killOffsets(extra)
	answeredInAll := mustAnswerSome(t, "mcp", len(offsets))
	for i := 0; i <= len(offsets); i++ {
		mc, child := killableStdio(t, bin, data, nil)
		for _, q := range []struct {
			body map[string]any
			want []byte
		}{{refPage, refs.page}, {refSearch, refs.search}} {
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "read_documentation", q.body
			res, err := mc.CallTool(context.Background(), req)
			if err != nil || res.IsError {
				t.Fatalf("the MCP session after kill %d: read %v: %v %+v", i, q.body, err, res)
			}
			got, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			if canonical(t, got) != canonical(t, q.want) {
				t.Errorf("the MCP session after kill %d reads %v unlike HTTP did before:\n got %.200s\nwant %.200s", i, q.body, got, q.want)
			}
		}
		if i == len(offsets) {
			if err := mc.Close(); err != nil {
				t.Errorf("the MCP process after the last kill did not stop cleanly: %v", err)
			}
			break
		}
		what := fmt.Sprintf("mcp killed %v into its session", offsets[i])
		before := recordCounts(t, bin, data)
		var answered callTally
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for j := w; ; j++ {
					c := mcpLoadCalls[j%len(mcpLoadCalls)]
					req := mcpgo.CallToolRequest{}
					req.Params.Name, req.Params.Arguments = c.tool, c.args
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					res, err := mc.CallTool(ctx, req)
					cancel()
					if err != nil || res.IsError != (c.want.code != tzctx.OK) {
						return
					}
					answered.add(c.want)
				}
			})
		}
		time.Sleep(offsets[i])
		if i == len(offsets)-1 && *answeredInAll == 0 {
			// However slow the machine, the last kill comes after an
			// answered call, so that some record is checked.
			awaitFollow(t, time.Minute, what+": a call answered", func() (bool, string) {
				n := answered.total(tzctx.TransportMCPStdio)
				return n > 0, fmt.Sprintf("%d calls answered", n)
			})
		}
		cmd := child()
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = mc.Close()
		wg.Wait()
		if st := cmd.ProcessState; st == nil || !killedBySIGKILL(&exec.ExitError{ProcessState: st}) {
			t.Fatalf("%s: the MCP process ended with %v, not by SIGKILL", what, st)
		}
		opensWhole(t, bin, data, what)
		acknowledgedKept(t, before, recordCounts(t, bin, data), &answered, what)
		log.add("mcp", "answered calls kept")
		*answeredInAll += answered.total(tzctx.TransportMCPStdio)
		t.Logf("%s: %d calls answered before the kill", what, answered.total(tzctx.TransportMCPStdio))
	}
}

// thin keeps every k-th element of s, for the shorter runs of -short.
func thin[T any](s []T, k int) []T {
	var out []T
	for i := 0; i < len(s); i += k {
		out = append(out, s[i])
	}
	return out
}

var publishedSizeRE = regexp.MustCompile(`\((\d+) bytes, sha256`)

// killPublishFollowRuns kills `tzctx publish --activate` mid-upload and
// `tzctx serve --follow` mid-download and mid-activation, against a real
// S3 server.
func killPublishFollowRuns(t *testing.T, bin string, log *killLog) {
	s3 := testkit.StartS3(t, "versions")
	loc := "s3://versions/kills"
	pub := t.TempDir()
	ingestPub := func(site, name string) {
		t.Helper()
		runProc(t, bin, nil, "--data", pub, "ingest", site, "--version", name)
	}
	publishDirect := func(name string) string {
		t.Helper()
		return runProc(t, bin, s3.Env(), "--data", pub, "publish", name, "--to", loc, "--activate").stdout.String()
	}
	ingestPub(testkit.SampleSite(t), "v1")
	publishDirect("v1")
	siteB := changedSite(t)
	ingestPub(siteB, "b0")
	m := publishedSizeRE.FindStringSubmatch(publishDirect("b0"))
	if m == nil {
		t.Fatal("publish printed no archive size")
	}
	size, _ := strconv.ParseInt(m[1], 10, 64)

	replica := t.TempDir()
	cfgJSON := `{"watch_interval": "50ms", "follow": {"interval": "100ms", "keep": 3}}`
	f, base := startFollowerProc(t, bin, s3.Env(), loc, cfgJSON, replica)
	awaitServed(t, base, "b0")
	refB := takeRefs(t, base)
	publishDirect("v1")
	awaitServed(t, base, "v1")
	refs := map[string]servedRefs{"v1": takeRefs(t, base)}
	c := s3Client(t, s3, loc)
	ctx := context.Background()

	// publish, killed after a share of its archive reached the store.
	shares := []float64{0, 0.15, 0.35, 0.55, 0.75, 0.95}
	if testing.Short() {
		shares = thin(shares, 2)
	}
	proxy := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), int(max(size, 64<<10)))
	slow := append(s3.Env(), "AWS_ENDPOINT_URL_S3=http://"+proxy.Addr)
	for i, share := range shares {
		name := fmt.Sprintf("p%d", i)
		refs[name] = refB
		ingestPub(siteB, name)
		what := fmt.Sprintf("publish killed with %.0f%% of its archive sent", share*100)
		before := proxy.Received()
		p := startProc(t, bin, slow, "--data", pub, "publish", name, "--to", loc, "--activate")
		awaitFollow(t, 30*time.Second, what, func() (bool, string) {
			got := proxy.Received() - before
			return float64(got) >= share*float64(size), fmt.Sprintf("%d of %d bytes", got, size)
		})
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		err := p.wait(t, 10*time.Second)
		has, herr := c.HasArchive(ctx, name)
		ptr, _, _, perr := c.Active(ctx, "")
		if herr != nil || perr != nil {
			t.Fatalf("%s: the store: %v, %v", what, herr, perr)
		}
		outcome := "no archive, pointer kept"
		switch {
		case !killedBySIGKILL(err):
			outcome = "finished before the kill"
		case ptr.Version == name:
			outcome = "archive whole, pointer moved"
		case has:
			outcome = "archive whole, pointer kept"
		}
		if ptr.Version != "v1" && ptr.Version != name {
			t.Errorf("%s: the pointer names %s", what, ptr.Version)
		}
		if ptr.Version == name && !has {
			t.Errorf("%s: the pointer names an archive that is not there", what)
		}
		awaitServed(t, base, ptr.Version)
		sameRefs(t, base, refs[ptr.Version], what)
		opensWhole(t, bin, pub, what)
		// The next run of the same command succeeds and the replica
		// takes what it published; then the pointer goes back.
		runProc(t, bin, s3.Env(), "--data", pub, "publish", name, "--to", loc, "--activate")
		awaitServed(t, base, name)
		sameRefs(t, base, refB, what+", then run again")
		publishDirect("v1")
		awaitServed(t, base, "v1")
		log.add("publish", outcome)
	}
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	if err := f.wait(t, 15*time.Second); err != nil {
		t.Fatalf("the replica ended with %v on SIGTERM", err)
	}

	// serve --follow, killed at the named points of taking a version, and
	// mid-download through a slow proxy.
	type run struct {
		point string
		share float64 // of the archive downloaded, for runs without a point
	}
	runs := []run{{point: "follow.downloaded"}, {point: "import.unpacked"}, {point: "import.renamed"},
		{point: "follow.imported"}, {point: "activate.verified"}, {share: 0.3}, {share: 0.7}}
	if testing.Short() {
		runs = thin(runs, 2)
	}
	down := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), int(max(size, 64<<10)))
	for i, r := range runs {
		name := fmt.Sprintf("f%d", i)
		refs[name] = refB
		ingestPub(siteB, name)
		what := "serve --follow killed at " + r.point
		env := append(s3.Env(), killpoint.Env+"="+r.point)
		if r.point == "" {
			what = fmt.Sprintf("serve --follow killed with %.0f%% of the archive downloaded", r.share*100)
			env = append(s3.Env(), "AWS_ENDPOINT_URL_S3=http://"+down.Addr)
		}
		f, base := startFollowerProc(t, bin, env, loc, cfgJSON, replica)
		awaitServed(t, base, "v1")
		sameRefs(t, base, refs["v1"], what+": before")
		sent := down.Sent()
		publishDirect(name)
		if r.point == "" {
			awaitFollow(t, 30*time.Second, what, func() (bool, string) {
				got := down.Sent() - sent
				return float64(got) >= r.share*float64(size), fmt.Sprintf("%d of %d bytes", got, size)
			})
			_ = f.cmd.Process.Signal(syscall.SIGKILL)
		}
		if err := f.wait(t, 30*time.Second); !killedBySIGKILL(err) {
			t.Fatalf("%s: the replica ended with %v, not by SIGKILL\n%s", what, err, f.stderr.String())
		}
		rows := opensWhole(t, bin, replica, what)
		outcome := "not taken"
		for _, row := range rows {
			if row.name == name {
				outcome = "taken whole"
			}
		}
		active := activeName(t, replica)
		if active != "v1" && active != name {
			t.Errorf("%s: the replica's pointer names %s", what, active)
		}
		if active == name {
			outcome += ", activated"
		}
		// The next run serves the version the store names, byte for
		// byte; then the pointer goes back.
		f2, base2 := startFollowerProc(t, bin, s3.Env(), loc, cfgJSON, replica)
		awaitServed(t, base2, name)
		sameRefs(t, base2, refs[name], what+", then run again")
		if left := dirNames(t, filepath.Join(replica, "downloads")); len(left) != 0 {
			t.Errorf("%s: downloads holds %v after the next run took the version", what, left)
		}
		publishDirect("v1")
		awaitServed(t, base2, "v1")
		_ = f2.cmd.Process.Signal(syscall.SIGTERM)
		if err := f2.wait(t, 15*time.Second); err != nil {
			t.Fatalf("%s: the next replica ended with %v on SIGTERM", what, err)
		}
		log.add("serve --follow", outcome)
	}
}
