package records_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

// BenchmarkRecord measures what a durable record adds to a call: one
// JSON line appended with one write, against the baseline of the log line
// every call already writes (to a discarding handler, so the baseline is
// the formatting alone) and of no recorder at all.
func BenchmarkRecord(b *testing.B) {
	rec := tzctx.Record{Time: time.Now(), Action: "read_documentation", Transport: tzctx.TransportHTTP,
		Subject: "docs:cloud:search", Code: tzctx.OK, Status: 200, Credential: "0123456789ab", Account: "acme",
		Application: "docs-agent", Version: "20261201-f36ceaf1f43a", CodePoints: 4559, Duration: 310 * time.Microsecond}
	ctx := context.Background()
	b.Run("none", func(b *testing.B) {
		var r tzctx.Recorder = tzctx.Recorders{}
		for b.Loop() {
			r.Record(ctx, rec)
		}
	})
	b.Run("log", func(b *testing.B) {
		r := tzctx.LogRecorder{Logger: slog.New(slog.NewTextHandler(discard{}, nil))}
		for b.Loop() {
			r.Record(ctx, rec)
		}
	})
	b.Run("durable", func(b *testing.B) {
		w, err := records.Open(b.TempDir(), records.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		for b.Loop() {
			w.Record(ctx, rec)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
