// Package dispatch is the one action dispatcher under every front end:
// the HTTP API and MCP. It registers actions, as package actions
// constructs them, each checked against the served contract; it validates
// a call's arguments against the action's request schema, resolves the
// caller, runs the handler, maps errors to the contract's vocabulary and
// records the call. It is all a front end calls through: the answers it
// returns are typed (Chunk, CatalogPage). The served texts the front ends
// offer beside the actions (the contract set's entries, the tools'
// descriptions) are not its: each front end declares what it reads of
// them (mcp.Texts).
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Handler runs one action. It returns the result and the record subject
// (never a query's words), also where it refuses.
type Handler func(ctx context.Context, args map[string]any) (result any, subject string, err error)

// Action is one action, as its constructor returns it and the dispatcher
// registers it.
type Action struct {
	// Action is the action as the served contract defines it: its name,
	// its enumeration entry (resource, tier, access, summary,
	// annotations), its contract description and its request and
	// response schemas. Register refuses an action whose definition is
	// not the contract's, so front ends may read it from here.
	schemas.Action
	Handle Handler
	// RefusedSubject gives the record subject of a call refused before
	// the handler ran, from its raw arguments; nil records none.
	RefusedSubject func(args map[string]any) string

	// checks are the compiled checks of the request schema, its tree
	// member enumerating the trees served when they were compiled
	// (withTreeEnum); validate compiles them again where the trees
	// served have changed since (a ServeAll reader's follow the served
	// version).
	checks atomic.Pointer[requestChecks]
	// contractRequest is the request schema as the contract defines it,
	// which each compilation narrows to the trees served.
	contractRequest map[string]any
	// trees says the request's tree member enumerates the configured
	// trees (withTreeEnum), which a refusal of it does not list
	// (treeChoices).
	trees bool
}

// requestChecks are an action's compiled request checks for one set of
// trees served.
type requestChecks struct {
	names  []string
	schema *jsonschema.Schema
	quick  *quickCheck // nil where the request schema is beyond its subset
}

// compileChecks compiles the checks of a's request schema with its tree
// member enumerating names.
func (a *Action) compileChecks(names []string) (*requestChecks, error) {
	request := withTreeEnum(a.contractRequest, names)
	raw, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "urn:tzctx:action:" + a.Name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("action %s: request schema: %w", a.Name, err)
	}
	return &requestChecks{names: names, schema: schema, quick: compileQuick(request)}, nil
}

// Admin reports whether the action answers admin callers alone (its
// access is schemas.AccessAdmin): an operator action, which the
// dispatcher admits admin callers to and MCP offers no tool of.
func (a *Action) Admin() bool { return a.Access == schemas.AccessAdmin }

// Contract is the served contract the dispatcher registers actions
// against; *schemas.Contract is one.
type Contract interface {
	Action(name string) (schemas.Action, error)
}

var _ Contract = (*schemas.Contract)(nil)

// Errors of Register, beside the contract's schemas.ErrUnknownAction.
var (
	ErrDefinitionDrift = errors.New("the action's definition differs from the contract's")
	ErrDuplicateAction = errors.New("an action of that name is registered already")
	ErrNoHandler       = errors.New("the action has no handler")
)

// Served is what an answer tells its record: the site version it was read
// from and the code points it served.
type Served interface {
	Served() (version string, codePoints int)
}

// finish fills a record's outcome from err and sends it.
func (d *Dispatcher) finish(ctx context.Context, rec *tzctx.Record, id tzctx.Identity, err error) {
	rec.Transport = tzctx.TransportFrom(ctx)
	rec.Credential, rec.Account, rec.Application = id.Credential, id.Account, id.Application
	rec.Code, rec.Status = tzctx.OK, 200
	if err != nil {
		rec.Code, rec.Status = string(tzctx.ErrorCode(err)), tzctx.StatusOf(err)
	}
	if w, ok := ctx.Value(wholeKey{}).(*wholeRecord); ok {
		// A chunk of a whole read: ReadWhole records the read once.
		w.add(*rec)
		return
	}
	if d.recorder != nil {
		d.recorder.Record(ctx, *rec)
	}
}

