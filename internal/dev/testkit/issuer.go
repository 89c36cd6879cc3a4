package testkit

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Issuer is an OIDC issuer on loopback for tests: its JWKS endpoint serves
// the public half of one RSA key (key ID k1), and it signs tokens with
// that key or with another one the JWKS does not list.
type Issuer struct {
	// URL is the issuer (iss); JWKSURL serves its key set.
	URL, JWKSURL string
	// Audience is the audience (aud) its tokens carry by default.
	Audience string
	// Fetches counts the requests the JWKS endpoint answered.
	Fetches atomic.Int64
	// JWKSStatus, where not 0, is the status the JWKS endpoint answers
	// instead of its key set, as an issuer in trouble (500).
	JWKSStatus atomic.Int32

	key, stranger *rsa.PrivateKey
	srv           *httptest.Server
}

// Stop stops the JWKS endpoint, as an issuer that is down.
func (iss *Issuer) Stop() { iss.srv.Close() }

// NewIssuer starts an issuer whose JWKS endpoint stops with the test.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	iss := &Issuer{URL: "https://id.example.test", Audience: "tzctx"}
	var err error
	if iss.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if iss.stranger, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		iss.Fetches.Add(1)
		if code := iss.JWKSStatus.Load(); code != 0 {
			http.Error(w, "unavailable", int(code))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: iss.key.Public(), KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	}))
	t.Cleanup(srv.Close)
	iss.JWKSURL, iss.srv = srv.URL, srv
	return iss
}

// Token signs claims over good defaults (account acme, application
// docs-agent, the blueprint profile, an hour to live) with the listed
// key; a nil value drops a claim.
func (iss *Issuer) Token(t testing.TB, over map[string]any) string {
	t.Helper()
	return iss.sign(t, iss.key, "k1", over)
}

// StrangerToken signs as Token does, with a key the JWKS does not list,
// under the key ID kid.
func (iss *Issuer) StrangerToken(t testing.TB, kid string, over map[string]any) string {
	t.Helper()
	return iss.sign(t, iss.stranger, kid, over)
}

func (iss *Issuer) sign(t testing.TB, key *rsa.PrivateKey, kid string, over map[string]any) string {
	t.Helper()
	now := time.Now()
	c := map[string]any{"iss": iss.URL, "aud": iss.Audience, "sub": "acme", "azp": "docs-agent", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "tzctx_profiles": []string{"blueprint"}}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
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
