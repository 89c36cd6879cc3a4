package identity

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
)

// OIDCConfig is the configuration's oidc member: JWTs its issuer signed
// are accepted as bearer credentials.
type OIDCConfig struct {
	Issuer        string `json:"issuer"`
	Audience      string `json:"audience"`
	JWKSURL       string `json:"jwks_url"`
	AccountClaim  string `json:"account_claim"`
	ProfilesClaim string `json:"profiles_claim"`
	// Resource is the public URL of /mcp (https://docs.example.com/mcp)
	// that the protected resource metadata names; where empty, it is
	// derived from each request's scheme and Host.
	Resource string `json:"resource"`
}

// Check reports the first fault of c as "member: fault", defaulting the
// claim names (sub, tzctx_profiles).
func (c *OIDCConfig) Check() error {
	if c.AccountClaim == "" {
		c.AccountClaim = "sub"
	}
	if c.ProfilesClaim == "" {
		c.ProfilesClaim = "tzctx_profiles"
	}
	for _, m := range []struct{ name, v string }{{"issuer", c.Issuer}, {"jwks_url", c.JWKSURL}} {
		if !httpURL(m.v) {
			return fmt.Errorf("%s: %q must be an absolute http(s) URL", m.name, m.v)
		}
	}
	if c.Audience == "" {
		return fmt.Errorf("audience: is missing; give the audience (aud) the issuer puts in tokens for this server")
	}
	if c.Resource != "" && !httpURL(c.Resource) {
		return fmt.Errorf("resource: %q must be the absolute http(s) URL of this server's /mcp, such as https://docs.example.com/mcp, or left out to derive it from each request", c.Resource)
	}
	return nil
}

// httpURL reports whether s is an absolute http or https URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return s != "" && err == nil && u.IsAbs() && u.Host != "" && (u.Scheme == "https" || u.Scheme == "http")
}

// SigningAlgs are the JWS algorithms a bearer JWT may be signed with: the
// asymmetric ones go-oidc verifies. HMAC (HS256 and kin), which would
// make the issuer's public key a secret, and "none" are refused.
var SigningAlgs = []string{
	oidc.RS256, oidc.RS384, oidc.RS512,
	oidc.PS256, oidc.PS384, oidc.PS512,
	oidc.ES256, oidc.ES384, oidc.ES512,
	oidc.EdDSA,
}

// JWKSTimeout bounds one fetch of the issuer's JWKS.
const JWKSTimeout = 10 * time.Second

// nbfLeeway is the clock skew go-oidc allows on nbf; exp has none.
const nbfLeeway = 5 * time.Minute

