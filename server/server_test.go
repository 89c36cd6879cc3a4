package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestServerLifecycle: New over an empty data directory bootstraps the
// sample site; Serve on a loopback listener answers a read, /readyz and
// /healthz over real HTTP; cancelling Serve's context returns nil and
// closes the listener; Close then releases the store, which another
// process may open.
func TestServerLifecycle(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := New(ctx, testConfig(50*time.Millisecond), dataDir, slog.Default())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	a := mustRead(t, base, map[string]any{"tree": "cloud"})
	if a.Text == "" || a.Stamp == "" {
		t.Errorf("the sample's cloud index read empty: %+v", a.Answer)
	}
	code, version, err := health(base)
	if err != nil || code != http.StatusOK || version == "" {
		t.Errorf("/healthz = %d %q (%v), want 200 naming the bootstrapped version", code, version, err)
	}
	rc, h, raw := testkit.Send(t, http.MethodGet, base+"/readyz", nil)
	var ready struct{ Status, Version string }
	if rc != http.StatusOK || json.Unmarshal([]byte(raw), &ready) != nil || ready.Status != "ready" || ready.Version != version || h.Get("Cache-Control") != "no-store" {
		t.Errorf("/readyz = %d %s, want 200 ready naming %q", rc, raw, version)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v after its context ended, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return within 15 s of its context ending")
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		c.Close()
		t.Error("the listener still accepts connections after Serve returned")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The store is released: activating in it again works.
	activate(t, dataDir, version)
}

// TestServerRecheck: Recheck makes a server whose watch interval is an
// hour switch to a newly activated version at once, as SIGHUP does.
func TestServerRecheck(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "v1")
	s := startServer(t, dataDir, testConfig(time.Hour))
	testkit.IngestInto(t, dataDir, "v2", true, testkit.SiteTrees(t, changedSite(t))...)
	if _, v, _ := health(s.base); v != "v1" {
		t.Fatalf("served %q before the recheck, want v1 (the watch interval is an hour)", v)
	}
	s.srv.Recheck()
	if !waitFor(10*time.Second, func() bool { _, v, _ := health(s.base); return v == "v2" }) {
		t.Fatal("the server did not switch to v2 within 10 s of Recheck")
	}
}
