package identity_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

const (
	fuzzIssuer   = "https://issuer.fuzz.test"
	fuzzAudience = "tzctx"
)

var b64 = base64.RawURLEncoding

// ecVerifies reports whether the compact JWS token carries an ES256
// signature by pub over its signing input, checked with crypto/ecdsa
// alone (not go-jose): the oracle of "signed by the configured key".
func ecVerifies(pub *ecdsa.PublicKey, token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	raw, err := b64.DecodeString(parts[0])
	var h struct {
		Alg string `json:"alg"`
	}
	if err != nil || json.Unmarshal(raw, &h) != nil || h.Alg != "ES256" {
		return false
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return false
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	return ecdsa.Verify(pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
}

// claimsOK is the oracle of the claim checks: iss is the issuer, aud is
// or holds the audience, exp is a number after now, nbf (where present)
// a number no later than now plus leeway, sub a non-empty string and
// tzctx_profiles absent or an array of non-empty strings. strict reads
// the bounds for a token that must be accepted (clear of the clock).
func claimsOK(payload []byte, now time.Time, strict bool) bool {
	var c map[string]any
	d := json.NewDecoder(bytes.NewReader(payload))
	if d.Decode(&c) != nil || c == nil || d.More() {
		return false
	}
	if c["iss"] != fuzzIssuer {
		return false
	}
	switch a := c["aud"].(type) {
	case string:
		if a != fuzzAudience {
			return false
		}
	case []any:
		found := false
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				return false
			}
			found = found || s == fuzzAudience
		}
		if !found {
			return false
		}
	default:
		return false
	}
	margin := -2 * time.Second // accepted tokens may have expired during the call
	if strict {
		margin = time.Minute
	}
	exp, ok := c["exp"].(float64)
	if !ok || exp < float64(now.Add(margin).Unix()) || (strict && exp > 1e11) {
		return false
	}
	if nbf, present := c["nbf"]; present {
		n, ok := nbf.(float64)
		if !ok || n > float64(now.Add(5*time.Minute-margin).Unix()) {
			return false
		}
	}
	if iat, present := c["iat"]; present {
		n, ok := iat.(float64)
		if !ok && strict {
			return false
		}
		// An iat ahead of the clock by more than the leeway is refused, as
		// an nbf is (oidc.go: the issuer's clock or this one is wrong).
		if ok && n > float64(now.Add(5*time.Minute-margin).Unix()) {
			return false
		}
	}
	if s, _ := c["sub"].(string); s == "" {
		return false
	}
	switch ps := c["tzctx_profiles"].(type) {
	case nil:
		if _, present := c["tzctx_profiles"]; present && strict {
			return false
		}
	case []any:
		for _, p := range ps {
			if s, _ := p.(string); s == "" {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// plainHeader reports whether a JWS header is {"alg":"ES256"} with at
// most a typ and the key ID k1 beside it, canonically encoded: a header
// go-jose must accept.
func plainHeader(seg string) bool {
	raw, err := b64.DecodeString(seg)
	if err != nil || !canonical(seg) {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil || h["alg"] != "ES256" {
		return false
	}
	for k, v := range h {
		switch k {
		case "alg":
		case "typ":
			if _, ok := v.(string); !ok {
				return false
			}
		case "kid":
			if v != "k1" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// canonical reports whether seg is the one base64url encoding of what it
// decodes to. A segment whose last character carries stray bits decodes
// (Go's decoder ignores them) but signs a different string than go-jose
// rebuilds from the decoded bytes, so its signature never verifies.
func canonical(seg string) bool {
	b, err := b64.DecodeString(seg)
	return err == nil && b64.EncodeToString(b) == seg
}

// FuzzJWT resolves fuzzed bearer JWTs against a configured issuer whose
// JWKS serves one ECDSA key. A token is accepted only when crypto/ecdsa
// verifies its signature by that key and its claims pass the oracle; a
// refusal is unauthenticated and never echoes the token. Where resign is
// set the target signs the fuzzed header and claims with the key, so that
// the fuzzer explores the claim checks too: a plain ES256 header over
// claims clear of every bound must then be accepted.
func FuzzJWT(f *testing.F) {
	// P-256 keys: RSA key generation is slow under the fuzzer's
	// instrumentation, and every worker makes its own keys.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	f.Cleanup(srv.Close)
	res, err := identity.New(context.Background(), nil, &identity.OIDCConfig{Issuer: fuzzIssuer, Audience: fuzzAudience, JWKSURL: srv.URL})
	if err != nil {
		f.Fatal(err)
	}
	signES := func(k *ecdsa.PrivateKey, input string) string {
		d := sha256.Sum256([]byte(input))
		r, s, err := ecdsa.Sign(rand.Reader, k, d[:])
		if err != nil {
			f.Fatal(err)
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return input + "." + b64.EncodeToString(sig)
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return b64.EncodeToString(b) }
	now := time.Now()
	good := map[string]any{"iss": fuzzIssuer, "aud": fuzzAudience, "sub": "acme", "exp": now.Add(24 * time.Hour).Unix(), "iat": now.Unix(), "tzctx_profiles": []string{"blueprint"}}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for a, b := range good {
			c[a] = b
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	rs := enc(map[string]any{"alg": "ES256", "kid": "k1", "typ": "JWT"})
	f.Add(signES(key, rs+"."+enc(good)), false)
	f.Add(signES(stranger, rs+"."+enc(good)), false)
	f.Add(enc(map[string]any{"alg": "none"})+"."+enc(good)+".", true)
	f.Add(enc(map[string]any{"alg": "HS256", "kid": "k1"})+"."+enc(good)+".c2ln", true)
	f.Add(enc(map[string]any{"alg": "ES256"})+"."+enc(with("aud", []string{"x", fuzzAudience}))+".x", true)
	f.Add(rs+"."+enc(with("exp", now.Add(-time.Hour).Unix()))+".x", true)
	f.Add(rs+"."+enc(with("nbf", now.Add(time.Hour).Unix()))+".x", true)
	f.Add(rs+"."+enc(with("sub", 7))+".x", true)
	f.Add(rs+"."+enc(with("tzctx_profiles", "blueprint"))+".x", true)
	f.Add(rs+"."+enc(with("iss", fuzzIssuer+"/"))+".x", true)
	f.Add(rs+"."+enc(with("exp", nil))+".x", true)
	f.Add(rs+"."+b64.EncodeToString([]byte(`{"iss":"`+fuzzIssuer+`","iss":"x"}`))+".x", true)
	f.Add(enc(map[string]any{"alg": "RS256", "kid": "k1"})+"."+enc(good)+".x", true)
	f.Add(enc(map[string]any{"alg": "ES256", "crit": []string{"exp"}, "exp": 1})+"."+enc(good)+".x", true)
	f.Add(enc(map[string]any{"alg": "PS256", "kid": "k2"})+"."+enc(good)+".x", true)
	f.Add("a.b.c", false)
	f.Add("not a jwt", false)
	f.Fuzz(func(t *testing.T, token string, resign bool) {
		parts := strings.Split(token, ".")
		if resign && len(parts) == 3 {
			token = signES(key, parts[0]+"."+parts[1])
			parts = strings.Split(token, ".")
		}
		now := time.Now()
		id, err := res.Resolve(context.Background(), token)
		if token == "" {
			if err != nil || !id.Anonymous() {
				t.Fatalf("no credential resolved to %+v, %v; want the anonymous caller", id, err)
			}
			return
		}
		if err != nil {
			var te *tzctx.Error
			if !errors.As(err, &te) || te.Code != tzctx.Unauthenticated {
				t.Fatalf("refusal %v (%T) is not unauthenticated", err, err)
			}
			for _, p := range parts {
				if len(p) > 8 && strings.Contains(te.Detail, p) {
					t.Fatalf("refusal %q echoes the token", te.Detail)
				}
			}
			if resign && len(parts) == 3 && identity.IsJWT(token) && plainHeader(parts[0]) && canonical(parts[1]) {
				if payload, derr := b64.DecodeString(parts[1]); derr == nil && claimsOK(payload, now, true) {
					t.Fatalf("a token the key signed, with claims clear of every bound, is refused: %v\npayload %s", err, payload)
				}
			}
			return
		}
		if !ecVerifies(&key.PublicKey, token) {
			t.Fatalf("a token the configured key did not sign was accepted as %+v", id)
		}
		payload, derr := b64.DecodeString(parts[1])
		if derr != nil || !claimsOK(payload, now, false) {
			t.Fatalf("a token whose claims fail the checks was accepted as %+v: %s", id, payload)
		}
		var c struct {
			Sub      string   `json:"sub"`
			Profiles []string `json:"tzctx_profiles"`
		}
		_ = json.Unmarshal(payload, &c)
		if id.Account != c.Sub || !slices.Equal(id.Profiles, c.Profiles) || id.Credential == "" {
			t.Fatalf("accepted as %+v, but the claims name account %q, profiles %v", id, c.Sub, c.Profiles)
		}
	})
}
