package tzctx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Resolver turns a presented bearer credential ("" for none) into the
// caller's identity. No credential is the anonymous caller; one that is
// unknown, malformed or expired is refused with an error of code
// Unauthenticated.
type Resolver interface {
	Resolve(ctx context.Context, bearer string) (Identity, error)
}

type credentialKey struct{}

// WithCredential returns a context carrying the bearer credential a front
// end received, for the dispatcher to resolve.
func WithCredential(ctx context.Context, bearer string) context.Context {
	return context.WithValue(ctx, credentialKey{}, bearer)
}

// BearerFrom returns the bearer credential ctx carries (WithCredential),
// "" for none.
func BearerFrom(ctx context.Context) string {
	bearer, _ := ctx.Value(credentialKey{}).(string)
	return bearer
}

// Bearer reads the credential of an Authorization header: none is "" (an
// anonymous caller); "Bearer <credential>", the scheme in any case, is the
// credential; anything else, an empty credential or a second header is
// refused unauthenticated. Every HTTP front end reads the header with it.
func Bearer(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", Errorf(Unauthenticated, "the request carries %d Authorization headers; send one, \"Bearer <credential>\"", len(values))
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	cred = strings.TrimSpace(cred)
	if !strings.EqualFold(scheme, "bearer") || cred == "" {
		return "", Errorf(Unauthenticated, "the Authorization header must read \"Bearer <credential>\"; send none to read as an anonymous caller")
	}
	return cred, nil
}

// CredentialPrefix is how records name a bearer credential: the first 12
// hex digits of its SHA-256, "" for none. For a configured token it is
// the start of the token_sha256 the configuration lists.
func CredentialPrefix(bearer string) string {
	if bearer == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(bearer))
	return hex.EncodeToString(sum[:6])
}
