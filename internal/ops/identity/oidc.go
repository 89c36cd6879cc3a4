package identity

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/turnzerocloud/tzctx"
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
	// JWKSMinRefresh is the least time between two fetches of the
	// issuer's JWKS, as a duration such as "10s" ("" is
	// DefaultJWKSMinRefresh).
	JWKSMinRefresh string `json:"jwks_min_refresh"`
	// MaxKeysTried bounds the keys of the issuer's JWKS one token's
	// signature is tried against (0 is DefaultMaxKeysTried). A token
	// whose header names no key ID (kid) is refused where more keys
	// than that could have signed it.
	MaxKeysTried int `json:"max_keys_tried"`

	minRefresh time.Duration
}

// Defaults of OIDCConfig.
const (
	// DefaultJWKSMinRefresh is jwks_min_refresh's default.
	DefaultJWKSMinRefresh = 10 * time.Second
	// DefaultMaxKeysTried is max_keys_tried's default: more keys than an
	// issuer publishes at once while it rotates them.
	DefaultMaxKeysTried = 8
)

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
	if c.JWKSMinRefresh != "" {
		d, err := time.ParseDuration(c.JWKSMinRefresh)
		if err != nil || d <= 0 {
			return fmt.Errorf("jwks_min_refresh: %q is not a positive duration; give the least time between two fetches of the issuer's keys, such as \"10s\", or leave it out for %v", c.JWKSMinRefresh, DefaultJWKSMinRefresh)
		}
		c.minRefresh = d
	}
	if c.MaxKeysTried < 0 {
		return fmt.Errorf("max_keys_tried: %d is negative; give the most keys of the issuer's JWKS one token is tried against, or leave it out for %d", c.MaxKeysTried, DefaultMaxKeysTried)
	}
	if c.MaxKeysTried == 0 {
		c.MaxKeysTried = DefaultMaxKeysTried
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

// nbfLeeway is the clock skew go-oidc allows on nbf, and this verifier
// on iat; exp has none.
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
// JWKS, which keyCache holds, and reads the caller from the verified
// claims.
type oidcVerifier struct {
	cfg      OIDCConfig
	verifier *oidc.IDTokenVerifier
	// now is the clock every check of exp, nbf and iat reads, at each
	// verification: time.Now, or a test's.
	now func() time.Time
}

// newOIDCVerifier returns the verifier of c, whose JWKS fetches are
// bounded by JWKSTimeout.
func newOIDCVerifier(ctx context.Context, c OIDCConfig) *oidcVerifier {
	keys := &keyCache{url: c.JWKSURL, client: &http.Client{Timeout: JWKSTimeout}, ctx: context.WithoutCancel(ctx),
		minRefresh: c.minRefresh, maxTried: c.MaxKeysTried}
	v := &oidcVerifier{cfg: c, now: time.Now}
	v.verifier = oidc.NewVerifier(c.Issuer, keys, &oidc.Config{ClientID: c.Audience, SupportedSigningAlgs: SigningAlgs,
		Now: func() time.Time { return v.now() }})
	return v
}

// minRefresh is the least time between two fetches of the issuer's JWKS
// where jwks_min_refresh is not set. A token naming a key ID the cache
// lacks fetches the set again, but at most this often, so tokens forged
// with made-up key IDs cannot make the server fetch on every request.
var minRefresh = DefaultJWKSMinRefresh

// keyCache is the issuer's JWKS, fetched on first use and again for a
// key ID it does not hold (at most once every minRefresh), and verifies
// a JWT's signature with the key its header names, through go-jose. It
// notes each check's outcome in the call's sigOutcome, so a refusal can
// say whether the signature or a claim was at fault: go-oidc's Verify
// flattens its errors to text.
type keyCache struct {
	url    string
	client *http.Client
	ctx    context.Context // fetches outlive a caller's cancellation
	// minRefresh, where not 0, is jwks_min_refresh; maxTried is
	// max_keys_tried (0: DefaultMaxKeysTried).
	minRefresh time.Duration
	maxTried   int

	fetchMu sync.Mutex // one fetch at a time
	mu      sync.Mutex // guards what follows
	keys    []jose.JSONWebKey
	fetched time.Time // of the last fetch, good or not
	err     error     // of the last fetch
}

var _ oidc.KeySet = (*keyCache)(nil)

type outcomeKey struct{}

// sigOutcome is what the key set saw of one verification.
type sigOutcome struct {
	checked bool
	payload []byte
	err     error
}

// errFetch marks a failed JWKS fetch, which refusal answers as
// unavailable rather than a bad token.
var errFetch = errors.New("fetching keys")

// tooManyKeys is the error of a token without a key ID that more keys
// than max_keys_tried could verify: n could.
type tooManyKeys struct{ n int }

func (e *tooManyKeys) Error() string {
	return fmt.Sprintf("%d keys could verify a token without a key ID", e.n)
}

// VerifySignature implements oidc.KeySet.
func (k *keyCache) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.verify(ctx, jwt)
	if o, ok := ctx.Value(outcomeKey{}).(*sigOutcome); ok {
		o.checked, o.payload, o.err = true, payload, err
	}
	return payload, err
}

