// Package api is the HTTP front end: POST /api/v1/actions/<action> with a
// JSON body and GET with query parameters, both answered through the one
// dispatcher, plus /healthz. Access logs name the path alone, never the
// query string, which may hold a query's words.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	units "github.com/labstack/gommon/bytes"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/leaf/hold"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Dispatcher is what the HTTP front end needs of the dispatcher. Package
// server, which builds the front end, checks that its dispatcher is one.
type Dispatcher interface {
	Call(ctx context.Context, name string, args map[string]any) (any, error)
	Refuse(ctx context.Context, name string, err error) error
	Authenticate(ctx context.Context) (context.Context, error)
	Action(name string) *dispatch.Action
}

// Options configure the HTTP front end.
type Options struct {
	// BodyLimit bounds a request body, as echo's size strings ("1M").
	BodyLimit string
	// Health reports, for /healthz, the served version's name ("" for
	// none) and why the active version is not served (nil where it is).
	Health func() (serving string, fault error)
	// Logger receives access log lines; nil means slog.Default().
	Logger *slog.Logger
	// Chained says the listener serving the front end puts every request
	// through Chain already (tzctx serve's does, around every route), so
	// New adds no chain of its own: a request passes one access log, one
	// recovery and one body bound.
	Chained bool
	// AnswerCacheBytes bounds the JSON string forms of answered texts
	// kept for the next reads of the same text (textcache.go); 0 keeps
	// none.
	AnswerCacheBytes int64
}

// New returns the echo server answering the plane's actions.
func New(d Dispatcher, opts Options) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	if opts.BodyLimit == "" {
		opts.BodyLimit = "1M"
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	limit, err := units.Parse(opts.BodyLimit)
	if err != nil {
		panic("api: the body limit " + strconv.Quote(opts.BodyLimit) + " is not a size such as 1M or 1048576B")
	}
	tooLarge := tooLargeError(opts.BodyLimit)
	texts := newTextCache(opts.AnswerCacheBytes)
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			code := tzctx.InvalidRequest
			switch he.Code {
			case http.StatusNotFound:
				code = tzctx.ContextNotFound
			case http.StatusMethodNotAllowed:
				if name, ok := strings.CutPrefix(c.Request().URL.Path, "/api/v1/actions/"); ok {
					refuseMethod(c, d, name)
					return
				}
				// A probe answers GET and HEAD alone.
				c.Response().Header().Set(echo.HeaderAllow, "GET, HEAD")
				writeError(c, &tzctx.Error{Code: tzctx.InvalidRequest, Detail: "this path answers GET and HEAD alone", Status: http.StatusMethodNotAllowed})
				return
			case http.StatusRequestEntityTooLarge:
				// Refused before the dispatcher saw the call, and still
				// recorded.
				if name, ok := strings.CutPrefix(c.Request().URL.Path, "/api/v1/actions/"); ok {
					ctx, _ := callContext(c.Request())
					_ = d.Refuse(ctx, name, tooLarge)
				}
				writeError(c, tooLarge)
				return
			}
			_ = writeJSON(c, tzctx.HTTPStatus(code), envelope(code, strings.ToLower(http.StatusText(he.Code))+"; the actions answer at /api/v1/actions/<action>"))
			return
		}
		writeError(c, err)
	}
	if !opts.Chained {
		e.Use(echo.WrapMiddleware(func(h http.Handler) http.Handler { return Chain(h, log, limit) }), answerErrors)
	}
	e.Use(overLength(limit))
	healthz := func(c echo.Context) error {
		if opts.Health == nil {
			return writeJSON(c, http.StatusOK, map[string]any{"status": "ok"})
		}
		name, fault := opts.Health()
		switch {
		case name == "":
			detail := "no version is served; ingest a site, or run 'tzctx activate NAME'"
			if fault != nil {
				detail = fault.Error()
			}
			return writeJSON(c, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "detail": detail})
		case fault != nil:
			// Served, but the version the pointer names was refused.
			return writeJSON(c, http.StatusOK, map[string]any{"status": "degraded", "version": name, "detail": fault.Error()})
		}
		return writeJSON(c, http.StatusOK, map[string]any{"status": "ok", "version": name})
	}
	// HEAD answers a probe as GET would, without the body.
	e.GET("/healthz", healthz)
	e.HEAD("/healthz", healthz)
	// An action is a recorded call: every other method, HEAD included,
	// is refused 405 and recorded. OPTIONS is listed so that echo does
	// not answer it 204 itself.
	e.Match([]string{http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions, http.MethodTrace, http.MethodConnect},
		"/api/v1/actions/:name", func(c echo.Context) error {
			refuseMethod(c, d, c.Param("name"))
			return nil
		})
	e.POST("/api/v1/actions/:name", func(c echo.Context) error {
		ctx, ok := caller(c, d)
		if !ok {
			return nil
		}
		args, err := bodyArgs(c.Request().Body, tooLarge)
		if err != nil {
			writeError(c, d.Refuse(ctx, c.Param("name"), err))
			return nil
		}
		return call(ctx, c, d, args, texts)
	})
	e.GET("/api/v1/actions/:name", func(c echo.Context) error {
		ctx, ok := caller(c, d)
		if !ok {
			return nil
		}
		a := d.Action(c.Param("name"))
		if a != nil && a.Access == schemas.AccessAdmin {
			// An operator action changes what is served: it answers
			// POST alone, never a URL a link or an image can fetch.
			refuseMethod(c, d, a.Name)
			return nil
		}
		args, err := queryArgs(c.Request().URL.RawQuery, a)
		if err != nil {
			writeError(c, d.Refuse(ctx, c.Param("name"), err))
			return nil
		}
		return call(ctx, c, d, args, texts)
	})
	return e
}

