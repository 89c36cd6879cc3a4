package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// privateWords are a query's words no log line may hold.
const privateWords = "zanzibarquokka marmaladeheron"

// stdioClient starts `tzctx --data dataDir mcp ARGS...` as a child process
// with env and initializes an mcp-go client of it. It returns the client,
// the child's stderr so far (a func), and how long start-up to the
// initialize answer took.
func stdioClient(t testing.TB, bin, dataDir string, env []string, args ...string) (*client.Client, *testkit.SyncBuffer, time.Duration) {
	t.Helper()
	start := time.Now()
	c, stderr := stdioProcess(t, bin, append(os.Environ(), env...), append([]string{"--data", dataDir, "mcp"}, args...)...)
	if err := initializeMCP(c, "tzctx-test"); err != nil {
		t.Fatalf("initialize tzctx mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	return c, stderr, time.Since(start)
}

// initializeMCP initializes an MCP client, as the client named name, at
// the latest protocol version, waiting at most 30 s for the answer.
func initializeMCP(c *client.Client, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1"}
	_, err := c.Initialize(ctx, req)
	return err
}

// stdioProcess starts command ARGS with env (the whole environment) as
// an MCP server over stdio and returns an mcp-go client of it, not yet
// initialized, and the child's stderr so far. The client is closed at the
// test's end.
func stdioProcess(t testing.TB, command string, env []string, args ...string) (*client.Client, *testkit.SyncBuffer) {
	t.Helper()
	stderr := &testkit.SyncBuffer{}
	tr := transport.NewStdio(command, env, args...)
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tr.Stderr().Read(buf)
			_, _ = stderr.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = c.Close() })
	return c, stderr
}

// TestMCPStdioProcesses: two `tzctx mcp` processes and a server share one
// data directory; each answers through the dispatcher as its caller
// (--token, TZCTX_TOKEN), logs to stderr alone and never a query's words,
// and picks up an activation without restart: the clients, and a client
// of the server's /mcp, are told the lists changed, and read the new
// version.
func TestMCPStdioProcesses(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "mcp-a", "--activate")
	cfg := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "50ms", "credentials": [{"token_sha256": "`+identity.SHA256("tok-b")+`", "account": "bea", "application": "agent", "profiles": ["blueprint"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))

	anon, anonErr, took := stdioClient(t, bin, dataDir, nil, "--config", cfg)
	t.Logf("tzctx mcp: start to initialize answer %v", took)
	signed, signedErr, _ := stdioClient(t, bin, dataDir, []string{"TZCTX_TOKEN=tok-b"}, "--config", cfg)

	resources := func(c *client.Client) []string {
		res, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Resources {
			out = append(out, r.Name+"="+r.Title)
		}
		return out
	}
	has := func(list []string, prefix string) bool {
		for _, s := range list {
			if strings.HasPrefix(s, prefix) {
				return true
			}
		}
		return false
	}
	if has(resources(anon), "docs:blueprint=") || !has(resources(signed), "docs:blueprint=") {
		t.Errorf("the blueprint tree's entries are listed to the anonymous process or hidden from the signed-in one")
	}
	if r := mcpCall(t, anon, "read_documentation", map[string]any{"tree": "blueprint"}); !r.IsError {
		t.Error("the anonymous process read the gated tree")
	}
	if r := mcpCall(t, signed, "read_documentation", map[string]any{"tree": "blueprint"}); r.IsError {
		t.Errorf("the signed-in process was refused the tree its profile reads: %v", r.Content)
	}
	for _, c := range []*client.Client{anon, signed} {
		if r := mcpCall(t, c, "read_documentation", map[string]any{"query": privateWords}); r.IsError {
			t.Fatalf("search refused: %v", r.Content)
		}
	}

	// A client of the server's /mcp, on its listening stream.
	//lint:ignore SA1019 the GET stream is what clients of 2025-11-25 listen on
	viaHTTP := mcpSession(t, srv.base, "", transport.WithContinuousListening())
	time.Sleep(300 * time.Millisecond) // the listening stream opens after initialize

	notified := make(chan string, 16)
	for _, c := range []*client.Client{anon, signed, viaHTTP} {
		c.OnNotification(func(n mcpgo.JSONRPCNotification) { notified <- n.Method })
	}
	before := mcpCall(t, anon, "read_documentation", map[string]any{"page": "/cloud/reference/http/"}).RawStructuredContent
	mustCLI(t, dataDir, "ingest", changedSite(t), "--version", "mcp-b", "--activate")
	got := 0
	timeout := time.After(20 * time.Second)
	for got < 9 {
		select {
		case m := <-notified:
			if strings.HasSuffix(m, "/list_changed") {
				got++
			}
		case <-timeout:
			t.Fatalf("%d list_changed notifications within 20 s of the activation, want 9 (resources, prompts and tools, per client: two stdio processes, one /mcp session)", got)
		}
	}
	after := mcpCall(t, anon, "read_documentation", map[string]any{"page": "/cloud/reference/http/"}).RawStructuredContent
	if string(before) == string(after) || !strings.Contains(string(after), "THE") {
		t.Error("the stdio process still reads the old version after the activation")
	}
	if !waitFor(10*time.Second, func() bool { _, v, _ := health(srv.base); return v == "mcp-b" }) {
		t.Error("the server did not pick up the activation")
	}
	for name, b := range map[string]*testkit.SyncBuffer{"anonymous": anonErr, "signed-in": signedErr} {
		logs := b.String()
		for _, w := range strings.Fields(privateWords) {
			if strings.Contains(logs, w) {
				t.Errorf("the %s process's stderr holds the query word %q", name, w)
			}
		}
		if !strings.Contains(logs, "call action=") {
			t.Errorf("the %s process's stderr holds no call record:\n%s", name, logs)
		}
	}
	if logs := signedErr.String(); !strings.Contains(logs, "credential="+identity.SHA256("tok-b")[:12]) || !strings.Contains(logs, "account=bea") {
		t.Error("the signed-in process's records do not name its credential's hash prefix and account")
	}
}

