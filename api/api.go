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
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/internal/jsonwire"
)

// Dispatcher is what the HTTP front end needs of the dispatcher.
type Dispatcher interface {
	Call(ctx context.Context, name string, args map[string]any) (any, error)
	Refuse(ctx context.Context, name string, err error) error
	Authenticate(ctx context.Context) (context.Context, error)
	Action(name string) *dispatch.Action
}

var _ Dispatcher = (*dispatch.Dispatcher)(nil)

// Options configure the HTTP front end.
type Options struct {
	// BodyLimit bounds a request body, as echo's size strings ("1M").
	BodyLimit string
	// Health reports, for /healthz, the served version's name ("" for
	// none) and why the active version is not served (nil where it is).
	Health func() (serving string, fault error)
	// Logger receives access log lines; nil means slog.Default().
	Logger *slog.Logger
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
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			code := tzctx.InvalidRequest
			switch he.Code {
			case http.StatusNotFound, http.StatusMethodNotAllowed:
				code = tzctx.ContextNotFound
			case http.StatusRequestEntityTooLarge:
				// Refused before the dispatcher saw the call, and still
				// recorded.
				tooLarge := &tzctx.Error{Code: tzctx.InvalidRequest, Detail: "the request body is over the size bound of " + opts.BodyLimit, Status: he.Code}
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
	e.Use(accessLog(log))
	e.Use(recoverPanics(log))
	e.Use(middleware.BodyLimit(opts.BodyLimit))
	e.GET("/healthz", func(c echo.Context) error {
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
	})
	e.POST("/api/v1/actions/:name", func(c echo.Context) error {
		ctx, ok := caller(c, d)
		if !ok {
			return nil
		}
		args, err := bodyArgs(c.Request().Body)
		if err != nil {
			writeError(c, d.Refuse(ctx, c.Param("name"), err))
			return nil
		}
		return call(ctx, c, d, args)
	})
	e.GET("/api/v1/actions/:name", func(c echo.Context) error {
		ctx, ok := caller(c, d)
		if !ok {
			return nil
		}
		a := d.Action(c.Param("name"))
		args, err := queryArgs(c.Request().URL.RawQuery, a)
		if err != nil {
			writeError(c, d.Refuse(ctx, c.Param("name"), err))
			return nil
		}
		return call(ctx, c, d, args)
	})
	return e
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
	ctx := dispatch.WithTransport(r.Context(), dispatch.TransportHTTP)
	// The admin actions need the console header, which a form cannot send.
	ctx = dispatch.WithConsoleHeader(ctx, r.Header.Get(dispatch.ConsoleHeader) == dispatch.ConsoleHeaderValue)
	bearer, err := dispatch.Bearer(r.Header.Values("Authorization"))
	if err != nil {
		return ctx, err
	}
	if bearer != "" {
		ctx = dispatch.WithCredential(ctx, bearer)
	}
	return ctx, nil
}

func call(ctx context.Context, c echo.Context, d Dispatcher, args map[string]any) error {
	res, err := d.Call(ctx, c.Param("name"), args)
	if err != nil {
		writeError(c, err)
		return nil
	}
	return writeJSON(c, http.StatusOK, res)
}

// bodyArgs decodes a POST body: one JSON object, numbers kept as written.
func bodyArgs(body io.Reader) (map[string]any, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body could not be read")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body is not valid JSON; send one JSON object")
	}
	if dec.More() {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body holds more than one JSON value; send one JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "the request body must be a JSON object")
	}
	return m, nil
}

// canonical reports whether s is a canonical unsigned decimal,
// ^(0|[1-9][0-9]*)$: no sign, leading zero or spaces.
func canonical(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxSafe is 2^53-1, the largest integer every JSON client holds exactly.
const maxSafe = 1<<53 - 1

// queryArgs turns GET parameters into arguments: each parameter
// once; integer members only as canonical unsigned decimals; strings
// verbatim after the one URL decode.
func queryArgs(raw string, a *dispatch.Action) (map[string]any, error) {
	args := map[string]any{}
	if raw == "" {
		return args, nil
	}
	ints := map[string]bool{}
	if a != nil {
		ints = integerMembersOf(a)
	}
	for _, kv := range strings.Split(raw, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		// One URL decode; '+' is a space, as forms and curl write it.
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "the query string is not validly percent-encoded")
		}
		if _, dup := args[key]; dup {
			return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s is given more than once; give each member once", safeName(key))
		}
		if ints[key] {
			n, err := strconv.ParseUint(val, 10, 64)
			if !canonical(val) || err != nil || n > maxSafe {
				return nil, tzctx.Errorf(tzctx.InvalidRequest, "parameter %s must be an unsigned decimal integer such as 8000, with no sign, leading zero or spaces", key)
			}
			args[key] = json.Number(val)
			continue
		}
		args[key] = val
	}
	return args, nil
}

// safeName bounds a parameter name echoed in a detail.
func safeName(k string) string {
	if len(k) > 40 || strings.ContainsAny(k, " \t\r\n") {
		return "(a parameter)"
	}
	return strconv.Quote(k)
}

// integers caches integerMembers by action: a request schema does not
// change once its action is registered.
var integers sync.Map // *dispatch.Action to map[string]bool

// integerMembersOf returns integerMembers of a's request schema, read
// once per action. The map returned is shared and only read.
func integerMembersOf(a *dispatch.Action) map[string]bool {
	if m, ok := integers.Load(a); ok {
		return m.(map[string]bool)
	}
	m := integerMembers(a.Request)
	integers.Store(a, m)
	return m
}

// integerMembers lists the request members whose schema type is integer.
func integerMembers(schema map[string]any) map[string]bool {
	out := map[string]bool{}
	props, _ := schema["properties"].(map[string]any)
	defs, _ := schema["$defs"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		if ref, ok := pm["$ref"].(string); ok {
			pm, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		if pm["type"] == "integer" {
			out[name] = true
		}
	}
	return out
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
func writeJSON(c echo.Context, status int, v any) error {
	bp := answerBufs.Get().(*[]byte)
	defer putAnswerBuf(bp)
	b, err := jsonwire.Append((*bp)[:0], v)
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

// recoverPanics answers a request whose handling panicked with the
// contract's envelope and a 500, and logs the panic without the caller's
// words (dispatch.PanicText).
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					log.Error("request panicked", "path", c.Request().URL.Path, "panic", dispatch.PanicText(p), "stack", string(debug.Stack()))
					writeError(c, tzctx.Errorf(tzctx.Internal, "the server failed to answer; try again"))
					err = nil
				}
			}()
			return next(c)
		}
	}
}

// accessLog logs method, path, status and duration: never the query
// string.
func accessLog(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			log.LogAttrs(context.Background(), slog.LevelInfo, "http",
				slog.String("method", c.Request().Method), slog.String("path", c.Request().URL.Path),
				slog.Int("status", c.Response().Status), slog.Int64("ms", time.Since(start).Milliseconds()))
			return nil
		}
	}
}