// refuseMethod answers and records a request to an action by a method
// other than GET and POST.
func refuseMethod(c echo.Context, d Dispatcher, name string) {
	ctx, _ := callContext(c.Request())
	if a := d.Action(name); a != nil && a.Access == schemas.AccessAdmin {
		c.Response().Header().Set(echo.HeaderAllow, "POST")
		writeError(c, d.Refuse(ctx, name, &tzctx.Error{Code: tzctx.InvalidRequest, Status: http.StatusMethodNotAllowed,
			Detail: "an operator action answers POST with a JSON object body alone, not " + methodName(c.Request().Method)}))
		return
	}
	c.Response().Header().Set(echo.HeaderAllow, "GET, POST")
	writeError(c, d.Refuse(ctx, name, &tzctx.Error{Code: tzctx.InvalidRequest, Status: http.StatusMethodNotAllowed,
		Detail: "an action answers POST with a JSON object body or GET with query parameters, not " + methodName(c.Request().Method)}))
}

// methodName is a request's method as a detail names it: the standard
// methods by name, and any other described.
func methodName(m string) string {
	switch m {
	case http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return m
	}
	return "this method"
}

// tooLargeError is the refusal of a body over the bound limit, echo's
// size string ("1048576B" or "1M"), whether the request gave its length
// or sent it chunked.
func tooLargeError(limit string) *tzctx.Error {
	bound := limit
	if n, err := strconv.ParseInt(strings.TrimSuffix(limit, "B"), 10, 64); err == nil {
		bound = strconv.FormatInt(n, 10) + " bytes"
	}
	return &tzctx.Error{Code: tzctx.InvalidRequest, Status: http.StatusRequestEntityTooLarge,
		Detail: "the request body is over the size bound of " + bound + "; send a smaller body"}
}

// caller returns the request's context naming its transport and the bearer
// credential its Authorization header carries. A header that is not a
// bearer credential is refused unauthenticated, recorded, and answered
// here (ok false).
func caller(c echo.Context, d Dispatcher) (context.Context, bool) {
	ctx, err := callContext(c.Request())
	if err == nil {
		// The credential is checked before the body is read, as /mcp
		// checks it: an unknown one is refused 401 whatever the body.
		ctx, err = d.Authenticate(ctx)
	}
	if err != nil {
		writeError(c, d.Refuse(ctx, c.Param("name"), err))
		return ctx, false
	}
	return ctx, true
}

