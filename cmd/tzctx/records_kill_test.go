package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
)

// callKey is what a test knows of a call it made, and what its record
// must say.
type callKey struct{ transport, action, subject, code string }

// callTally counts calls by key; it is safe for concurrent use.
type callTally struct {
	mu sync.Mutex
	n  map[callKey]int
}

func (c *callTally) add(k callKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[callKey]int{}
	}
	c.n[k]++
}

func (c *callTally) total(transport string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := 0
	for k, n := range c.n {
		if k.transport == transport {
			t += n
		}
	}
	return t
}

// httpCall is one HTTP call of the load, with the record it makes.
type httpCall struct {
	method, query string
	body          map[string]any
	want          callKey
}

var killLoadCalls = []httpCall{
	{http.MethodPost, "", map[string]any{"tree": "cloud"}, callKey{tzctx.TransportHTTP, "read_documentation", "docs:cloud", "ok"}},
	{http.MethodPost, "", map[string]any{"page": "/cloud/reference/http/", "limit": 500}, callKey{tzctx.TransportHTTP, "read_documentation", "docs:cloud:page:reference/http", "ok"}},
	{http.MethodGet, "tree=tzdocs&part=outline", nil, callKey{tzctx.TransportHTTP, "read_documentation", "docs:tzdocs:outline", "ok"}},
	{http.MethodPost, "", map[string]any{"page": "/cloud/no-such-page/"}, callKey{tzctx.TransportHTTP, "read_documentation", "docs:cloud:page", "context_not_found"}},
	{http.MethodPost, "", map[string]any{"tree": "cloud", "query": privateWords}, callKey{tzctx.TransportHTTP, "read_documentation", "docs:cloud:search", "ok"}},
}

// do makes the call and reports whether an answer came back whole, with
// the status its record must hold.
func (c httpCall) do(base string) bool {
	url := base + "/api/v1/actions/read_documentation"
	var req *http.Request
	var err error
	if c.method == http.MethodGet {
		req, err = http.NewRequest(http.MethodGet, url+"?"+c.query, nil)
	} else {
		b, _ := json.Marshal(c.body)
		req, err = http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	}
	if err != nil {
		return false
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	want := http.StatusOK
	if c.want.code != tzctx.OK {
		want = http.StatusNotFound
	}
	return err == nil && resp.StatusCode == want && json.Valid(raw)
}

// killableStdio starts `tzctx --data dataDir mcp` as an MCP client's
// child process and returns the initialized client and the process.
func killableStdio(t *testing.T, bin, dataDir string, env []string) (*client.Client, func() *exec.Cmd) {
	t.Helper()
	var mu sync.Mutex
	var child *exec.Cmd
	tr := transport.NewStdioWithOptions(bin, env, []string{"--data", dataDir, "mcp"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			c := exec.CommandContext(ctx, command, args...)
			c.Env = append(os.Environ(), env...)
			mu.Lock()
			child = c
			mu.Unlock()
			return c, nil
		}))
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := initializeMCP(c, "tzctx-test"); err != nil {
		t.Fatalf("initialize tzctx mcp: %v", err)
	}
	return c, func() *exec.Cmd { mu.Lock(); defer mu.Unlock(); return child }
}

// mcpLoadCalls are the tools/call requests of the load, with the records
// they make.
var mcpLoadCalls = []struct {
	tool string
	args map[string]any
	want callKey
}{
	{"read_documentation", map[string]any{"tree": "cloud"}, callKey{tzctx.TransportMCPStdio, "read_documentation", "docs:cloud", "ok"}},
	{"read_documentation", map[string]any{"page": "/cloud/no-such-page/"}, callKey{tzctx.TransportMCPStdio, "read_documentation", "docs:cloud:page", "context_not_found"}},
	{"list_context", map[string]any{}, callKey{tzctx.TransportMCPStdio, "list_context", "catalog", "ok"}},
}

