package mcp_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/api"
)

// TestOneBodyBound: MCP's own body bound applies where MCP is served
// alone; behind the server's chain, the chain's bound is the request's
// one bound, and MCP adds none of its own (issue 34). The fixture's MCP
// bound is 64 KiB.
func TestOneBodyBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	log := slog.New(slog.DiscardHandler)
	post := func(t *testing.T, h http.Handler, size int) (int, string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", size) + `"}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	const own = 64 << 10
	t.Run("alone", func(t *testing.T) {
		code, raw := post(t, f.h, own+1)
		if want := fmt.Sprintf("size bound of %d bytes", own); code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, want) {
			t.Errorf("a body over MCP's own bound, served alone = %d %.300s; want 413 naming %q", code, raw, want)
		}
	})
	t.Run("behind a wider chain", func(t *testing.T) {
		code, raw := post(t, api.Chain(f.h, log, 4*own), 2*own)
		if code == http.StatusRequestEntityTooLarge || strings.Contains(raw, "size bound") {
			t.Errorf("a body under the chain's bound of %d bytes = %d %.300s; want it read: MCP's own bound of %d bytes adds a second bound", 4*own, code, raw, own)
		}
	})
	t.Run("behind a narrower chain", func(t *testing.T) {
		const chain = 16 << 10
		code, raw := post(t, api.Chain(f.h, log, chain), chain+1)
		if want := fmt.Sprintf("size bound of %d bytes", chain); code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, want) {
			t.Errorf("a body over the chain's bound = %d %.300s; want 413 naming the chain's %q", code, raw, want)
		}
	})
}
