package tzctx

import (
	"fmt"
	"strings"
)

// maxEchoed bounds the length of a caller's name a detail echoes.
const maxEchoed = 40

// EchoedName is how a refusal's detail names a member or action name the
// caller sent: the name itself where it is at most 40 bytes of letters,
// digits and "_.-", as every name of the contract is, and otherwise
// "(a name of N bytes)". A detail never echoes more of the caller's text:
// a long or odd name may be anything, a query's words included.
func EchoedName(name string) string {
	if PlainName(name) {
		return name
	}
	if name == "" {
		return "(an empty name)"
	}
	return fmt.Sprintf("(a name of %d bytes)", len(name))
}

// PlainName reports whether EchoedName echoes name as sent: at most 40
// bytes of letters, digits and "_.-".
func PlainName(name string) bool {
	if name == "" || len(name) > maxEchoed {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// LoggedPath is a request path as an access log names it: each step of
// it EchoedName's, so a path is logged as sent where every step is a
// plain name of at most 40 bytes, and no caller's text of any length
// reaches a log through a path.
func LoggedPath(p string) string {
	steps := strings.Split(p, "/")
	plain := true
	for _, s := range steps[1:] {
		if s != "" && !PlainName(s) {
			plain = false
			break
		}
	}
	if plain {
		return p
	}
	for i, s := range steps {
		if s != "" {
			steps[i] = EchoedName(s)
		}
	}
	return strings.Join(steps, "/")
}
