// Package tzctx holds the domain vocabulary of the served-context plane of
// Turn Zero Cloud: the contract's default tree names and the tree-name rule, the error vocabulary of the contract, the
// caller's identity carried in a request context, and the vocabulary of
// a call that the dispatcher and the operations share: the records the
// dispatcher emits and their recorders (record.go), the resolver of a
// bearer credential and how records name it (credential.go), the one log
// line of an HTTP request (logline.go), and how a caller's names are
// echoed in details and logs (echoed.go). It imports nothing of the
// project, so every other package may depend on it.
package tzctx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"
)

// FaultText is err's message less the path of the *fs.PathError in its
// chain, for a message that names the file in its own words.
func FaultText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// DefaultTrees lists the contract's documentation trees in tree order:
// the trees a server serves where its configuration names none. A
// configuration may name others (query.TreeSet); this list is the
// contract's default, not the vocabulary of every server.
var DefaultTrees = []string{"cloud", "blueprint", "tzdocs"}

// MaxTreeName bounds a tree name's length, in bytes (all of them ASCII).
const MaxTreeName = 32

// MaxTrees bounds how many trees one server configuration or one ingest
// names: a tree enumeration of a tool's schema, a catalog of two entries
// per tree and a bit per tree of a search's mask stay small.
const MaxTrees = 256

// MaxTreeTitle bounds a tree's title, in characters (code points): a
// configured title is refused past it, and the title a documentation
// folder's generator gives is cut to it at ingest and when served.
const MaxTreeTitle = 120

// reservedTreeNames are the names a tree may not take: the parts and
// kinds of the contract's content IDs (docs:<tree>:full, :outline,
// :page:, :search:, and read_documentation's part index), so no ID or
// request reads two ways to a person, and "meta", the store's own table
// beside the trees'.
var reservedTreeNames = []string{"full", "outline", "index", "page", "search", "meta"}

// CheckTreeName returns nil where name is a valid tree name: lower-case
// ASCII letters, digits and hyphens, starting with a letter, at most
// MaxTreeName bytes, and none of the reserved names. Its error says what
// is wrong in words fit for a message that names the member; it quotes
// the name, which is configuration or a folder name, never a caller's.
func CheckTreeName(name string) error {
	const rule = "a tree name is lower-case letters, digits and hyphens, starting with a letter, at most 32 characters"
	switch {
	case name == "":
		return errors.New("the tree name is empty; " + rule)
	case len(name) > MaxTreeName:
		return fmt.Errorf("%.40q… is not a tree name: it is longer than %d characters; %s", name, MaxTreeName, rule)
	case name[0] < 'a' || name[0] > 'z':
		return fmt.Errorf("%q is not a tree name: it does not start with a lower-case letter; %s", name, rule)
	}
	for _, c := range []byte(name) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return fmt.Errorf("%q is not a tree name: it holds %q; %s", name, string(rune(c)), rule)
		}
	}
	for _, r := range reservedTreeNames {
		if name == r {
			return fmt.Errorf("%q is not a tree name: it is reserved (%s name parts of content IDs or the store's own table); choose another name", name, strings.Join(reservedTreeNames, ", "))
		}
	}
	return nil
}