// callContext is r's context naming the transport and the bearer
// credential, with the refusal of a malformed Authorization header.
func callContext(r *http.Request) (context.Context, error) {
	ctx := tzctx.WithTransport(r.Context(), tzctx.TransportHTTP)
	// The admin actions need the console header, which a form cannot send.
	ctx = dispatch.WithConsoleHeader(ctx, r.Header.Get(dispatch.ConsoleHeader) == dispatch.ConsoleHeaderValue)
	bearer, err := tzctx.Bearer(r.Header.Values("Authorization"))
	if err != nil {
		return ctx, err
	}
	if bearer != "" {
		ctx = tzctx.WithCredential(ctx, bearer)
	}
	return ctx, nil
}

// call answers the call of the action the path names. The answer may
// borrow the served version's stored text rather than copy it (package
// hold): the version is held until the answer is encoded.
func call(ctx context.Context, c echo.Context, d Dispatcher, args map[string]any, texts *textCache) error {
	h := holders.Get().(*hold.Holder)
	defer func() {
		h.Release()
		holders.Put(h)
	}()
	res, err := d.Call(hold.With(ctx, h), c.Param("name"), args)
	if err != nil {
		writeError(c, err)
		return nil
	}
	return writeHeld(c, http.StatusOK, res, h, texts)
}

// holders are the Holders of calls: one a call, released once its
// answer is encoded.
var holders = sync.Pool{New: func() any { return new(hold.Holder) }}

// bodyArgs decodes a POST body: one JSON object, numbers kept as written,
// each member name once in its object and every string valid UTF-8
// (strictjson). A body over the bound is refused with tooLarge.
func bodyArgs(body io.Reader, tooLarge *tzctx.Error) (map[string]any, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			// Over the bound Chain sets, with a length or chunked.
			return nil, tooLarge
		}
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body could not be read")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	if err := dispatch.StrictArgs(raw, "the request body"); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body is not valid JSON; send one JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body must be a JSON object")
	}
	return m, nil
}

// maxSafe is 2^53-1, the largest integer every JSON client holds exactly.
const maxSafe = 1<<53 - 1

// queryArgs turns GET parameters into arguments: each parameter
// once, and only members of a's request; integer members only as
// canonical unsigned decimals; strings verbatim after the one URL decode,
// which must leave valid UTF-8. A refusal names a parameter that is not a
// member by its position alone: it may be words of a value whose "&" was
// not encoded. Where a is nil (no such action) the parameters are not
// read: the dispatcher refuses the call.
func queryArgs(raw string, a *dispatch.Action) (map[string]any, error) {
	args := map[string]any{}
	if raw == "" || a == nil {
		return args, nil
	}
	m := membersOf(a)
	pos := 0
	for _, kv := range strings.Split(raw, "&") {
		if kv == "" {
			continue
		}
		pos++
		k, v, _ := strings.Cut(kv, "=")
		// One URL decode; '+' is a space, as forms and curl write it.
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "the name of parameter %d of the query string is not validly percent-encoded", pos)
		}
		if !m.names[key] {
			if !utf8.ValidString(key) {
				return nil, tzctx.Errorf(tzctx.InvalidRequest, "the name of parameter %d of the query string is not valid UTF-8 once percent-decoded; the members of %s are %s", pos, a.Name, m.list)
			}
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %d of the query string names no member of %s, whose members are %s; a literal & in a value must be sent as %%26", pos, a.Name, m.list)
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s is not validly percent-encoded", key)
		}
		if !utf8.ValidString(val) {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s is not valid UTF-8 once percent-decoded; send text as UTF-8, percent-encoded", key)
		}
		if _, dup := args[key]; dup {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s is given more than once; give each member once", key)
		}
		if m.ints[key] {
			n, err := strconv.ParseUint(val, 10, 64)
			if strings.HasPrefix(val, "-") || !dispatch.IntegerLiteral(val) || err != nil || n > maxSafe {
				return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s must be an unsigned decimal integer such as 8000, with no sign, leading zero or spaces", key)
			}
			args[key] = json.Number(val)
			continue
		}
		args[key] = val
	}
	return args, nil
}

