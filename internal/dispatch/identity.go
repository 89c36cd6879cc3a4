package dispatch

import (
	"context"
	"crypto/subtle"
	"log/slog"

	"github.com/turnzerocloud/tzctx"
)

// StaticResolver resolves bearer credentials from a fixed table, as the
// server's configuration file lists them. No credential is anonymous; an
// unknown one is refused.
type StaticResolver map[string]tzctx.Identity

var _ Resolver = StaticResolver(nil)

// Resolve implements Resolver.
func (s StaticResolver) Resolve(_ context.Context, bearer string) (tzctx.Identity, error) {
	if bearer == "" {
		return tzctx.Identity{}, nil
	}
	for tok, id := range s {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(bearer)) == 1 {
			return id, nil
		}
	}
	return tzctx.Identity{}, tzctx.Errorf(tzctx.InvalidRequest, "the bearer credential is not known; send a configured credential, or none to read as an anonymous caller")
}

// LogRecorder writes each record as a structured log line. Records never
// hold a query's words: handlers give bare markers as subjects.
type LogRecorder struct{ Logger *slog.Logger }

var _ Recorder = LogRecorder{}

// Record implements Recorder.
func (l LogRecorder) Record(ctx context.Context, r Record) {
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	code := string(r.Code)
	if code == "" {
		code = "ok"
	}
	log.LogAttrs(ctx, slog.LevelInfo, "call",
		slog.String("action", r.Action), slog.String("subject", r.Subject), slog.String("code", code),
		slog.String("credential", r.Credential), slog.String("application", r.Application),
		slog.Int64("us", r.Duration.Microseconds()))
}
