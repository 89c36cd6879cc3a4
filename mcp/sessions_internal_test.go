package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSessionLogHandlerHidesIDs: mcp-go's lines that name a session name
// it by its hash prefix alone.
func TestSessionLogHandlerHidesIDs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(sessionLogHandler{slog.NewTextHandler(&buf, nil)})
	const id = "mcp-session-0123456789abcdef0123456789abcdef"
	log.Info("Sweeping expired session", "session", id)
	log.With("component", "x").Warn("failed to terminate session during CloseSessions", "sessionID", id, "err", "boom")
	if strings.Contains(buf.String(), id) || strings.Count(buf.String(), "session=") != 1 || !strings.Contains(buf.String(), "sessionID=") || !strings.Contains(buf.String(), "component=x") {
		t.Errorf("log holds the ID or lost its attributes:\n%s", buf.String())
	}
}

func TestInitializeWriterFailed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		body   string
		want   bool
	}{
		{200, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`, false},
		{200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`, true},
		{200, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602}}\n\n", true},
		{200, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", false},
		{400, `not json`, true},
		{200, `not json`, false},
	} {
		rec := httptest.NewRecorder()
		w := &initializeWriter{ResponseWriter: rec}
		if c.status != 200 {
			w.WriteHeader(c.status)
		}
		_, _ = w.Write([]byte(c.body))
		if got := w.failed(); got != c.want {
			t.Errorf("%d %q: failed = %v, want %v", c.status, c.body, got, c.want)
		}
	}
}

// TestResourceMetadataNamesNoUnvouchedHost: with a metadata path (no
// oidc.resource), the challenge names the request's Host only where a
// loopback connection's Host guard or a loopback name vouches for it.
func TestResourceMetadataNamesNoUnvouchedHost(t *testing.T) {
	t.Parallel()
	req := func(remote, host string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil).WithContext(context.Background())
		r.RemoteAddr, r.Host = remote, host
		return r
	}
	path := &HTTPHandler{opts: HTTPOptions{ResourceMetadata: "/.well-known/oauth-protected-resource/mcp"}}
	guarded := &HTTPHandler{opts: HTTPOptions{ResourceMetadata: "/.well-known/oauth-protected-resource/mcp", HostChecked: true}}
	abs := &HTTPHandler{opts: HTTPOptions{ResourceMetadata: "https://docs.example.com/.well-known/oauth-protected-resource/mcp"}}
	for _, c := range []struct {
		h            *HTTPHandler
		remote, host string
		want         string
	}{
		{path, "127.0.0.1:5", "localhost:8080", "http://localhost:8080/.well-known/oauth-protected-resource/mcp"},
		{path, "127.0.0.1:5", "evil.example", ""},
		{guarded, "127.0.0.1:5", "docs.example.com", "http://docs.example.com/.well-known/oauth-protected-resource/mcp"},
		{guarded, "203.0.113.5:5", "evil.example", ""},
		{path, "203.0.113.5:5", "localhost", ""},
		{abs, "203.0.113.5:5", "evil.example", "https://docs.example.com/.well-known/oauth-protected-resource/mcp"},
	} {
		if got := c.h.resourceMetadata(req(c.remote, c.host)); got != c.want {
			t.Errorf("from %s with Host %s (HostChecked %v): %q, want %q", c.remote, c.host, c.h.opts.HostChecked, got, c.want)
		}
	}
}
