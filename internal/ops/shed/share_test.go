package shed_test

import (
	"context"
	"errors"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

// TestLimiterKeepsCallersToTheirShare: a caller holds at most its share
// of the slots, refused ErrCallerShare past it while other callers take
// the rest; ErrFull where no slot is left; a slot given back is the
// caller's to take again; a share of every slot is no share.
func TestLimiterKeepsCallersToTheirShare(t *testing.T) {
	l := shed.NewLimiter(4, 0, 2)
	if !l.Shared() || l.PerCaller() != 2 || l.Max() != 4 {
		t.Fatalf("limiter of 4, 2 a caller: shared %v, per caller %d, max %d", l.Shared(), l.PerCaller(), l.Max())
	}
	ctx := context.Background()
	a1, err1 := l.AcquireFor(ctx, "address:10.0.0.1")
	_, err2 := l.AcquireFor(ctx, "address:10.0.0.1")
	if err1 != nil || err2 != nil {
		t.Fatalf("a caller's two calls of a share of 2: %v, %v", err1, err2)
	}
	if _, err := l.AcquireFor(ctx, "address:10.0.0.1"); !errors.Is(err, shed.ErrCallerShare) {
		t.Fatalf("a caller's third call: %v, want ErrCallerShare", err)
	}
	for i := range 2 {
		if _, err := l.AcquireFor(ctx, "credential:abc"); err != nil {
			t.Fatalf("another caller's call %d while the first holds its share: %v", i+1, err)
		}
	}
	if _, err := l.AcquireFor(ctx, "address:10.0.0.9"); !errors.Is(err, shed.ErrFull) {
		t.Fatalf("a call with every slot held: %v, want ErrFull", err)
	}
	if l.InFlight() != 4 {
		t.Fatalf("%d in flight, want 4", l.InFlight())
	}
	a1()
	a1() // a second release gives nothing back
	if l.InFlight() != 3 {
		t.Fatalf("%d in flight after one release, want 3", l.InFlight())
	}
	if _, err := l.AcquireFor(ctx, "address:10.0.0.1"); err != nil {
		t.Fatalf("the caller's call once one of its own ended: %v", err)
	}

	all := shed.NewLimiter(2, 0, 0)
	if all.Shared() || all.PerCaller() != 2 {
		t.Fatalf("limiter of 2 with no share: shared %v, per caller %d", all.Shared(), all.PerCaller())
	}
	for i := range 2 {
		if _, err := all.AcquireFor(ctx, "one"); err != nil {
			t.Fatalf("call %d of one caller with no share: %v", i+1, err)
		}
	}
	if _, err := all.AcquireFor(ctx, "one"); !errors.Is(err, shed.ErrFull) {
		t.Fatalf("a third call with no share of its own: %v, want ErrFull", err)
	}
	if got := shed.DefaultPerCaller(64); got != 16 {
		t.Errorf("DefaultPerCaller(64) = %d, want 16", got)
	}
	if got := shed.DefaultPerCaller(3); got != 1 {
		t.Errorf("DefaultPerCaller(3) = %d, want 1", got)
	}
}

// TestAddressKey: an IPv4 address is a caller of its own, an IPv6
// address is its /64's.
func TestAddressKey(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:5555":           "192.0.2.7",
		"[2001:db8:1:2::7]:443":    "2001:db8:1:2::/64",
		"[2001:db8:1:2:ff::1]:443": "2001:db8:1:2::/64",
		"not an address":           "not an address",
		// Moved from mcp's sessions test, whose copy of AddressKey
		// went: an IPv4-mapped IPv6 address is an IPv4 caller.
		"127.0.0.2:5000":                 "127.0.0.2",
		"[2001:db8:1:2:3:4:5:6]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:ffff:0:1]:1": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.1]:80":          "::ffff:192.0.2.1",
	} {
		if got := shed.AddressKey(remote); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", remote, got, want)
		}
	}
}
