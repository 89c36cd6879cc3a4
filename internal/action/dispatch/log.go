package dispatch

import (
	"context"
	"log/slog"
)

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
	log.LogAttrs(ctx, slog.LevelInfo, "call",
		slog.String("action", r.Action), slog.String("transport", r.Transport), slog.String("subject", r.Subject),
		slog.String("code", r.Code), slog.Int("status", r.Status),
		slog.String("credential", r.Credential), slog.String("account", r.Account), slog.String("application", r.Application),
		slog.String("version", r.Version), slog.Int("code_points", r.CodePoints),
		slog.Int64("us", r.Duration.Microseconds()))
}
