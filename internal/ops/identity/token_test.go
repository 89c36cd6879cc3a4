package identity

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestNewToken(t *testing.T) {
	a, cred, err := NewToken(Credential{Account: "ci", Application: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := NewToken(Credential{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(a, TokenPrefix))
	if !strings.HasPrefix(a, TokenPrefix) || err != nil || len(raw) != 32 || strings.Count(a, ".") != 0 {
		t.Errorf("token %q: want %s and 32 base64url bytes, no dots", a, TokenPrefix)
	}
	if a == b {
		t.Error("two tokens are the same")
	}
	if cred.TokenSHA256 != SHA256(a) || cred.Account != "ci" || cred.Application != "bot" {
		t.Errorf("credential %+v does not name the token", cred)
	}
}
