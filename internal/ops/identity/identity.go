// Package identity resolves the bearer credentials callers present:
// configured tokens, which the configuration holds only as SHA-256
// digests, and, where an issuer is configured, OIDC-signed JWTs.
package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	"github.com/turnzerocloud/tzctx"
)

// Credential is one configured credential: the SHA-256 of its token and
// whom it names.
type Credential struct {
	TokenSHA256 string   `json:"token_sha256"`
	Account     string   `json:"account"`
	Application string   `json:"application"`
	Profiles    []string `json:"profiles"`
	Admin       bool     `json:"admin"`
}

// Static resolves configured tokens by their SHA-256. No credential is
// anonymous; an unknown one is refused unauthenticated.
type Static struct {
	creds []Credential
	sums  [][sha256.Size]byte
}

var _ tzctx.Resolver = (*Static)(nil)

// NewStatic returns the resolver of creds, whose TokenSHA256 members are
// 64 hex digits (the configuration loader checks them).
func NewStatic(creds []Credential) *Static {
	s := &Static{creds: creds}
	for _, c := range creds {
		var sum [sha256.Size]byte
		_, _ = hex.Decode(sum[:], []byte(c.TokenSHA256))
		s.sums = append(s.sums, sum)
	}
	return s
}

// Resolve implements tzctx.Resolver.
func (s *Static) Resolve(_ context.Context, bearer string) (tzctx.Identity, error) {
	if bearer == "" {
		return tzctx.Identity{}, nil
	}
	id, ok := s.lookup(bearer)
	if !ok {
		return tzctx.Identity{}, ErrUnknown()
	}
	return id, nil
}

// lookup compares the token's digest with every configured one in
// constant time.
func (s *Static) lookup(bearer string) (tzctx.Identity, bool) {
	sum := sha256.Sum256([]byte(bearer))
	found := -1
	for i := range s.sums {
		if subtle.ConstantTimeCompare(sum[:], s.sums[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return tzctx.Identity{}, false
	}
	c := s.creds[found]
	return tzctx.Identity{
		Credential:  tzctx.CredentialPrefix(bearer),
		Account:     c.Account,
		Application: c.Application,
		Profiles:    append([]string(nil), c.Profiles...),
		Admin:       c.Admin,
	}, true
}

// Resolver resolves every bearer credential a caller may present: none is
// the anonymous caller, a configured token is found by its SHA-256, and,
// where an issuer is configured, a JWT is verified against the issuer's
// keys. Anything else is refused unauthenticated.
type Resolver struct {
	static *Static
	oidc   *oidcVerifier
}

var _ tzctx.Resolver = (*Resolver)(nil)

// New returns the resolver of the configured credentials creds and, where
// oc is not nil, of the JWTs its issuer signs. It fetches nothing: the
// issuer's keys are fetched, in the background of ctx (whose
// cancellation does not stop them), when the first JWT is verified, and
// again on a key ID not seen yet. It refuses an oc that Check refuses.
func New(ctx context.Context, creds []Credential, oc *OIDCConfig) (*Resolver, error) {
	r := &Resolver{static: NewStatic(creds)}
	if oc != nil {
		c := *oc
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("oidc.%w", err)
		}
		r.oidc = newOIDCVerifier(ctx, c)
	}
	return r, nil
}

// Resolve implements tzctx.Resolver. A configured token is looked up
// first, whatever its form; a credential with the form of a JWT (IsJWT)
// is then verified where an issuer is configured. A JWT is refused when
// its signature, iss, aud, exp or nbf does not hold, when its account
// claim is not a non-empty string or its profiles claim is not an array
// of strings; where the issuer's keys cannot be fetched it is answered
// context_unavailable, since the credential may be good.
func (r *Resolver) Resolve(ctx context.Context, bearer string) (tzctx.Identity, error) {
	if bearer == "" {
		return tzctx.Identity{}, nil
	}
	if id, ok := r.static.lookup(bearer); ok {
		return id, nil
	}
	if r.oidc != nil && IsJWT(bearer) {
		return r.oidc.resolve(ctx, bearer)
	}
	return tzctx.Identity{}, ErrUnknown()
}

// ErrUnknown is the refusal of a credential that names no caller.
func ErrUnknown() *tzctx.Error {
	return tzctx.Errorf(tzctx.Unauthenticated, "the bearer credential is not known; send a configured credential, or none to read as an anonymous caller")
}

// SHA256 returns the token_sha256 of a token: the hex SHA-256 of its bytes.
func SHA256(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
