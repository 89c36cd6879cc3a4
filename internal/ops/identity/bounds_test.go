package identity

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestOIDCKeylessTokenTriesBoundedKeys: a token whose header names no key
// ID is tried against at most max_keys_tried keys of the issuer's JWKS.
// With 3,000 keys published it is refused, saying why and what to do,
// without trying them all; with a few keys it is tried against each and
// accepted; a token naming its key ID is accepted among 3,000. The CPU
// time of one refused request is logged (go test -v), never asserted.
func TestOIDCKeylessTokenTriesBoundedKeys(t *testing.T) {
	keys := make([]testKey, 3000)
	for i := range keys {
		keys[i] = ecKey(t, fmt.Sprintf("k%04d", i))
	}
	j := newJWKS(t, keys...)
	r := newResolver(t, j, nil, nil)
	last := keys[len(keys)-1]
	keyless := sign(t, testKey{alg: last.alg, priv: last.priv}, claims(nil))
	if _, err := r.Resolve(context.Background(), sign(t, last, claims(nil))); err != nil {
		t.Fatalf("a token naming its key ID among 3,000 keys: %v", err)
	}
	const n = 5
	start := cpuTime(t)
	for range n {
		id, err := r.Resolve(context.Background(), keyless)
		refused(t, "a token without kid among 3,000 keys", id, err, keyless, tzctx.Unauthenticated,
			"names no key ID (kid), and 3000 of the issuer's keys could have signed it, more than the 8 a token is tried against (oidc.max_keys_tried)")
	}
	t.Logf("CPU per request of a token without kid, 3,000 keys in the JWKS: %v", (cpuTime(t)-start)/n)

	// A few keys: each is tried.
	few := newResolver(t, newJWKS(t, keys[:5]...), nil, nil)
	if id, err := few.Resolve(context.Background(), sign(t, testKey{alg: keys[4].alg, priv: keys[4].priv}, claims(nil))); err != nil || id.Account != "acme" {
		t.Errorf("a token without kid among 5 keys: %+v, %v; want it accepted", id, err)
	}
}

// TestOIDCMaxKeysTriedConfigured: max_keys_tried is the bound: with 20, a
// token without kid among 20 keys is accepted, among 21 refused.
func TestOIDCMaxKeysTriedConfigured(t *testing.T) {
	keys := make([]testKey, 21)
	for i := range keys {
		keys[i] = ecKey(t, fmt.Sprintf("k%02d", i))
	}
	tok := sign(t, testKey{alg: keys[19].alg, priv: keys[19].priv}, claims(nil))
	wide := newResolver(t, newJWKS(t, keys[:20]...), nil, func(oc *OIDCConfig) { oc.MaxKeysTried = 20 })
	if _, err := wide.Resolve(context.Background(), tok); err != nil {
		t.Errorf("a token without kid among 20 keys with max_keys_tried 20: %v; want it accepted", err)
	}
	over := newResolver(t, newJWKS(t, keys...), nil, func(oc *OIDCConfig) { oc.MaxKeysTried = 20 })
	id, err := over.Resolve(context.Background(), tok)
	refused(t, "a token without kid among 21 keys with max_keys_tried 20", id, err, tok, tzctx.Unauthenticated, "more than the 20 a token is tried against")
}

// TestOIDCConfigBounds: jwks_min_refresh and max_keys_tried are checked,
// naming the member, and default where left out.
func TestOIDCConfigBounds(t *testing.T) {
	base := OIDCConfig{Issuer: "https://i.test", Audience: "a", JWKSURL: "https://i.test/keys"}
	for _, c := range []struct {
		mod  func(*OIDCConfig)
		want string
	}{
		{func(o *OIDCConfig) { o.JWKSMinRefresh = "soon" }, `jwks_min_refresh: "soon" is not a positive duration`},
		{func(o *OIDCConfig) { o.JWKSMinRefresh = "0s" }, `jwks_min_refresh: "0s" is not a positive duration`},
		{func(o *OIDCConfig) { o.MaxKeysTried = -1 }, "max_keys_tried: -1 is negative"},
	} {
		oc := base
		c.mod(&oc)
		if err := oc.Check(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Check = %v, want an error starting %q", err, c.want)
		}
	}
	oc := base
	if err := oc.Check(); err != nil || oc.MaxKeysTried != DefaultMaxKeysTried {
		t.Errorf("Check = %v, max_keys_tried %d; want the default %d", err, oc.MaxKeysTried, DefaultMaxKeysTried)
	}
}

// TestOIDCFailedFetchIsNotARefusal: after the issuer's keys were fetched
// once, a token naming a key ID not cached, while the JWKS answers 500,
// is context_unavailable on every resolution within the least time between
// fetches, never "not signed by any of the issuer's keys": the
// issuer may publish that key.
func TestOIDCFailedFetchIsNotARefusal(t *testing.T) {
	k1, k2 := rsaKey(t, "k1"), rsaKey(t, "k2")
	j := newJWKS(t, k1)
	old := minRefresh
	minRefresh = 50 * time.Millisecond
	t.Cleanup(func() { minRefresh = old })
	r := newResolver(t, j, nil, nil)
	if _, err := r.Resolve(context.Background(), sign(t, k1, claims(nil))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	j.setStatus(http.StatusInternalServerError)
	tok := sign(t, k2, claims(nil))
	for i := range 3 {
		id, err := r.Resolve(context.Background(), tok)
		refused(t, fmt.Sprintf("resolution %d of a new key's token with the JWKS at 500", i+1), id, err, tok, tzctx.ContextUnavailable, "could not be fetched")
	}
	// The cached key still verifies.
	if _, err := r.Resolve(context.Background(), sign(t, k1, claims(nil))); err != nil {
		t.Errorf("a cached key's token while the JWKS answers 500: %v", err)
	}
}

// TestOIDCNamesBounded: an account or application name a token gives
// beyond the bound of a metric label is cut to that bound, valid UTF-8, two long names
// with one start kept apart; a short one is kept whole.
func TestOIDCNamesBounded(t *testing.T) {
	k := rsaKey(t, "k1")
	r := newResolver(t, newJWKS(t, k), nil, nil)
	long := strings.Repeat("é", 25005) + "x"
	other := strings.Repeat("é", 25005) + "y"
	id1, err1 := r.Resolve(context.Background(), sign(t, k, claims(map[string]any{"sub": long, "azp": long})))
	id2, err2 := r.Resolve(context.Background(), sign(t, k, claims(map[string]any{"sub": other})))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for _, s := range []string{id1.Account, id1.Application, id2.Account} {
		if len(s) > metering.MaxLabelBytes || !utf8.ValidString(s) || !strings.HasPrefix(s, "éé") {
			t.Errorf("bounded name %.80q (%d bytes): want valid UTF-8 of at most %d bytes keeping the start", s, len(s), metering.MaxLabelBytes)
		}
	}
	if id1.Account == id2.Account {
		t.Errorf("two long accounts with one start both became %q", id1.Account)
	}
	if id, err := r.Resolve(context.Background(), sign(t, k, claims(map[string]any{"sub": "short-account"}))); err != nil || id.Account != "short-account" {
		t.Errorf("a short account: %+v, %v; want it whole", id, err)
	}
}