// startServeProc starts `tzctx serve` on a free port and returns it with
// its base URL.
func startServeProc(t *testing.T, bin, dataDir, cfg string, env []string) (*proc, string) {
	t.Helper()
	srv := startProc(t, bin, env, "--data", dataDir, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
	var base string
	if !waitFor(60*time.Second, func() bool {
		if m := servingRE.FindStringSubmatch(srv.stderr.String()); m != nil {
			base = "http://" + m[1]
		}
		return base != ""
	}) {
		t.Fatalf("the server did not start:\n%s", srv.stderr.String())
	}
	return srv, base
}

// TestRecordsSurviveSIGKILL: a server and a stdio MCP process write
// records into one data directory at once; the server is killed with
// SIGKILL under load and the MCP process is stopped. Every call either
// answered is listed by tzctx records, with its transport, subject and
// code, the data directory still opens, and the next server records
// beside the dead one's files.
func TestRecordsSurviveSIGKILL(t *testing.T) {
	tier.Long(t, "kills a tzctx serve child process under load")
	bin := buildBinary(t)
	work := t.TempDir()
	dataDir := filepath.Join(work, "data")
	env := []string{"TZCTX_DATA="}
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "K", "--activate")
	cfg := filepath.Join(work, "serve.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "1h"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, dataDir, cfg, env)
	mc, mcpChild := killableStdio(t, bin, dataDir, env)

	var answered callTally
	stop := make(chan struct{})
	var wg sync.WaitGroup
	const httpWorkers = 4
	for w := range httpWorkers {
		wg.Go(func() {
			for i := w; ; i++ {
				c := killLoadCalls[i%len(killLoadCalls)]
				if !c.do(base) {
					return // the server is gone
				}
				answered.add(c.want)
			}
		})
	}
	mcpCalls := func(n int) {
		for i := range n {
			c := mcpLoadCalls[i%len(mcpLoadCalls)]
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = c.tool, c.args
			res, err := mc.CallTool(context.Background(), req)
			if err != nil {
				t.Errorf("tools/call %s: %v", c.tool, err)
				return
			}
			if res.IsError != (c.want.code != tzctx.OK) {
				t.Errorf("tools/call %s %v: isError %v, want a %s answer", c.tool, c.args, res.IsError, c.want.code)
			}
			answered.add(c.want)
		}
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				mcpCalls(3)
			}
		}
	})
	if !waitFor(30*time.Second, func() bool {
		return answered.total(tzctx.TransportHTTP) >= 300 && answered.total(tzctx.TransportMCPStdio) >= 30
	}) {
		t.Fatalf("the load did not get going: %d HTTP and %d MCP answers\nserver stderr:\n%s", answered.total(tzctx.TransportHTTP), answered.total(tzctx.TransportMCPStdio), srv.stderr.String())
	}

	// SIGKILL the server with calls in flight.
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := srv.wait(t, 10*time.Second); !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the server ended by %v, not by SIGKILL", err)
	}
	close(stop)
	wg.Wait()
	// The MCP process goes on recording after its neighbour died, and then
	// stops as a client ends a session: its stdin closes.
	mcpCalls(6)
	if err := mc.Close(); err != nil {
		t.Errorf("the MCP process did not stop cleanly: %v", err)
	}
	if st := mcpChild().ProcessState; st == nil || !st.Success() {
		t.Errorf("the MCP process ended with %v, want status 0", st)
	}
	httpN, mcpN := answered.total(tzctx.TransportHTTP), answered.total(tzctx.TransportMCPStdio)
	t.Logf("answered %d HTTP calls before the SIGKILL and %d MCP calls", httpN, mcpN)

	// Every answered call is recorded. An HTTP call in flight at the kill
	// may be recorded without its answer having arrived: at most one per
	// worker.
	listed := func() (map[callKey]int, []recordLine) {
		p := runProc(t, bin, env, "--data", dataDir, "records", "--json")
		if s := p.stderr.String(); s != "" {
			t.Logf("records' notes: %s", s)
		}
		recs := parseRecordsJSON(t, p.stdout.String())
		got := map[callKey]int{}
		for _, r := range recs {
			got[callKey{r.Transport, r.Action, r.Subject, r.Code}]++
		}
		return got, recs
	}
	got, recs := listed()
	gotHTTP := 0
	for k, n := range got {
		switch k.transport {
		case tzctx.TransportHTTP:
			gotHTTP += n
		case tzctx.TransportMCPStdio:
		default:
			t.Errorf("%d records of an unexpected call %+v", n, k)
		}
	}
	answered.mu.Lock()
	for k, n := range answered.n {
		if got[k] < n {
			t.Errorf("%d answered calls %+v, but %d records of them", n, k, got[k])
		}
		if k.transport == tzctx.TransportMCPStdio && got[k] != n {
			t.Errorf("%d MCP calls %+v answered, %d recorded; the MCP process had none in flight", n, k, got[k])
		}
	}
	answered.mu.Unlock()
	if gotHTTP < httpN || gotHTTP > httpN+httpWorkers {
		t.Errorf("%d HTTP records for %d answered calls and %d in flight at the kill", gotHTTP, httpN, httpWorkers)
	}
	for _, w := range strings.Fields(privateWords) {
		for _, n := range dirNames(t, filepath.Join(dataDir, "records")) {
			b, _ := os.ReadFile(filepath.Join(dataDir, "records", n))
			if strings.Contains(string(b), w) {
				t.Errorf("records file %s holds the query word %q", n, w)
			}
		}
	}
	// Records from both processes are merged in time order.
	for i := 1; i < len(recs); i++ {
		if recs[i].Time.Before(recs[i-1].Time) {
			t.Fatalf("record %d is older than the one before it", i)
		}
	}

	// The data directory still opens, and the next server answers and
	// records beside the killed one's segment.
	rows := parseVersions(t, runProc(t, bin, env, "--data", dataDir, "versions").stdout.String())
	if len(rows) != 1 || rows[0].name != "K" || !rows[0].active || rows[0].state != "ok" {
		t.Fatalf("versions after the kill: %+v, want K alone, active and ok", rows)
	}
	segsBefore := len(dirNames(t, filepath.Join(dataDir, "records")))
	srv2, base2 := startServeProc(t, bin, dataDir, cfg, env)
	next := killLoadCalls[0]
	if !next.do(base2) {
		t.Fatal("the next server did not answer")
	}
	if err := srv2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv2.wait(t, 15*time.Second); err != nil {
		t.Errorf("the next server exited with %v on SIGTERM\nstderr:\n%s", err, srv2.stderr.String())
	}
	after, _ := listed()
	if after[next.want] != got[next.want]+1 {
		t.Errorf("records of %+v: %d after the next server's call, %d before", next.want, after[next.want], got[next.want])
	}
	if n := len(dirNames(t, filepath.Join(dataDir, "records"))); n != segsBefore+1 {
		t.Errorf("%d records files after the next server, %d before; want its own one more", n, segsBefore)
	}
}
