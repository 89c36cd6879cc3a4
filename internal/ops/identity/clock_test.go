package identity

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// TestOIDCClockJump: after the server's clock jumps (an hour ahead, a
// day behind, a month ahead), exp, nbf and iat are judged against the
// clock as it reads at each verification, to the second at the edge of
// each leeway: none on exp, five minutes on nbf and iat. One second
// inside the leeway is accepted, one second past it refused.
func TestOIDCClockJump(t *testing.T) {
	k := rsaKey(t, "k1")
	r := newResolver(t, newJWKS(t, k), nil, nil)
	for _, jump := range []time.Duration{0, time.Hour, -24 * time.Hour, 30 * 24 * time.Hour} {
		// A clock on a whole second makes the second-granular claims
		// meet it exactly.
		at := time.Now().Add(jump).Truncate(time.Second)
		r.oidc.now = func() time.Time { return at }
		sec := func(d time.Duration) int64 { return at.Add(d).Unix() }
		base := map[string]any{"exp": sec(time.Hour), "iat": sec(0), "nbf": sec(-time.Minute)}
		with := func(k string, v int64) map[string]any {
			c := map[string]any{}
			for n, x := range base {
				c[n] = x
			}
			c[k] = v
			return c
		}
		for _, c := range []struct {
			name   string
			claims map[string]any
			want   string // "" for accepted
		}{
			{"good", base, ""},
			{"exp 1s ahead", with("exp", sec(time.Second)), ""},
			{"exp now", with("exp", sec(0)), ""},
			{"exp 1s behind", with("exp", sec(-time.Second)), "has expired"},
			{"nbf leeway-1s ahead", with("nbf", sec(nbfLeeway-time.Second)), ""},
			{"nbf at the leeway", with("nbf", sec(nbfLeeway)), ""},
			{"nbf leeway+1s ahead", with("nbf", sec(nbfLeeway+time.Second)), "is not valid yet"},
			{"iat leeway-1s ahead", with("iat", sec(nbfLeeway-time.Second)), ""},
			{"iat at the leeway", with("iat", sec(nbfLeeway)), ""},
			{"iat leeway+1s ahead", with("iat", sec(nbfLeeway+time.Second)), "was issued in the future"},
			{"iat a year behind", with("iat", sec(-365*24*time.Hour)), ""},
		} {
			name := fmt.Sprintf("clock %+v, %s", jump, c.name)
			tok := sign(t, k, claims(c.claims))
			id, err := r.Resolve(context.Background(), tok)
			if c.want == "" {
				if err != nil || id.Account != "acme" {
					t.Errorf("%s: refused: %v", name, err)
				}
				continue
			}
			refused(t, name, id, err, tok, tzctx.Unauthenticated, c.want)
		}
	}
}