// TestMCPRefusesAnUnknownToken: a --token the configuration lacks stops
// the command with a message, before it serves.
func TestMCPRefusesAnUnknownToken(t *testing.T) {
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "tok-a", "--activate")
	r := runCLI(t, dataDir, "mcp", "--token", "nope")
	if r.err == nil || !strings.Contains(r.err.Error(), "--token") || r.stdout != "" {
		t.Errorf("tzctx mcp --token nope: err %v, stdout %q; want a refusal and nothing on stdout", r.err, r.stdout)
	}
}

// TestTypeScriptClient runs the official TypeScript SDK client
// (mcp/testdata/ts/interop.mjs) against `tzctx mcp` over stdio and
// `tzctx serve` over /mcp, and checks what it saw: the tools, resources
// and templates listed, a search, a long page paged to its end with
// stamps and joined to the page's copy, a section read from a headings
// offset, a resource, a prompt and a refusal; and that no log line holds the
// search's words. It skips where node or the installed SDK is absent
// (make test installs the SDK where node is present), except under CI,
// where both must be there.
func TestTypeScriptClient(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	node, dir := testkit.TSSDK(t)
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "ts-a", "--activate")
	page := "/cloud/reference/http/"
	// The page's copy, as the HTTP API reads it.
	srvIn := startServer(t, dataDir, testConfig(time.Second))
	want, _ := readWhole(t, srvIn.base, map[string]any{"page": page, "limit": 16000})

	port := freePort(t)
	serveProc := startProc(t, bin, nil, "--data", dataDir, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if !waitFor(20*time.Second, func() bool { c, _, _ := health(base); return c == 200 }) {
		t.Fatalf("tzctx serve did not answer within 20 s:\n%s", serveProc.stderr.String())
	}
	query := "stamp offset " + privateWords
	run := func(args ...string) (map[string]any, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{"interop.mjs"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TZCTX_LONG_PAGE="+page, "TZCTX_QUERY="+query)
		var stdout, stderr testkit.SyncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node interop.mjs %s: %v\nstderr:\n%s", args[0], err, stderr.String())
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
			t.Fatalf("interop output is not JSON: %v\n%s", err, stdout.String())
		}
		return out, stderr.String()
	}
	httpOut, _ := run("http", base+"/mcp")
	stdioOut, stdioLogs := run("stdio", bin, "--data", dataDir, "mcp")
	for name, out := range map[string]map[string]any{"http": httpOut, "stdio": stdioOut} {
		pick := func(path string) any {
			var v any = out
			for _, k := range strings.Split(path, ".") {
				m, _ := v.(map[string]any)
				v = m[k]
			}
			return v
		}
		checks := map[string]any{
			"toolCount":                     float64(6), // the three reading actions, search_documentation and the library's two
			"templateCount":                 float64(3),
			"search.isError":                false,
			"longPage.sha256":               sha256Hex(want),
			"longPage.bytes":                float64(len(want)),
			"longPage.stampIsSha256":        true,
			"section.matchesPage":           true,
			"section.startsWithHeadingLine": true,
			"resource.sameAsPaged":          true,
			"resource.overviewListed":       true,
			"refusal.isError":               true,
			"refusal.code":                  "context_not_found",
			"refusal.textIsDetail":          true,
			"gated.code":                    "invalid_request",
			"violation.isError":             true,
			"violation.structured":          nil,
		}
		for path, wantV := range checks {
			if got := pick(path); fmt.Sprint(got) != fmt.Sprint(wantV) {
				t.Errorf("%s: %s = %v, want %v", name, path, got, wantV)
			}
		}
		if n, _ := pick("promptCount").(float64); n < 1 {
			t.Errorf("%s: no prompt listed, want the catalog's skills", name)
		} else if pick("prompt.messages") != float64(1) || pick("prompt.startsWithSkill") != true || pick("prompt.endsWithArgument") != true {
			t.Errorf("%s: prompt %v, want one message holding the skill and its argument", name, pick("prompt"))
		}
		if n, _ := pick("search.lines").(float64); n < 1 {
			t.Errorf("%s: the search answered no page", name)
		}
		if n, _ := pick("resourceCount").(float64); n < 10 {
			t.Errorf("%s: %v resources, want the catalog's", name, n)
		}
		if c, _ := pick("longPage.chunks").(float64); c < 2 {
			t.Errorf("%s: the long page read in %v chunks, want several", name, c)
		}
		t.Logf("%s: the TypeScript client saw %v tools, %v resources, %v templates, %v prompts; the long page reassembled to %v bytes in %v chunks",
			name, pick("toolCount"), pick("resourceCount"), pick("templateCount"), pick("promptCount"), pick("longPage.bytes"), pick("longPage.chunks"))
	}
	for name, logs := range map[string]string{"serve": serveProc.stderr.String(), "mcp": stdioLogs} {
		if !strings.Contains(logs, "call action=") {
			t.Errorf("%s logged no call record", name)
		}
		for _, w := range strings.Fields(privateWords) {
			if strings.Contains(logs, w) {
				t.Errorf("%s's stderr holds the query word %q", name, w)
			}
		}
	}
}