// members are the members of an action's request, as GET reads them.
type members struct {
	names map[string]bool
	ints  map[string]bool // the members of schema type integer
	list  string          // the names, sorted, for a detail
}

// memberCache caches members by action: a request schema does not change
// once its action is registered.
var memberCache sync.Map // *dispatch.Action to *members

// membersOf returns the members of a's request schema, read once per
// action. What it returns is shared and only read.
func membersOf(a *dispatch.Action) *members {
	if m, ok := memberCache.Load(a); ok {
		return m.(*members)
	}
	m := requestMembers(a.Request)
	memberCache.Store(a, m)
	return m
}

// requestMembers lists the request members, and those whose schema type
// is integer.
func requestMembers(schema map[string]any) *members {
	m := &members{names: map[string]bool{}, ints: map[string]bool{}}
	props, _ := schema["properties"].(map[string]any)
	defs, _ := schema["$defs"].(map[string]any)
	var list []string
	for name, p := range props {
		m.names[name] = true
		list = append(list, name)
		pm, _ := p.(map[string]any)
		if ref, ok := pm["$ref"].(string); ok {
			pm, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		if pm["type"] == "integer" {
			m.ints[name] = true
		}
	}
	sort.Strings(list)
	m.list = strings.Join(list, ", ")
	if m.list == "" {
		m.list = "none"
	}
	return m
}

func envelope(code tzctx.Code, detail string) map[string]any {
	return map[string]any{"error": map[string]any{"code": string(code), "detail": detail}}
}

func writeError(c echo.Context, err error) {
	var te *tzctx.Error
	if !errors.As(err, &te) {
		te = tzctx.Errorf(tzctx.Internal, "the server failed to answer; try again")
	}
	if te.Code == tzctx.Unauthenticated {
		c.Response().Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	_ = writeJSON(c, tzctx.StatusOf(te), envelope(te.Code, te.Detail))
}

// writeJSON writes v without HTML escaping, so texts read back as written,
// as encoding/json's Encoder writes it (jsonwire's bytes are its bytes).
func writeJSON(c echo.Context, status int, v any) error { return writeHeld(c, status, v, nil, nil) }

// writeHeld is writeJSON of an answer that may borrow what h holds: h,
// where not nil, is released once v is encoded, before the write, which
// may wait on the client. A text read's text is taken from texts, where
// not nil.
func writeHeld(c echo.Context, status int, v any, h *hold.Holder, texts *textCache) error {
	bp := answerBufs.Get().(*[]byte)
	defer putAnswerBuf(bp)
	b, err := texts.appendAnswer((*bp)[:0], v)
	if h != nil {
		h.Release()
	}
	if err != nil {
		return err
	}
	b = append(b, '\n')
	*bp = b
	// A length, not a chunked body: the answer is whole before it is
	// written.
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	return c.Blob(status, echo.MIMEApplicationJSON, b)
}

// answerBufs holds the buffers answers are encoded into: the write is
// done with a buffer once writeJSON returns.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxPooledAnswer bounds the buffers kept for reuse, so one large answer
// (a tree's whole text) does not stay in memory.
const maxPooledAnswer = 256 << 10

func putAnswerBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledAnswer {
		answerBufs.Put(bp)
	}
}

// overLength refuses a request whose Content-Length is over the bound
// Chain sets, whose body Chain does not let be read, before the handler
// reads its credential or body: answered 413 and recorded as every
// refusal of the API is (the HTTP error handler).
func overLength(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().ContentLength > limit {
				return echo.ErrStatusRequestEntityTooLarge
			}
			return next(c)
		}
	}
}

// answerErrors answers an error a handler or echo's router returns
// (an unknown path, a method a path does not answer) within the chain
// that wraps it, so Chain's access log names the status answered.
func answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			c.Error(err)
		}
		return nil
	}
}