func (k *keyCache) verify(ctx context.Context, jwt string) ([]byte, error) {
	algs := make([]jose.SignatureAlgorithm, len(SigningAlgs))
	for i, a := range SigningAlgs {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	jws, err := jose.ParseSignedCompact(jwt, algs)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, errors.New("malformed jws")
	}
	head := jws.Signatures[0].Header
	kid := head.KeyID
	keys, err := k.keysFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	// Only the keys that could have made this signature are tried, and
	// at most maxTried of them: each try is a public-key verification,
	// and an issuer may publish thousands of keys.
	var candidates []jose.JSONWebKey
	for _, key := range keys {
		if (kid == "" || key.KeyID == kid) && keyFits(key, head.Algorithm) {
			candidates = append(candidates, key)
		}
	}
	max := k.maxTried
	if max <= 0 {
		max = DefaultMaxKeysTried
	}
	if len(candidates) > max {
		if kid == "" {
			return nil, &tooManyKeys{len(candidates)}
		}
		candidates = candidates[:max]
	}
	for _, key := range candidates {
		if payload, err := jws.Verify(key); err == nil {
			return payload, nil
		}
	}
	return nil, errors.New("no key of the issuer verifies the signature")
}

// keyFits reports whether key could have made a signature of alg: its
// own alg, where it names one, is alg, and its type is alg's.
func keyFits(key jose.JSONWebKey, alg string) bool {
	if key.Algorithm != "" && key.Algorithm != alg {
		return false
	}
	switch key.Key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		return strings.HasPrefix(alg, "ES")
	case ed25519.PublicKey:
		return alg == oidc.EdDSA
	}
	return false
}

// keysFor returns the cached keys, fetching the set first where it lacks
// kid and the last fetch is older than minRefresh.
func (k *keyCache) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	if keys, ok := k.cached(kid); ok {
		return keys, nil
	}
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	if keys, ok := k.cached(kid); ok {
		return keys, nil
	}
	refresh := k.minRefresh
	if refresh <= 0 {
		refresh = minRefresh
	}
	k.mu.Lock()
	recent := !k.fetched.IsZero() && time.Since(k.fetched) < refresh
	keys, lastErr := k.keys, k.err
	k.mu.Unlock()
	if recent {
		// The last fetch failed: whether the issuer now publishes kid
		// is not known, so the token may be good.
		if lastErr != nil {
			return nil, lastErr
		}
		return keys, nil
	}
	fresh, err := k.fetch()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fetched, k.err = time.Now(), err
	if err != nil {
		return nil, err
	}
	k.keys = fresh
	return fresh, nil
}

// cached returns the keys where they hold kid (any key, for a token
// naming none).
func (k *keyCache) cached(kid string) ([]jose.JSONWebKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil {
		return nil, false
	}
	if kid == "" {
		return k.keys, true
	}
	for _, key := range k.keys {
		if key.KeyID == kid {
			return k.keys, true
		}
	}
	return nil, false
}