// SortTrees sorts tree names into a version's storage order: the
// contract's trees first, in their order (DefaultTrees), then any other in
// name order. A served version's page ordinals follow it; the order a
// server serves its trees in is its configuration's, not this one.
func SortTrees(names []string) {
	rank := func(n string) int {
		for i, t := range DefaultTrees {
			if t == n {
				return i
			}
		}
		return len(DefaultTrees)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

// Code is one of the contract's error codes.
type Code string

// The contract's error codes (readings A-38).
const (
	InvalidRequest     Code = "invalid_request"
	ContextNotFound    Code = "context_not_found"
	ContextChanged     Code = "context_changed"
	ContextUnavailable Code = "context_unavailable"
	Internal           Code = "internal"
	// Unauthenticated refuses a bearer credential that is unknown,
	// malformed or expired (401, with a WWW-Authenticate challenge). A
	// call without a credential is anonymous, never refused so.
	Unauthenticated Code = "unauthenticated"
	// RateLimited refuses a call beyond its caller's rate limit (429,
	// with Retry-After): the call was not run, and may be sent again
	// once the wait has passed.
	RateLimited Code = "rate_limited"
)

// HTTPStatus maps an error code to its HTTP status; it is the one place
// where that mapping lives.
func HTTPStatus(c Code) int {
	switch c {
	case InvalidRequest:
		return http.StatusBadRequest
	case ContextNotFound:
		return http.StatusNotFound
	case ContextChanged:
		return http.StatusConflict
	case ContextUnavailable:
		return http.StatusServiceUnavailable
	case Unauthenticated:
		return http.StatusUnauthorized
	case RateLimited:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// StatusOf returns the HTTP status of err: the status an *Error in its
// chain carries, else its code's (HTTPStatus), else 500.
func StatusOf(err error) int {
	var e *Error
	if !errors.As(err, &e) {
		return http.StatusInternalServerError
	}
	if e.Status != 0 {
		return e.Status
	}
	return HTTPStatus(e.Code)
}

// Error is a refusal in the contract's vocabulary. Detail is a sentence
// safe to show the caller: it never holds a query's words.
type Error struct {
	Code   Code
	Detail string
	// Status, where not 0, overrides HTTPStatus(Code): a body over the
	// size bound is invalid_request answered 413.
	Status int
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Detail }

// Errorf returns an *Error with a formatted detail.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the contract code of err: the code of an *Error in its
// chain, or Internal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Identity is the caller as the dispatcher resolved it. The zero value is
// the anonymous caller.
type Identity struct {
	// Credential is the first 12 hex digits of the SHA-256 of the bearer
	// credential presented; empty for anonymous callers. It names a
	// credential in records without holding it.
	Credential string
	// Account is the account the credential belongs to.
	Account string
	// Application names the calling application, where known.
	Application string
	// Profiles are the product profiles the caller's account holds.
	Profiles []string
	// Admin marks an operator's credential.
	Admin bool
}

// Anonymous reports whether the identity carries no credential.
func (i Identity) Anonymous() bool { return i.Credential == "" && i.Account == "" }

// HasProfile reports whether the identity holds the named product profile.
func (i Identity) HasProfile(p string) bool {
	for _, q := range i.Profiles {
		if q == p {
			return true
		}
	}
	return false
}

type identityKey struct{}

// WithIdentity returns a context carrying the caller's identity.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity a context carries, or the anonymous one.
func IdentityFrom(ctx context.Context) Identity {
	id, _ := ctx.Value(identityKey{}).(Identity)
	return id
}

// Page is one page of a tree as ingest recorded it.
type Page struct {
	// Path is the page path the manifest lists, such as "guides/errors".
	Path string `json:"path"`
	// Route is the page's route, such as "/cloud/guides/errors/".
	Route string `json:"route"`
	// Title is the front matter title, else one derived from the path.
	Title string `json:"title"`
	// Description is the front matter description, possibly empty.
	Description string `json:"description,omitempty"`
}

// Slug returns the route without its base path and without leading or
// trailing slashes: "/cloud/guides/errors/" gives "guides/errors".
func (p Page) Slug(tree string) string {
	s := p.Route[len("/"+tree):]
	for len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// Heading is one ATX heading of a page copy, outside fenced code.
type Heading struct {
	Depth  int    `json:"depth"`
	Text   string `json:"text"`
	Offset int    `json:"offset"`
	// Anchor is the anchor the page sets for the heading (an attribute
	// list's id); "" where the outline derives it from Text.
	Anchor string `json:"anchor,omitempty"`
}

// RouteOf returns the route of page path p in tree: "index" is the home
// route "/<tree>/", "x/index" is "/<tree>/x/", anything else "/<tree>/p/".
func RouteOf(tree, p string) string {
	switch {
	case p == "index":
		return "/" + tree + "/"
	case len(p) > len("/index") && p[len(p)-len("/index"):] == "/index":
		return "/" + tree + "/" + p[:len(p)-len("/index")] + "/"
	}
	return "/" + tree + "/" + p + "/"
}

// LinkTarget writes a route (with an optional "#anchor") as the target of
// a Markdown link, as composed indexes, outlines and search answers write
// it: as it is, or, where it holds a space, a parenthesis or an angle
// bracket, between angle brackets with the brackets inside escaped, so the
// link stays one valid CommonMark link and reads back as the route.
func LinkTarget(route string) string {
	if !strings.ContainsAny(route, " ()<>") {
		return route
	}
	r := strings.NewReplacer("<", `\<`, ">", `\>`)
	return "<" + r.Replace(route) + ">"
}

// TreeSummary is what a front end tells a caller first of one tree it may
// read: its name, title, description and number of pages in the served
// version.
type TreeSummary struct {
	Name        string
	Title       string
	Description string
	Pages       int
}
