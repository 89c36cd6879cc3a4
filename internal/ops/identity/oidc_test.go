package identity

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/turnzerocloud/tzctx"
)

const (
	testIssuer   = "https://issuer.test"
	testAudience = "tzctx"
)

// testKey is a signing key and the key ID the JWKS names it by.
type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func rsaKey(t *testing.T, kid string) testKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.RS256, priv: k}
}

func ecKey(t *testing.T, kid string) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.ES256, priv: k}
}

// jwks is an issuer's JWKS endpoint on loopback: it serves the public
// halves of its keys, which a test may change, and counts its requests.
type jwks struct {
	srv      *httptest.Server
	mu       sync.Mutex
	keys     []testKey
	status   int
	requests atomic.Int64
}

func newJWKS(t *testing.T, keys ...testKey) *jwks {
	t.Helper()
	j := &jwks{keys: keys, status: http.StatusOK}
	j.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.requests.Add(1)
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.status != http.StatusOK {
			http.Error(w, "down", j.status)
			return
		}
		var set jose.JSONWebKeySet
		for _, k := range j.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(j.srv.Close)
	return j
}

// serve replaces the keys the endpoint serves.
func (j *jwks) serve(keys ...testKey) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.keys = keys
}

func (j *jwks) setStatus(code int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.status = code
}

// sign returns the compact JWT of claims signed by k.
func sign(t *testing.T, k testKey, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	return signWith(t, s, claims)
}