// Dispatcher routes calls to actions.
type Dispatcher struct {
	contract Contract
	actions  map[string]*Action
	resolver tzctx.Resolver
	recorder tzctx.Recorder
	trees    Trees
	// treeTexts holds what the configuration says of each tree beside
	// its name (WithTreeTexts).
	treeTexts map[string]TreeText
}

// Option gives a dispatcher what it reads beside its contract, resolver
// and recorder. Options are New's inputs alone: a dispatcher has no
// setter, so what a front end reads of it is fixed before the front end
// can be built over it.
type Option func(*Dispatcher)

// WithTrees has the dispatcher answer Trees, TreeNames, Pages and
// Summary from t, and the titles TreeText adds where t is also a
// TreeTitles. Without it they answer the contract's trees.
func WithTrees(t Trees) Option { return func(d *Dispatcher) { d.trees = t } }

// WithTreeTexts gives the dispatcher each configured tree's title and
// description by name, for the front ends that show them (MCP's
// resource descriptions and tree member); a tree left out has neither.
func WithTreeTexts(texts map[string]TreeText) Option {
	return func(d *Dispatcher) { d.treeTexts = maps.Clone(texts) }
}

// New returns a dispatcher that registers actions against contract, with
// the given resolver and recorder and what opts give it.
func New(contract Contract, resolver tzctx.Resolver, recorder tzctx.Recorder, opts ...Option) *Dispatcher {
	d := &Dispatcher{contract: contract, actions: map[string]*Action{}, resolver: resolver, recorder: recorder}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Register adds an action, compiling its request schema. It refuses an
// action the contract lacks (an error wrapping schemas.ErrUnknownAction
// that names the file lacking it), one whose definition differs from the
// contract's (ErrDefinitionDrift), a second action of one name
// (ErrDuplicateAction) and one without a handler (ErrNoHandler).
func (d *Dispatcher) Register(a *Action) error {
	want, err := d.contract.Action(a.Name)
	if err != nil {
		return fmt.Errorf("register action %s: %w", a.Name, err)
	}
	switch {
	case !reflect.DeepEqual(a.Action, want):
		return fmt.Errorf("register action %s: %w", a.Name, ErrDefinitionDrift)
	case a.Handle == nil:
		return fmt.Errorf("register action %s: %w", a.Name, ErrNoHandler)
	case d.actions[a.Name] != nil:
		return fmt.Errorf("register action %s: %w", a.Name, ErrDuplicateAction)
	}
	// The tree member names the trees served (withTreeEnum).
	names := d.TreeNames()
	a.contractRequest = a.Request
	a.Request = withTreeEnum(a.Request, names)
	a.trees = hasTreeEnum(a.Request)
	c, err := a.compileChecks(names)
	if err != nil {
		return err
	}
	a.checks.Store(c)
	d.actions[a.Name] = a
	return nil
}

// Actions returns the registered actions by name.
func (d *Dispatcher) Actions() []*Action {
	out := make([]*Action, 0, len(d.actions))
	for _, a := range d.actions {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Action returns the named action, or nil.
func (d *Dispatcher) Action(name string) *Action { return d.actions[name] }

type resolvedKey struct{}

// resolved is a credential resolved once for one request: the identity
// it names, or the resolver's refusal of it.
type resolved struct {
	bearer string
	id     tzctx.Identity
	err    error
}

// Authenticate resolves the bearer credential ctx carries, for a front end
// that checks the credential before it reads the request, and returns a
// context carrying the answer, which the request's call and front end take
// rather than resolving again: one request, one check (an OIDC token's
// may fetch the issuer's keys, and a second check could answer otherwise
// than the first). Its error is the resolver's refusal, which the
// returned context carries too; the front end records it with Refuse.
func (d *Dispatcher) Authenticate(ctx context.Context) (context.Context, error) {
	if d.resolver == nil {
		return ctx, nil
	}
	bearer := tzctx.BearerFrom(ctx)
	if r, ok := ctx.Value(resolvedKey{}).(resolved); ok && r.bearer == bearer {
		// Resolved already for this request (by the rate limiter).
		return ctx, r.err
	}
	id, err := d.resolver.Resolve(ctx, bearer)
	return context.WithValue(tzctx.WithCredential(ctx, bearer), resolvedKey{}, resolved{bearer, id, err}), err
}

// WithResolved returns a context carrying the bearer credential and the
// identity a front end resolved it to with the dispatcher's resolver, so
// the request's calls resolve it no further.
func WithResolved(ctx context.Context, bearer string, id tzctx.Identity) context.Context {
	return context.WithValue(tzctx.WithCredential(ctx, bearer), resolvedKey{}, resolved{bearer: bearer, id: id})
}

// Resolved returns the answer Authenticate or WithResolved gave for
// bearer on this request: ok is false where ctx carries none for it, and
// err is the resolver's refusal where it refused the credential.
func Resolved(ctx context.Context, bearer string) (id tzctx.Identity, ok bool, err error) {
	r, ok := ctx.Value(resolvedKey{}).(resolved)
	if !ok || r.bearer != bearer {
		return tzctx.Identity{}, false, nil
	}
	return r.id, true, r.err
}

// resolve resolves the credential of ctx, taking the answer the request
// already has where it resolved the same credential.
func (d *Dispatcher) resolve(ctx context.Context) (tzctx.Identity, error) {
	bearer := tzctx.BearerFrom(ctx)
	if id, ok, err := Resolved(ctx, bearer); ok {
		return id, err
	}
	return d.resolver.Resolve(ctx, bearer)
}

// Call runs the named action with args, a JSON object decoded with
// json.Decoder.UseNumber (or built from GET parameters the same way).
func (d *Dispatcher) Call(ctx context.Context, name string, args map[string]any) (result any, err error) {
	start := time.Now()
	rec := tzctx.Record{Time: start, Action: d.recordedName(name)}
	id := tzctx.Identity{}
	defer func() {
		if p := recover(); p != nil {
			// The panic value may hold request data: only a runtime
			// error's text (indexes and types) and the stack, which holds
			// no string contents, are logged.
			slog.Error("action panicked", "action", rec.Action, "panic", PanicText(p), "stack", string(debug.Stack()))
			result, err = nil, tzctx.Errorf(tzctx.Internal, "the server failed to answer; try again")
		}
		if s, ok := result.(Served); ok && err == nil {
			rec.Version, rec.CodePoints = s.Served()
		}
		rec.Duration = time.Since(start)
		d.finish(ctx, &rec, id, err)
	}()
	a := d.actions[name]
	bearer := tzctx.BearerFrom(ctx)
	if d.resolver != nil {
		var rerr error
		if id, rerr = d.resolve(ctx); rerr != nil {
			// The record names the credential presented, never the
			// credential itself.
			id = tzctx.Identity{Credential: tzctx.CredentialPrefix(bearer)}
			if a != nil && a.RefusedSubject != nil {
				rec.Subject = a.RefusedSubject(args)
			}
			return nil, rerr
		}
	}
	if a == nil {
		return nil, tzctx.Errorf(tzctx.ContextNotFound, "no action %s; the actions are %s", quoteBounded(name), strings.Join(d.names(), ", "))
	}
	ctx = tzctx.WithIdentity(ctx, id)
	if args == nil {
		args = map[string]any{}
	}
	refusedSubject := func() string {
		if a.RefusedSubject == nil {
			return ""
		}
		return a.RefusedSubject(args)
	}
	if a.Admin() {
		// Checked on every call, ahead of the arguments: a caller that
		// may not call the action learns nothing of them.
		if err := admitAdmin(ctx, id); err != nil {
			rec.Subject = refusedSubject()
			return nil, err
		}
	}
	if err := a.validate(d, args, func() ([]string, error) { return d.Trees(ctx) }); err != nil {
		rec.Subject = refusedSubject()
		return nil, err
	}
	result, rec.Subject, err = a.Handle(ctx, args)
	if err != nil {
		var te *tzctx.Error
		if !errors.As(err, &te) {
			slog.Error("action failed", "action", name, "error", err.Error())
			err = tzctx.Errorf(tzctx.Internal, "the server failed to answer; try again")
		}
		return nil, err
	}
	return result, nil
}

type consoleHeaderKey struct{}

// ConsoleHeader is the request header an admin action needs, with the
// value ConsoleHeaderValue: an HTML form cannot send it, so a page of
// another site cannot make an admin's browser call the action (CSRF).
const (
	ConsoleHeader      = "X-Tzctx-Console"
	ConsoleHeaderValue = "1"
)

// WithConsoleHeader returns a context saying whether the request carried
// ConsoleHeader with ConsoleHeaderValue; an HTTP front end sets it from
// the request's headers. A context without it carried none.
func WithConsoleHeader(ctx context.Context, present bool) context.Context {
	return context.WithValue(ctx, consoleHeaderKey{}, present)
}

// admitAdmin refuses an admin action's call unless its caller holds an
// admin credential and the request carried ConsoleHeader: no credential
// is unauthenticated (401), a credential that is not admin or a request
// without the header invalid_request with status 403.
func admitAdmin(ctx context.Context, id tzctx.Identity) error {
	switch {
	case id.Anonymous():
		return tzctx.Errorf(tzctx.Unauthenticated, "this action needs an admin credential; send one as \"Authorization: Bearer <credential>\" (tzctx token new --admin makes one)")
	case !id.Admin:
		return &tzctx.Error{Code: tzctx.InvalidRequest, Status: 403, Detail: "this action needs an admin credential"}
	}
	if present, _ := ctx.Value(consoleHeaderKey{}).(bool); !present {
		return &tzctx.Error{Code: tzctx.InvalidRequest, Status: 403, Detail: "this action needs the request header " + ConsoleHeader + ": " + ConsoleHeaderValue + ", which guards it against cross-site requests; send it with the call"}
	}
	return nil
}

// validate runs the checks of args against the action's request schema,
// integer literals first, its tree member enumerating the trees d
// serves now; its error wraps ErrSchema. A refusal of the tree member
// names the trees trees gives, where the member enumerates the
// configured trees.
func (a *Action) validate(d *Dispatcher, args map[string]any, trees treeChoices) error {
	if err := checkIntegers(args); err != nil {
		return err
	}
	c := a.checks.Load()
	if a.trees {
		if names := d.TreeNames(); !slices.Equal(names, c.names) {
			nc, err := a.compileChecks(names)
			if err != nil {
				return err
			}
			a.checks.Store(nc)
			c = nc
		}
	}
	if c.quick != nil && c.quick.valid(args) {
		return nil // proven valid; the validator would say so too
	}
	if err := c.schema.Validate(any(args)); err != nil {
		if !a.trees {
			trees = nil
		}
		return schemaError(err, trees)
	}
	return nil
}

// Check runs the schema checks Call runs ahead of the handler, for a
// front end that must answer a schema violation before the call is
// dispatched (MCP's -32602 up to protocol version 2025-06-18, A-26). It
// returns nil where Call would go on to the handler, and where the action
// is unknown or an admin action (whose caller Call checks first), leaving
// that to Call; nil args are no members, as in Call. A violation is
// recorded as Call records it, with the subject the arguments give and
// the caller's credential subject where the credential resolves, and its
// error wraps ErrSchema.
func (d *Dispatcher) Check(ctx context.Context, name string, args map[string]any) error {
	a := d.actions[name]
	if a == nil || a.Admin() {
		// An admin action's caller is checked before its arguments, by
		// Call.
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	start := time.Now()
	// The caller is resolved once, and only where the arguments are
	// refused: for the record, and for the trees a refusal of the tree
	// member names.
	caller := sync.OnceValues(func() (tzctx.Identity, error) {
		if d.resolver == nil {
			return tzctx.Identity{}, nil
		}
		return d.resolve(ctx)
	})
	err := a.validate(d, args, func() ([]string, error) {
		// A credential refused reads as none: an anonymous caller's
		// trees.
		id, err := caller()
		if err != nil {
			id = tzctx.Identity{}
		}
		return d.Trees(tzctx.WithIdentity(ctx, id))
	})
	if err == nil {
		return nil
	}
	rec := tzctx.Record{Time: start, Action: name}
	if a.RefusedSubject != nil {
		rec.Subject = a.RefusedSubject(args)
	}
	id, rerr := caller()
	if rerr != nil {
		bearer := tzctx.BearerFrom(ctx)
		id = tzctx.Identity{Credential: tzctx.CredentialPrefix(bearer)}
	}
	rec.Duration = time.Since(start)
	d.finish(ctx, &rec, id, err)
	return err
}

// PanicText describes a recovered panic value without its data: a
// runtime error's text, which names indexes and types, or else the value's
// type alone, since a value a handler panicked with may hold the caller's
// words.
func PanicText(p any) string {
	if re, ok := p.(runtime.Error); ok {
		return re.Error()
	}
	if err, ok := p.(error); ok {
		var re runtime.Error
		if errors.As(err, &re) {
			return re.Error()
		}
	}
	return fmt.Sprintf("a value of type %T", p)
}

// Refuse records a call a front end refused before it could build the
// arguments (a body that is not JSON, a malformed GET parameter or
// Authorization header), and returns err: every call is recorded,
// refusals included.
func (d *Dispatcher) Refuse(ctx context.Context, name string, err error) error {
	bearer := tzctx.BearerFrom(ctx)
	rec := tzctx.Record{Time: time.Now(), Action: d.recordedName(name)}
	id := tzctx.Identity{Credential: tzctx.CredentialPrefix(bearer)}
	// A credential refused already is not resolved again: an OIDC
	// token's check may fetch the issuer's keys.
	if d.resolver != nil && bearer != "" && tzctx.ErrorCode(err) != tzctx.Unauthenticated {
		if rid, rerr := d.resolve(ctx); rerr == nil {
			id = rid
		}
	}
	d.finish(ctx, &rec, id, err)
	return err
}

// recordedName is the action name a record holds: a registered action's
// name, never caller text that names none.
func (d *Dispatcher) recordedName(name string) string {
	if _, ok := d.actions[name]; ok {
		return name
	}
	return "(unknown action)"
}

// quoteBounded quotes a short plain caller-given name for a detail, and
// describes any other instead of echoing it (tzctx.EchoedName).
func quoteBounded(s string) string {
	if tzctx.PlainName(s) {
		return fmt.Sprintf("%q", s)
	}
	return tzctx.EchoedName(s)
}

// names are the names of the registered actions a refusal may offer any
// caller: the admin actions are left out.
func (d *Dispatcher) names() []string {
	var out []string
	for _, a := range d.Actions() {
		if !a.Admin() {
			out = append(out, a.Name)
		}
	}
	return out
}

// checkIntegers refuses numbers that are not integer literals: the
// schema's "integer" would accept 1.0.
func checkIntegers(args map[string]any) error {
	for k, v := range args {
		if n, ok := v.(json.Number); ok && strings.ContainsAny(string(n), ".eE") {
			return violation(tzctx.Errorf(tzctx.InvalidRequest, "member %s must be an integer literal such as 8000", tzctx.EchoedName(k)))
		}
	}
	return nil
}
