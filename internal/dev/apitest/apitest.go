// Package apitest holds what the tests of the server and of the command
// share to call a real server: HTTP API calls and their answers, an MCP
// client over /mcp, the stored form of call records, reads checked
// against the store, the test issuer's oidc member, and polling.
package apitest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/query"
)

// Answer is an HTTP API answer: a read's members, or its error.
type Answer struct {
	query.Answer
	Error *APIError `json:"error"`
}

type APIError struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

var HTTPClient = &http.Client{Timeout: 15 * time.Second}

// PostRaw POSTs body to an action and returns the status and raw body.
func PostRaw(base, action string, body any, header ...string) (int, []byte, error) {
	return testkit.PostAction(HTTPClient, base, action, body, header...)
}

// Post POSTs a read and decodes the answer; an error is a transport or
// decoding failure, not a refusal.
func Post(base, action string, body any, header ...string) (int, *Answer, []byte, error) {
	code, raw, err := PostRaw(base, action, body, header...)
	if err != nil {
		return code, nil, raw, err
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return code, nil, raw, fmt.Errorf("answer is not JSON (%v): %.200q", err, raw)
	}
	return code, &a, raw, nil
}

// MustRead POSTs a read_documentation request that must answer 200.
func MustRead(t *testing.T, base string, body map[string]any) *Answer {
	t.Helper()
	code, a, raw, err := Post(base, "read_documentation", body)
	if err != nil {
		t.Fatalf("read %v: %v", body, err)
	}
	if code != http.StatusOK || a.Error != nil {
		t.Fatalf("read %v: status %d: %s", body, code, raw)
	}
	return a
}

// Health GETs /healthz and returns the status code and the version named.
func Health(base string) (int, string, error) {
	resp, err := HTTPClient.Get(base + "/healthz")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var h struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return resp.StatusCode, "", err
	}
	return resp.StatusCode, h.Version, nil
}

// WaitFor polls cond every 20 ms until it holds or the timeout passes.
func WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// MCPSession initializes an MCP client of base's /mcp as the caller of
// token ("" for none), with any further transport options, and closes it
// at the test's end.
func MCPSession(t *testing.T, base, token string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(base+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), req); err != nil {
		t.Fatalf("initialize %s/mcp: %v", base, err)
	}
	return c
}

// MCPCall calls a tool and fails the test on a transport error.
func MCPCall(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// RecordLine is one call record in its stored form.
type RecordLine struct {
	Time        time.Time `json:"time"`
	Action      string    `json:"action"`
	Transport   string    `json:"transport"`
	Subject     string    `json:"subject"`
	Code        string    `json:"code"`
	Status      int       `json:"status"`
	Credential  string    `json:"credential"`
	Account     string    `json:"account"`
	Application string    `json:"application"`
	Version     string    `json:"version"`
	CodePoints  int       `json:"code_points"`
	US          float64   `json:"us"`
}

// ParseRecordsJSON parses records in their stored form, one a line,
// failing the test on a line that is not one JSON object with a time and
// action.
func ParseRecordsJSON(t *testing.T, out string) []RecordLine {
	t.Helper()
	var recs []RecordLine
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r RecordLine
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.Time.IsZero() || r.Action == "" {
			t.Fatalf("records --json line %q is not a record (%v)", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// RawPost POSTs body to url with a bearer token and returns the response
// and its body.
func RawPost(t *testing.T, url, token, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := HTTPClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// SHA256Hex is the hex SHA-256 of s, a stamp.
func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
