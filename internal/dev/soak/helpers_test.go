// Package soak_test holds the soak test and the access tests: they drive a
// real `tzctx serve` subprocess over HTTP and MCP streamable HTTP, so they
// see what a deployed server does (its goroutines, file descriptors and
// memory, its refusals byte for byte), and run beside the slower tests of
// cmd/tzctx.
package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// binPath is the tzctx binary the package's tests share, set by tzctxBin.
var binPath string

// TestMain silences slog's default logger, which mcp-go's client writes
// its reconnection notes to, and removes the built binary at the end.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	code := m.Run()
	testkit.RemoveBinary()
	os.Exit(code)
}

// tzctxBin returns cmd/tzctx built once for the package's tests
// (testkit.Binary, without the race detector: the server is the thing
// measured, the test process the one checked for races).
func tzctxBin(t testing.TB) string {
	t.Helper()
	binPath = testkit.Binary(t)
	return binPath
}

// cli runs `tzctx --data dataDir ARGS...` to its end and fails the test on
// an error.
func cli(t testing.TB, dataDir string, args ...string) string {
	t.Helper()
	out, err := cliErr(dataDir, args...)
	if err != nil {
		t.Fatalf("tzctx %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// cliErr runs `tzctx --data dataDir ARGS...` and returns its stdout, or an
// error holding its stderr.
func cliErr(dataDir string, args ...string) (string, error) {
	cmd := exec.Command(binPath, append([]string{"--data", dataDir}, args...)...)
	cmd.Env = append(os.Environ(), "TZCTX_DATA=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%v\n%s", err, errb.String())
	}
	return out.String(), nil
}

// server is a `tzctx serve` child process.
type server struct {
	cmd    *exec.Cmd
	base   string
	stderr testkit.SyncBuffer
	exited chan struct{}
}

var servingRE = regexp.MustCompile(`serving addr=(\S+:\d+)`)

// startServe starts `tzctx --data dataDir serve --config cfgFile --addr
// addr` and returns it once it listens; it is killed at the test's end.
func startServe(t testing.TB, dataDir, cfgFile, addr string) *server {
	t.Helper()
	s := &server{exited: make(chan struct{})}
	s.cmd = exec.Command(tzctxBin(t), "--data", dataDir, "serve", "--config", cfgFile, "--addr", addr)
	s.cmd.Env = append(os.Environ(), "TZCTX_DATA=")
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
	deadline := time.Now().Add(60 * time.Second)
	for s.base == "" {
		if m := servingRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = "http://" + m[1]
			break
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited before listening:\n%s", s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen within 60 s:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// stop sends SIGTERM and waits for the process to end.
func (s *server) stop(t testing.TB) {
	t.Helper()
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Errorf("serve did not stop within 20 s of SIGINT")
		_ = s.cmd.Process.Kill()
	}
}

// Tokens of the configured credentials the tests call as.
const (
	tokenPlain  = "tzctx_soak_plain"  // signed in, no profile
	tokenHolder = "tzctx_soak_holder" // holds the blueprint profile
	tokenAdmin  = "tzctx_soak_admin"  // admin, no profile
)

// writeConfig writes a serve configuration with the default trees
// (blueprint gated behind the blueprint profile), the tests' three
// credentials and the given watch interval, and returns its path.
func writeConfig(t testing.TB, watch string) string {
	t.Helper()
	cfg := map[string]any{
		"watch_interval": watch,
		"credentials": []map[string]any{
			{"token_sha256": identity.SHA256(tokenPlain), "account": "plain", "application": "soak"},
			{"token_sha256": identity.SHA256(tokenHolder), "account": "holder", "application": "soak", "profiles": []string{"blueprint"}},
			{"token_sha256": identity.SHA256(tokenAdmin), "account": "admin", "application": "soak", "admin": true},
		},
	}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var httpClient = &http.Client{
	Timeout:   30 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 64},
}

// call POSTs body to an action as the caller of token ("" for none) and
// returns the status and the raw body.
func call(base, token, action string, body any) (int, []byte, error) {
	if token == "" {
		return testkit.PostAction(httpClient, base, action, body)
	}
	return testkit.PostAction(httpClient, base, action, body, "Authorization", "Bearer "+token)
}

// callGET is call as a GET request, the body's members as query
// parameters.
func callGET(base, token, action string, body map[string]any) (int, []byte, error) {
	q := url.Values{}
	for k, v := range body {
		q.Set(k, fmt.Sprint(v))
	}
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/actions/"+action+"?"+q.Encode(), nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// answer holds the members of an answer or refusal the tests read.
type answer struct {
	Stamp      string `json:"stamp"`
	Offset     int    `json:"offset"`
	Total      int    `json:"total"`
	NextOffset *int   `json:"next_offset"`
	Text       string `json:"text"`
	Entries    []struct {
		ID string `json:"id"`
	} `json:"entries"`
	Error *struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

func decode(raw []byte) (answer, error) {
	var a answer
	err := json.Unmarshal(raw, &a)
	return a, err
}

// mustCall is call that must answer 200 with a JSON body.
func mustCall(t testing.TB, base, token, action string, body any) (answer, []byte) {
	t.Helper()
	st, raw, err := call(base, token, action, body)
	if err != nil {
		t.Fatalf("%s %v: %v", action, body, err)
	}
	a, err := decode(raw)
	if err != nil || st != http.StatusOK || a.Error != nil {
		t.Fatalf("%s %v: status %d: %s", action, body, st, raw)
	}
	return a, raw
}

// mcpSession initializes an MCP client of base's /mcp as the caller of
// token ("" for none), and closes it at the test's end.
func mcpSession(t testing.TB, base, token string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := newMCPSession(base, token, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newMCPSession(base, token string, opts ...transport.StreamableHTTPCOption) (*client.Client, error) {
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(base+"/mcp", opts...)
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-soak", Version: "1"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize %s/mcp: %w", base, err)
	}
	return c, nil
}

// toolCall calls a tool and returns the answer its structured content
// holds (the HTTP body), and the raw structured content.
func toolCall(ctx context.Context, c *client.Client, name string, args map[string]any) (answer, []byte, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return answer{}, nil, err
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return answer{}, nil, err
	}
	a, err := decode(raw)
	if err != nil {
		return answer{}, raw, err
	}
	if res.IsError != (a.Error != nil) {
		return a, raw, fmt.Errorf("tools/call %s: isError %v but structured content %s", name, res.IsError, raw)
	}
	return a, raw, nil
}

// metricsOf scrapes base's /metrics (as a loopback client, or with token)
// and returns the unlabelled samples by name.
func metricsOf(base, token string) (map[string]float64, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: status %d: %s", resp.StatusCode, b)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' || strings.Contains(line, "{") {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			out[name] = v
		}
	}
	return out, nil
}

// openFDs counts the entries of /proc/PID/fd.
func openFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// quantile is the q-quantile (nearest rank) of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

func sortedCopy(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}

// ksStatistic is the two-sample Kolmogorov–Smirnov statistic D: the
// largest distance between the two empirical distribution functions.
func ksStatistic(a, b []time.Duration) float64 {
	a, b = sortedCopy(a), sortedCopy(b)
	var i, j int
	d := 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// listening is the option that opens a session's listening GET stream,
// on which notifications arrive.
func listening() transport.StreamableHTTPCOption {
	//lint:ignore SA1019 the GET stream is what clients of 2025-11-25 listen on
	return transport.WithContinuousListening()
}

// stdioSession starts `tzctx --data dataDir mcp --config cfg` as the
// caller of token ("" for none) and initializes an MCP client of it,
// closed at the test's end.
func stdioSession(t testing.TB, dataDir, cfg, token string) *client.Client {
	t.Helper()
	env := []string{"TZCTX_DATA=", "TZCTX_TOKEN=" + token}
	c, err := client.NewStdioMCPClient(tzctxBin(t), env, "--data", dataDir, "mcp", "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-soak", Version: "1"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize tzctx mcp: %v", err)
	}
	return c
}