// fetch reads the issuer's JWKS.
func (k *keyCache) fetch() ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(k.ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFetch, err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFetch, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: the JWKS endpoint answered %d", errFetch, resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("%w: the JWKS is not a JSON key set: %v", errFetch, err)
	}
	var keys []jose.JSONWebKey
	for _, key := range set.Keys {
		if key.IsPublic() && (key.Use == "" || key.Use == "sig") {
			keys = append(keys, key)
		}
	}
	return keys, nil
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
	// go-oidc leaves iat alone: a token issued later than the leeway
	// allows says the issuer's clock or this server's is wrong, as an
	// nbf in the future does.
	if !idt.IssuedAt.IsZero() && v.now().Add(nbfLeeway).Before(idt.IssuedAt) {
		return tzctx.Identity{}, refuse("was issued in the future (its iat is ahead of this server's clock by more than %v); check the clocks of the issuer and this server", nbfLeeway)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return tzctx.Identity{}, refuse("holds claims that are not a JSON object; get a fresh token from the issuer")
	}
	if err := v.checkRegistered(claims, v.now()); err != nil {
		return tzctx.Identity{}, err
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
	// The names come from the token's claims: bounded here, once, so
	// records, logs, PostgreSQL and metric labels all hold the same
	// bounded value.
	return tzctx.Identity{
		Credential:  tzctx.CredentialPrefix(token),
		Account:     BoundName(account),
		Application: BoundName(app),
		Profiles:    profiles,
	}, nil
}

// MaxNameBytes bounds the account and application names a JWT's claims
// give: the length bound of a metric label (metering.MaxLabelBytes).
const MaxNameBytes = 64

// BoundName returns name as valid UTF-8 of at most MaxNameBytes bytes:
// name itself where it fits; else its start, cut on a character
// boundary, then "~" and 16 hex digits of the SHA-256 of the whole, so
// that two long names that share their start stay apart.
func BoundName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if len(name) <= MaxNameBytes {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "~" + hex.EncodeToString(sum[:8])
	n := MaxNameBytes - len(tail)
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n] + tail
}

// checkRegistered holds the verified claims to iss, aud, exp and nbf
// again, by their exact names. Claim names are case-sensitive (RFC 7519
// section 4), but go-oidc decodes them into a struct, and encoding/json
// matches struct members without regard to case: a token whose claims
// are "ISS", "Aud" or "eXp" passed its checks, and {"aud":"other",
// "Aud":"tzctx"} passed as meant for tzctx. The checks and refusals are
// refusal's, read from the claims as signed.
func (v *oidcVerifier) checkRegistered(c map[string]any, now time.Time) *tzctx.Error {
	if iss, _ := c["iss"].(string); iss != v.cfg.Issuer {
		return refuse("was not issued by %s (its iss differs); get a token from that issuer", v.cfg.Issuer)
	}
	aud, err := json.Marshal(c["aud"])
	if err != nil || !audienceHas(aud, v.cfg.Audience) {
		return refuse("is not meant for this server: its audience (aud) does not include %q; ask the issuer for a token for that audience", v.cfg.Audience)
	}
	exp, ok := c["exp"].(float64)
	if !ok {
		return refuse("has no expiry (exp); tzctx accepts only tokens that expire")
	}
	if numericTime(json.Number(strconv.FormatFloat(exp, 'f', -1, 64))).Before(now) {
		return refuse("has expired; get a fresh token from the issuer")
	}
	if nbf, present := c["nbf"]; present {
		n, ok := nbf.(float64)
		if !ok || now.Add(nbfLeeway).Before(numericTime(json.Number(strconv.FormatFloat(n, 'f', -1, 64)))) {
			return refuse("is not valid yet (its nbf is in the future); check the clocks of the issuer and this server")
		}
	}
	return nil
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
	var many *tooManyKeys
	switch {
	case !out.checked:
		return refuse("is malformed: it must be one compact JWS with one signature; send the token as the issuer gave it")
	case out.err != nil && errors.As(out.err, &many):
		return refuse("names no key ID (kid), and %d of the issuer's keys could have signed it, more than the %d a token is tried against (oidc.max_keys_tried); ask the issuer to name the key in the token's header (kid), or raise oidc.max_keys_tried", many.n, v.cfg.MaxKeysTried)
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
	now := v.now()
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
// rather than a signature no key verifies.
func fetchFailed(err error) bool {
	return errors.Is(err, errFetch)
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
