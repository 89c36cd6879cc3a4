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
	attrs := []slog.Attr{
		slog.String("action", r.Action), slog.String("transport", r.Transport), slog.String("subject", r.Subject),
		slog.String("code", r.Code), slog.Int("status", r.Status),
		slog.String("credential", r.Credential), slog.String("account", r.Account), slog.String("application", r.Application),
	}
	// A refusal served no version's text: its line names no version,
	// rather than version="".
	if r.Version != "" {
		attrs = append(attrs, slog.String("version", r.Version))
	}
	attrs = append(attrs, slog.Int("code_points", r.CodePoints), slog.Int64("us", r.Duration.Microseconds()))
	log.LogAttrs(ctx, slog.LevelInfo, "call", attrs...)
}