// BenchmarkStartup times a real tzctx serve from start to its first
// /healthz 200, and a real tzctx mcp from start to its initialize answer,
// over the sample site, best of three each (target: under 1 s). A target
// of speed is a benchmark's figure, never a test's verdict.
func BenchmarkStartup(b *testing.B) {
	b.Setenv("TZCTX_DATA", "")
	bin := buildBinary(b)
	dataDir := b.TempDir()
	runProc(b, bin, nil, "--data", dataDir, "ingest", testkit.SampleSite(b), "--version", "start-a", "--activate")
	best := func(times []time.Duration) time.Duration {
		m := times[0]
		for _, d := range times[1:] {
			m = min(m, d)
		}
		return m
	}
	for b.Loop() {
		var serveTimes, mcpTimes []time.Duration
		for range 3 {
			port := freePort(b)
			base := fmt.Sprintf("http://127.0.0.1:%d", port)
			start := time.Now()
			p := startProc(b, bin, nil, "--data", dataDir, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port))
			for {
				if c, _, _ := health(base); c == 200 {
					break
				}
				if time.Since(start) > time.Minute {
					b.Fatalf("tzctx serve did not answer within a minute:\n%s", p.stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			serveTimes = append(serveTimes, time.Since(start))
			_ = p.cmd.Process.Signal(os.Interrupt)
			_ = p.wait(b, time.Minute)

			c, _, took := stdioClient(b, bin, dataDir, nil)
			mcpTimes = append(mcpTimes, took)
			_ = c.Close()
		}
		s, m := best(serveTimes), best(mcpTimes)
		b.ReportMetric(float64(s.Milliseconds()), "serve-start-ms")
		b.ReportMetric(float64(m.Milliseconds()), "mcp-start-ms")
		fmt.Printf("startup, best of three: tzctx serve to /healthz 200 in %v, tzctx mcp to its initialize answer in %v (target < 1 s each)\n", s, m)
	}
}

// TestMCPSurvivesAClosedStderr: a client that closes the process's
// stderr (as mcp-go's does at the end of a session) leaves its log lines
// nowhere to go; the session still answers and ends with status 0, not
// killed by SIGPIPE at its first log line.
func TestMCPSurvivesAClosedStderr(t *testing.T) {
	t.Parallel() // a child process of its own on its own data directory
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--activate")
	cmd := exec.Command(bin, "--data", dataDir, "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close() // nothing reads the child's stderr from here on
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_documentation","arguments":{"tree":"cloud","query":"` + privateWords + `"}}}`,
	}
	for _, l := range lines {
		if _, err := io.WriteString(stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	answered := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			answered = true
			break
		}
	}
	stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if !answered {
		t.Errorf("the search was not answered; the process ended: %v", err)
	}
	if err != nil {
		t.Errorf("tzctx mcp with its stderr closed ended: %v, want status 0", err)
	}
}
