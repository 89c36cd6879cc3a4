package shed_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// TestCounterBoundsPerKeyAndInAll: a key past its bound gets ErrPerKey,
// any key past the total ErrTotal; a release counts once.
func TestCounterBoundsPerKeyAndInAll(t *testing.T) {
	c := shed.NewCounter(2, 3)
	a1, err := c.Take("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Take("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Take("a"); !errors.Is(err, shed.ErrPerKey) {
		t.Fatalf("a third of a: %v, want ErrPerKey", err)
	}
	if _, err := c.Take("b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Take("c"); !errors.Is(err, shed.ErrTotal) {
		t.Fatalf("past the total: %v, want ErrTotal", err)
	}
	a1()
	a1()
	if c.Len() != 2 {
		t.Fatalf("%d held after one release (twice), want 2", c.Len())
	}
	if _, err := c.Take("c"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
}

// TestGuardDetachGivesTheSlotBack: a request that becomes a long-lived
// stream calls Detach and holds no slot while it stays open, so another
// call is served with a bound of one.
func TestGuardDetachGivesTheSlotBack(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			if !shed.Detach(r.Context()) {
				t.Error("Detach found no slot to give back")
			}
			entered <- struct{}{}
			<-hold
		}
		_, _ = io.WriteString(w, "ok")
	})
	// One slot a caller: the stream's caller calls again once it has
	// detached, so Detach gives its share back too.
	g := &shed.Guard{Limiter: shed.NewLimiter(2, 0, 1)}
	srv := httptest.NewServer(g.Wrap(shed.Surface{Transport: "http"}, next))
	defer srv.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.Post(srv.URL+"/stream", "application/json", strings.NewReader("{}")); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	if n := g.Limiter.InFlight(); n != 0 {
		t.Errorf("%d slots held by a detached stream, want 0", n)
	}
	resp, err := http.Post(srv.URL+"/call", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a call while a detached stream is open: %d, want 200", resp.StatusCode)
	}
	close(hold)
	<-done
	if n := g.Limiter.InFlight(); n != 0 {
		t.Errorf("%d slots held once the stream ended, want 0", n)
	}
	if shed.Detach(context.Background()) {
		t.Error("Detach outside a guarded request reported a slot")
	}
}

// TestCounterKeepsRoomForCredentials: anonymous callers, from however
// many addresses, hold at most three quarters of the total; a caller with
// a credential still finds room, and a released anonymous holding makes
// room for another anonymous one.
func TestCounterKeepsRoomForCredentials(t *testing.T) {
	c := shed.NewCounter(1, 8)
	if got := c.AnonymousTotal(); got != 6 {
		t.Fatalf("AnonymousTotal of 8 = %d, want 6", got)
	}
	var releases []func()
	for i := range 6 {
		r, err := c.TakeAnonymous(fmt.Sprintf("address:10.0.0.%d", i))
		if err != nil {
			t.Fatalf("anonymous holding %d: %v", i, err)
		}
		releases = append(releases, r)
	}
	if _, err := c.TakeAnonymous("address:10.0.0.99"); !errors.Is(err, shed.ErrAnonymousTotal) {
		t.Fatalf("a 7th anonymous holding: %v, want ErrAnonymousTotal", err)
	}
	for _, k := range []string{"account:a", "account:b"} {
		if _, err := c.Take(k); err != nil {
			t.Fatalf("%s past the anonymous share: %v", k, err)
		}
	}
	if _, err := c.Take("account:c"); !errors.Is(err, shed.ErrTotal) {
		t.Fatalf("past the total: %v, want ErrTotal", err)
	}
	releases[0]()
	releases[0]()
	if _, err := c.TakeAnonymous("address:10.0.0.99"); err != nil {
		t.Fatalf("an anonymous holding once one was given back: %v", err)
	}
	if small := shed.NewCounter(1, 3); small.AnonymousTotal() != 3 {
		t.Errorf("AnonymousTotal of 3 = %d, want 3 (a quarter of 3 rounds down to none)", small.AnonymousTotal())
	}
}
