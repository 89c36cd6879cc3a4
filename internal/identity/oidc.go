package identity

import (
	"fmt"
	"net/url"
)

// OIDCConfig is the configuration's oidc member: JWTs its issuer signed
// are accepted as bearer credentials.
type OIDCConfig struct {
	Issuer        string `json:"issuer"`
	Audience      string `json:"audience"`
	JWKSURL       string `json:"jwks_url"`
	AccountClaim  string `json:"account_claim"`
	ProfilesClaim string `json:"profiles_claim"`
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
		u, err := url.Parse(m.v)
		if m.v == "" || err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return fmt.Errorf("%s: %q must be an absolute http(s) URL", m.name, m.v)
		}
	}
	if c.Audience == "" {
		return fmt.Errorf("audience: is missing; give the audience (aud) the issuer puts in tokens for this server")
	}
	return nil
}