// IsJWT reports whether a bearer credential has the form of a compact
// JWT: three dot-separated base64url segments, the first two not empty
// (an unsigned token's third segment is).
func IsJWT(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return false
	}
	for _, p := range parts {
		for _, r := range p {
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// oidcVerifier verifies bearer JWTs with go-oidc against the issuer's
// JWKS, which go-oidc caches and fetches again on a key ID it has not
// seen, and reads the caller from the verified claims.
type oidcVerifier struct {
	cfg      OIDCConfig
	verifier *oidc.IDTokenVerifier
}

// newOIDCVerifier returns the verifier of c, whose JWKS fetches (made in
// the background of ctx, whose cancellation they ignore) are bounded by
// JWKSTimeout.
func newOIDCVerifier(ctx context.Context, c OIDCConfig) *oidcVerifier {
	keys := outcomeKeySet{fetches: new(atomic.Int64)}
	client := &http.Client{Timeout: JWKSTimeout, Transport: countingTransport{base: http.DefaultTransport, n: keys.fetches}}
	keys.remote = oidc.NewRemoteKeySet(oidc.ClientContext(ctx, client), c.JWKSURL)
	return &oidcVerifier{
		cfg:      c,
		verifier: oidc.NewVerifier(c.Issuer, keys, &oidc.Config{ClientID: c.Audience, SupportedSigningAlgs: SigningAlgs}),
	}
}

// countingTransport counts the requests sent through it.
type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(r)
}

// outcomeKeySet passes signature checks to go-oidc's remote key set and
// notes their outcome in the call's sigOutcome, so a refusal can say
// whether the signature or a claim was at fault: go-oidc's Verify flattens
// its errors to text.
//
// go-oidc fetches the JWKS again when no cached key verifies, but a call
// that comes just as a fetch ends can be handed that fetch's result
// without a new fetch: a token of a key published since is then refused,
// or a fetch that failed is reported once the issuer is back
// (coreos/go-oidc's inflight request is cleared only after its waiters
// are released). Where the check failed and no fetch was started during
// the call, it is made again, at most twice more.
type outcomeKeySet struct {
	remote  *oidc.RemoteKeySet
	fetches *atomic.Int64
}

type outcomeKey struct{}

// sigOutcome is what the key set saw of one verification.
type sigOutcome struct {
	checked bool
	payload []byte
	err     error
}

// VerifySignature implements oidc.KeySet.
func (k outcomeKeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	var payload []byte
	var err error
	for attempt := 1; ; attempt++ {
		before := k.fetches.Load()
		payload, err = k.remote.VerifySignature(ctx, jwt)
		if err == nil || k.fetches.Load() != before || attempt == 3 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
	if o, ok := ctx.Value(outcomeKey{}).(*sigOutcome); ok {
		o.checked, o.payload, o.err = true, payload, err
	}
	return payload, err
}

// refuse is an unauthenticated refusal of a bearer JWT.
func refuse(format string, args ...any) *tzctx.Error {
	return tzctx.Errorf(tzctx.Unauthenticated, "the bearer JWT "+format, args...)
}

// resolve verifies token, a JWT, and returns the caller its claims name.
// A refusal never holds the token or a value taken from it.
func (v *oidcVerifier) resolve(ctx context.Context, token string) (tzctx.Identity, error) {
	if err := v.checkHeader(token); err != nil {
		return tzctx.Identity{}, err
	}
	out := &sigOutcome{}
	idt, err := v.verifier.Verify(context.WithValue(ctx, outcomeKey{}, out), token)
	if err != nil {
		return tzctx.Identity{}, v.refusal(err, out)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return tzctx.Identity{}, refuse("holds claims that are not a JSON object; get a fresh token from the issuer")
	}
	account, _ := claims[v.cfg.AccountClaim].(string)
	if account == "" {
		return tzctx.Identity{}, v.noAccount()
	}
	var profiles []string
	switch ps := claims[v.cfg.ProfilesClaim].(type) {
	case nil:
	case []any:
		for _, p := range ps {
			s, _ := p.(string)
			if s == "" {
				return tzctx.Identity{}, refuse("has a %q claim that is not an array of product profile names; the issuer must give it as an array of strings, or leave it out", v.cfg.ProfilesClaim)
			}
			profiles = append(profiles, s)
		}
	default:
		return tzctx.Identity{}, refuse("has a %q claim that is not an array of product profile names; the issuer must give it as an array of strings, or leave it out", v.cfg.ProfilesClaim)
	}
	app := "oidc"
	for _, c := range []string{"azp", "client_id"} {
		if s, _ := claims[c].(string); s != "" {
			app = s
			break
		}
	}
	return tzctx.Identity{
		Credential:  dispatch.CredentialPrefix(token),
		Account:     account,
		Application: app,
		Profiles:    profiles,
	}, nil
}

// checkHeader refuses a JWT whose header does not name an accepted
// signing algorithm, before go-oidc reports it as malformed.
func (v *oidcVerifier) checkHeader(token string) error {
	head, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	var h struct {
		Alg string `json:"alg"`
	}
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return refuse("has a header that is not base64url-encoded JSON; send the token as the issuer gave it")
	}
	if !slices.Contains(SigningAlgs, h.Alg) {
		return refuse("is not signed with an algorithm tzctx accepts (%s); unsigned and HMAC-signed tokens are refused", strings.Join(SigningAlgs, ", "))
	}
	return nil
}

// refusal turns go-oidc's verification error into the caller's refusal.
// Which check failed is read from what the key set saw and, once the
// signature verified, from the verified claims, in go-oidc's order: iss,
// aud, exp, nbf.
func (v *oidcVerifier) refusal(err error, out *sigOutcome) *tzctx.Error {
	switch {
	case !out.checked:
		return refuse("is malformed: it must be one compact JWS with one signature; send the token as the issuer gave it")
	case out.err != nil && fetchFailed(out.err):
		// The credential may be good: the caller should try again, not
		// drop it.
		return tzctx.Errorf(tzctx.ContextUnavailable, "the identity provider's keys could not be fetched; try again later")
	case out.err != nil:
		return refuse("is not signed by any of the issuer's keys: it was signed by an unknown key or altered; get a fresh token from the issuer")
	}
	var c struct {
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
		Exp *json.Number    `json:"exp"`
		Nbf *json.Number    `json:"nbf"`
	}
	dec := json.NewDecoder(bytes.NewReader(out.payload))
	dec.UseNumber()
	if dec.Decode(&c) != nil {
		return refuse("holds claims that are not a JSON object with a string iss, an aud and numeric exp and nbf; get a fresh token from the issuer")
	}
	now := time.Now()
	var expired *oidc.TokenExpiredError
	switch {
	case c.Iss != v.cfg.Issuer:
		return refuse("was not issued by %s (its iss differs); get a token from that issuer", v.cfg.Issuer)
	case !audienceHas(c.Aud, v.cfg.Audience):
		return refuse("is not meant for this server: its audience (aud) does not include %q; ask the issuer for a token for that audience", v.cfg.Audience)
	case c.Exp == nil:
		return refuse("has no expiry (exp); tzctx accepts only tokens that expire")
	case errors.As(err, &expired) || numericTime(*c.Exp).Before(now):
		return refuse("has expired; get a fresh token from the issuer")
	case c.Nbf != nil && now.Add(nbfLeeway).Before(numericTime(*c.Nbf)):
		return refuse("is not valid yet (its nbf is in the future); check the clocks of the issuer and this server")
	}
	// go-oidc also refuses a registered claim of the wrong type, such as
	// a sub that is not a string.
	var all map[string]any
	_ = json.Unmarshal(out.payload, &all)
	if s, _ := all[v.cfg.AccountClaim].(string); s == "" {
		return v.noAccount()
	}
	return refuse("could not be verified: one of its registered claims (iss, sub, aud, exp, iat, nbf) is not of its type; get a fresh token from the issuer")
}

// noAccount refuses a JWT without the account claim.
func (v *oidcVerifier) noAccount() *tzctx.Error {
	return refuse("has no %q claim naming the account as a non-empty string; ask the issuer to include it (the claim is set by oidc.account_claim)", v.cfg.AccountClaim)
}

// fetchFailed reports whether a key set error is a failed JWKS fetch
// rather than a signature no key verifies. go-oidc wraps the fetch's
// error ("fetching keys: ...") and returns a bare error otherwise.
func fetchFailed(err error) bool {
	return errors.Unwrap(err) != nil || strings.HasPrefix(err.Error(), "fetching keys")
}

// audienceHas reports whether an aud claim, a string or an array of
// strings, holds want.
func audienceHas(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	return json.Unmarshal(raw, &many) == nil && slices.Contains(many, want)
}

// numericTime reads a JWT NumericDate (seconds since the epoch), to the
// second.
func numericTime(n json.Number) time.Time {
	f, err := n.Float64()
	if err != nil {
		return time.Time{}
	}
	return time.Unix(int64(math.Max(-1<<62, math.Min(f, 1<<62))), 0)
}
