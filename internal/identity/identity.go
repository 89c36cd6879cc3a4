// Package identity resolves the bearer credentials callers present:
// configured tokens, which the configuration holds only as SHA-256
// digests, and, where an issuer is configured, OIDC-signed JWTs.
package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
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

var _ dispatch.Resolver = (*Static)(nil)

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

// Resolve implements dispatch.Resolver.
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
		Credential:  dispatch.CredentialPrefix(bearer),
		Account:     c.Account,
		Application: c.Application,
		Profiles:    append([]string(nil), c.Profiles...),
		Admin:       c.Admin,
	}, true
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
