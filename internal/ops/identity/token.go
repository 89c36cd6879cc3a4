package identity

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// TokenPrefix starts every token NewToken makes, so a leaked one is
// recognised. The rest is 32 random bytes, base64url without padding:
// never three dot-separated segments, so never taken for a JWT.
const TokenPrefix = "tzctx_"

// NewToken returns a fresh bearer token, TokenPrefix and 32 bytes from
// crypto/rand, and the credential that names it: cred with its
// TokenSHA256 set (the configuration keeps only that digest).
func NewToken(cred Credential) (token string, named Credential, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", Credential{}, fmt.Errorf("read random bytes: %w", err)
	}
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	cred.TokenSHA256 = SHA256(token)
	return token, cred, nil
}