func signWith(t *testing.T, s jose.Signer, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// claims are good claims for the test issuer and audience, with over
// applied (a nil value removes a claim).
func claims(over map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss":            testIssuer,
		"aud":            testAudience,
		"sub":            "acme",
		"exp":            now.Add(time.Hour).Unix(),
		"iat":            now.Unix(),
		"nbf":            now.Add(-time.Minute).Unix(),
		"tzctx_profiles": []string{"blueprint"},
	}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func newResolver(t *testing.T, j *jwks, creds []Credential, mod func(*OIDCConfig)) *Resolver {
	t.Helper()
	oc := &OIDCConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: j.srv.URL + "/keys"}
	if mod != nil {
		mod(oc)
	}
	r, err := New(context.Background(), creds, oc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// refused checks that err is a *tzctx.Error of code whose detail says
// want and holds no part of the token.
func refused(t *testing.T, name string, id tzctx.Identity, err error, token string, code tzctx.Code, want string) {
	t.Helper()
	var te *tzctx.Error
	if !errors.As(err, &te) {
		t.Errorf("%s: resolved to %+v, %v; want a *tzctx.Error %s", name, id, err, code)
		return
	}
	if te.Code != code || !strings.Contains(te.Detail, want) {
		t.Errorf("%s: %s %q, want %s saying %q", name, te.Code, te.Detail, code, want)
	}
	for _, part := range strings.Split(token, ".") {
		if len(part) > 8 && strings.Contains(te.Detail, part) {
			t.Errorf("%s: the detail %q echoes the token", name, te.Detail)
		}
	}
}

func unsigned(header, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

func TestOIDCAcceptsAGoodToken(t *testing.T) {
	rk, ek := rsaKey(t, "rsa-1"), ecKey(t, "ec-1")
	j := newJWKS(t, rk, ek)
	r := newResolver(t, j, nil, nil)
	for _, k := range []testKey{rk, ek} {
		tok := sign(t, k, claims(map[string]any{"azp": "docs-agent"}))
		id, err := r.Resolve(context.Background(), tok)
		if err != nil {
			t.Fatalf("%s token: %v", k.alg, err)
		}
		want := tzctx.Identity{Credential: tzctx.CredentialPrefix(tok), Account: "acme", Application: "docs-agent", Profiles: []string{"blueprint"}}
		if !reflect.DeepEqual(id, want) {
			t.Errorf("%s token: identity %+v, want %+v", k.alg, id, want)
		}
	}
	if n := j.requests.Load(); n != 1 {
		t.Errorf("the JWKS was fetched %d times for two tokens of keys it lists, want once (cached)", n)
	}

	// client_id names the application where azp is absent; neither is "oidc".
	// No profiles claim is no profiles.
	tok := sign(t, rk, claims(map[string]any{"client_id": "ci-bot", "tzctx_profiles": nil}))
	if id, err := r.Resolve(context.Background(), tok); err != nil || id.Application != "ci-bot" || id.Profiles != nil || id.Admin {
		t.Errorf("client_id token: %+v, %v; want application ci-bot, no profiles, not admin", id, err)
	}
	tok = sign(t, rk, claims(nil))
	if id, err := r.Resolve(context.Background(), tok); err != nil || id.Application != "oidc" {
		t.Errorf("token without azp or client_id: %+v, %v; want application oidc", id, err)
	}
	// An array audience that holds ours is accepted.
	tok = sign(t, rk, claims(map[string]any{"aud": []string{"other", testAudience}}))
	if _, err := r.Resolve(context.Background(), tok); err != nil {
		t.Errorf("token with an audience array holding ours: %v", err)
	}
}

func TestOIDCCustomClaimNames(t *testing.T) {
	k := rsaKey(t, "k1")
	j := newJWKS(t, k)
	r := newResolver(t, j, nil, func(c *OIDCConfig) { c.AccountClaim, c.ProfilesClaim = "org", "groups" })
	tok := sign(t, k, claims(map[string]any{"org": "initech", "groups": []string{"blueprint", "tzdocs"}}))
	id, err := r.Resolve(context.Background(), tok)
	if err != nil || id.Account != "initech" || !reflect.DeepEqual(id.Profiles, []string{"blueprint", "tzdocs"}) {
		t.Errorf("custom claims: %+v, %v; want account initech, profiles blueprint and tzdocs", id, err)
	}
	// The default claims are not read where others are named.
	tok = sign(t, k, claims(map[string]any{"groups": nil}))
	id, err = r.Resolve(context.Background(), tok)
	refused(t, "no org claim", id, err, tok, tzctx.Unauthenticated, `no "org" claim`)
}

func TestOIDCRefusals(t *testing.T) {
	k, other := rsaKey(t, "k1"), rsaKey(t, "k2")
	j := newJWKS(t, k)
	r := newResolver(t, j, nil, nil)
	now := time.Now()

	good := sign(t, k, claims(nil))
	parts := strings.Split(good, ".")
	sig := []byte(parts[2])
	if sig[len(sig)/2] == 'A' {
		sig[len(sig)/2] = 'B'
	} else {
		sig[len(sig)/2] = 'A'
	}
	badSig := parts[0] + "." + parts[1] + "." + string(sig)
	forged, _ := json.Marshal(claims(map[string]any{"tzctx_profiles": []string{"blueprint", "tzdocs"}}))
	swappedClaims := parts[0] + "." + base64.RawURLEncoding.EncodeToString(forged) + "." + parts[2]

	// An HMAC token whose secret is the issuer's public key (the
	// classic confusion attack), and one with another secret.
	pub, err := x509.MarshalPKIXPublicKey(k.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	hs, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, token string
		want        string
	}{
		{"expired", sign(t, k, claims(map[string]any{"exp": now.Add(-time.Minute).Unix()})), "has expired; get a fresh token from the issuer"},
		{"no exp", sign(t, k, claims(map[string]any{"exp": nil})), "has no expiry (exp)"},
		{"nbf in the future", sign(t, k, claims(map[string]any{"nbf": now.Add(time.Hour).Unix()})), "is not valid yet"},
		{"wrong audience", sign(t, k, claims(map[string]any{"aud": "someone-else"})), `audience (aud) does not include "tzctx"`},
		{"no audience", sign(t, k, claims(map[string]any{"aud": nil})), `audience (aud) does not include "tzctx"`},
		{"wrong issuer", sign(t, k, claims(map[string]any{"iss": "https://evil.test"})), "was not issued by https://issuer.test"},
		{"unknown kid", sign(t, other, claims(nil)), "signed by an unknown key or altered"},
		{"known kid, other key", sign(t, testKey{kid: "k1", alg: jose.RS256, priv: other.priv}, claims(nil)), "signed by an unknown key or altered"},
		{"tampered signature", badSig, "signed by an unknown key or altered"},
		{"tampered claims", swappedClaims, "signed by an unknown key or altered"},
		{"alg none", unsigned(map[string]any{"alg": "none", "typ": "JWT"}, claims(nil)), "not signed with an algorithm tzctx accepts"},
		{"HS256 with the public key", signWith(t, hs, claims(nil)), "not signed with an algorithm tzctx accepts"},
		{"header not JSON", "bm90LWpzb24." + parts[1] + "." + parts[2], "header that is not base64url-encoded JSON"},
		{"missing account claim", sign(t, k, claims(map[string]any{"sub": nil})), `no "sub" claim naming the account`},
		{"empty account claim", sign(t, k, claims(map[string]any{"sub": ""})), `no "sub" claim naming the account`},
		{"account claim not a string", sign(t, k, claims(map[string]any{"sub": 42})), `no "sub" claim naming the account`},
		{"iat not a number", sign(t, k, claims(map[string]any{"iat": "yesterday"})), "registered claims (iss, sub, aud, exp, iat, nbf) is not of its type"},
		{"profiles a string", sign(t, k, claims(map[string]any{"tzctx_profiles": "blueprint"})), `"tzctx_profiles" claim that is not an array`},
		{"profiles of numbers", sign(t, k, claims(map[string]any{"tzctx_profiles": []any{"blueprint", 7}})), `"tzctx_profiles" claim that is not an array`},
		{"profiles an object", sign(t, k, claims(map[string]any{"tzctx_profiles": map[string]any{"blueprint": true}})), `"tzctx_profiles" claim that is not an array`},
	}
	for _, c := range cases {
		if !IsJWT(c.token) {
			t.Errorf("%s: the test token does not have the form of a JWT", c.name)
			continue
		}
		id, err := r.Resolve(context.Background(), c.token)
		refused(t, c.name, id, err, c.token, tzctx.Unauthenticated, c.want)
	}
	if _, err := r.Resolve(context.Background(), good); err != nil {
		t.Errorf("the untampered token: %v", err)
	}
	// Tokens that are no JWT, where no static credential names them.
	for _, tok := range []string{"tzctx_not-configured", "a.b", "a.b.c.d", "a.b!.c", "..x"} {
		id, err := r.Resolve(context.Background(), tok)
		refused(t, "non-JWT "+tok, id, err, tok, tzctx.Unauthenticated, "the bearer credential is not known")
	}
}

// refreshAtOnce lets the key cache fetch the JWKS again at once, for the
// length of the test.
func refreshAtOnce(t *testing.T) {
	old := minRefresh
	minRefresh = 0
	t.Cleanup(func() { minRefresh = old })
}

func TestOIDCKeyRotation(t *testing.T) {
	refreshAtOnce(t)
	oldKey, newKey := rsaKey(t, "2026-01"), ecKey(t, "2026-02")
	j := newJWKS(t, oldKey)
	r := newResolver(t, j, nil, nil)
	if _, err := r.Resolve(context.Background(), sign(t, oldKey, claims(nil))); err != nil {
		t.Fatalf("old key's token: %v", err)
	}
	if n := j.requests.Load(); n != 1 {
		t.Fatalf("%d JWKS requests after the first token, want 1", n)
	}
	j.serve(newKey)
	tok := sign(t, newKey, claims(map[string]any{"sub": "rotated"}))
	id, err := r.Resolve(context.Background(), tok)
	if err != nil || id.Account != "rotated" {
		t.Fatalf("the new key's token after rotation: %+v, %v (JWKS requests %d)", id, err, j.requests.Load())
	}
	if n := j.requests.Load(); n != 2 {
		t.Errorf("%d JWKS requests after a token of a new key ID, want 2 (fetched again on the unknown kid)", n)
	}
	if _, err := r.Resolve(context.Background(), tok); err != nil || j.requests.Load() != 2 {
		t.Errorf("the new key's token again: %v, %d JWKS requests; want it accepted from the cache", err, j.requests.Load())
	}
	// The retired key's tokens are refused once the issuer drops it: go-oidc
	// replaces its cache just after it hands out a fetch's keys, so the
	// refusal is awaited for a moment.
	old := sign(t, oldKey, claims(nil))
	deadline := time.Now().Add(2 * time.Second)
	for {
		id, err = r.Resolve(context.Background(), old)
		if err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	refused(t, "retired key", id, err, old, tzctx.Unauthenticated, "signed by an unknown key")
}

func TestOIDCIssuerKeysUnavailable(t *testing.T) {
	refreshAtOnce(t)
	k := rsaKey(t, "k1")
	j := newJWKS(t, k)
	r := newResolver(t, j, nil, nil)
	tok := sign(t, k, claims(nil))

	j.setStatus(http.StatusInternalServerError)
	id, err := r.Resolve(context.Background(), tok)
	refused(t, "JWKS answering 500", id, err, tok, tzctx.ContextUnavailable, "the identity provider's keys could not be fetched; try again later")

	j.setStatus(http.StatusOK)
	if _, err := r.Resolve(context.Background(), tok); err != nil {
		t.Fatalf("once the JWKS answers again: %v", err)
	}
	// Once the issuer is down, known keys still verify from the cache; a
	// token of a key ID not cached cannot be checked.
	j.srv.Close()
	if _, err := r.Resolve(context.Background(), tok); err != nil {
		t.Errorf("cached key with the issuer down: %v", err)
	}
	fresh := sign(t, rsaKey(t, "k9"), claims(nil))
	id, err = r.Resolve(context.Background(), fresh)
	refused(t, "JWKS down", id, err, fresh, tzctx.ContextUnavailable, "could not be fetched")
}

func TestStaticBesideOIDC(t *testing.T) {
	k := rsaKey(t, "k1")
	j := newJWKS(t, k)
	// A configured token whose form is a JWT's is still found by its digest.
	jwtShaped := "abc.def.ghi"
	creds := []Credential{
		{TokenSHA256: SHA256("tzctx_static"), Account: "ops", Application: "cli", Profiles: []string{"blueprint"}, Admin: true},
		{TokenSHA256: SHA256(jwtShaped), Account: "legacy", Application: "old"},
	}
	r := newResolver(t, j, creds, nil)
	id, err := r.Resolve(context.Background(), "tzctx_static")
	if err != nil || id.Account != "ops" || !id.Admin || id.Credential != SHA256("tzctx_static")[:12] {
		t.Errorf("static token beside OIDC: %+v, %v", id, err)
	}
	if id, err := r.Resolve(context.Background(), jwtShaped); err != nil || id.Account != "legacy" {
		t.Errorf("JWT-shaped static token: %+v, %v", id, err)
	}
	if id, err := r.Resolve(context.Background(), sign(t, k, claims(nil))); err != nil || id.Account != "acme" {
		t.Errorf("JWT beside static tokens: %+v, %v", id, err)
	}
	if id, err := r.Resolve(context.Background(), ""); err != nil || !id.Anonymous() {
		t.Errorf("no credential: %+v, %v; want anonymous", id, err)
	}
	if n := j.requests.Load(); n != 1 {
		t.Errorf("%d JWKS requests, want 1: static tokens fetch nothing", n)
	}
}

// TestNoOIDCMeansJWTsAreUnknown: without an oidc member a JWT is an
// unknown static token, and nothing is fetched.
func TestNoOIDCMeansJWTsAreUnknown(t *testing.T) {
	k := rsaKey(t, "k1")
	j := newJWKS(t, k)
	r, err := New(context.Background(), []Credential{{TokenSHA256: SHA256("tok"), Account: "a"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := sign(t, k, claims(nil))
	id, err := r.Resolve(context.Background(), tok)
	refused(t, "JWT without oidc", id, err, tok, tzctx.Unauthenticated, "the bearer credential is not known")
	if id, err := r.Resolve(context.Background(), "tok"); err != nil || id.Account != "a" {
		t.Errorf("static token: %+v, %v", id, err)
	}
	if n := j.requests.Load(); n != 0 {
		t.Errorf("%d JWKS requests without oidc, want 0", n)
	}
}

func TestNewChecksOIDC(t *testing.T) {
	for _, c := range []struct {
		name string
		oc   OIDCConfig
		want string
	}{
		{"no issuer", OIDCConfig{Audience: "a", JWKSURL: "https://i.test/keys"}, "oidc.issuer:"},
		{"relative jwks", OIDCConfig{Issuer: "https://i.test", Audience: "a", JWKSURL: "/keys"}, "oidc.jwks_url:"},
		{"no audience", OIDCConfig{Issuer: "https://i.test", JWKSURL: "https://i.test/keys"}, "oidc.audience:"},
		{"bad resource", OIDCConfig{Issuer: "https://i.test", Audience: "a", JWKSURL: "https://i.test/keys", Resource: "docs.example.com/mcp"}, "oidc.resource:"},
	} {
		if _, err := New(context.Background(), nil, &c.oc); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: New = %v, want an error starting %q", c.name, err, c.want)
		}
	}
	oc := OIDCConfig{Issuer: "https://i.test", Audience: "a", JWKSURL: "https://i.test/keys"}
	if err := oc.Check(); err != nil || oc.AccountClaim != "sub" || oc.ProfilesClaim != "tzctx_profiles" {
		t.Errorf("Check = %v, claims %q %q; want the defaults sub and tzctx_profiles", err, oc.AccountClaim, oc.ProfilesClaim)
	}
}

// TestOIDCForgedKeyIDsFetchAtMostOnce: tokens naming key IDs the issuer
// never published, and tokens of a known key ID with a forged signature,
// fetch the JWKS at most once a minRefresh, so forging tokens cannot make
// the server call the issuer on every request; each is still refused.
func TestOIDCForgedKeyIDsFetchAtMostOnce(t *testing.T) {
	key := rsaKey(t, "real")
	j := newJWKS(t, key)
	r := newResolver(t, j, nil, nil)
	if _, err := r.Resolve(context.Background(), sign(t, key, claims(nil))); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		forged := sign(t, rsaKey(t, fmt.Sprintf("made-up-%d", i)), claims(nil))
		id, err := r.Resolve(context.Background(), forged)
		refused(t, "made-up key ID", id, err, forged, tzctx.Unauthenticated, "signed by an unknown key")
		stranger := rsaKey(t, "real")
		tampered := sign(t, stranger, claims(nil))
		id, err = r.Resolve(context.Background(), tampered)
		refused(t, "forged signature of a known key ID", id, err, tampered, tzctx.Unauthenticated, "signed by an unknown key")
	}
	if n := j.requests.Load(); n > 2 {
		t.Errorf("%d JWKS requests for 16 forged tokens, want the first and at most one more", n)
	}
}

// TestOIDCClaimNamesAreCaseSensitive: iss, aud, exp and nbf are read by
// their exact names (RFC 7519 section 4), not by encoding/json's
// case-insensitive match of struct members, which let go-oidc pass a
// token whose claims differ only in case (found by FuzzJWT).
func TestOIDCClaimNamesAreCaseSensitive(t *testing.T) {
	k := ecKey(t, "ec-1")
	r := newResolver(t, newJWKS(t, k), nil, nil)
	future := time.Now().Add(time.Hour).Unix()
	tests := []struct {
		name string
		over map[string]any
		want string
	}{
		{"ISS for iss", map[string]any{"iss": nil, "ISS": testIssuer}, "was not issued by"},
		{"Aud for aud", map[string]any{"aud": nil, "Aud": testAudience}, "is not meant for this server"},
		{"Aud beside another aud", map[string]any{"aud": "other", "Aud": testAudience}, "is not meant for this server"},
		{"eXp for exp", map[string]any{"exp": nil, "eXp": future}, "has no expiry"},
		{"NBF beside a future nbf", map[string]any{"nbf": time.Now().Add(time.Hour).Unix(), "NBF": 1}, "is not valid yet"},
	}
	for _, tt := range tests {
		tok := sign(t, k, claims(tt.over))
		id, err := r.Resolve(context.Background(), tok)
		refused(t, tt.name, id, err, tok, tzctx.Unauthenticated, tt.want)
	}
	// The claims as signed still pass.
	if _, err := r.Resolve(context.Background(), sign(t, k, claims(map[string]any{"Aud": "other", "ISS": "x"}))); err != nil {
		t.Errorf("extra claims differing in case from registered ones: %v", err)
	}
}
