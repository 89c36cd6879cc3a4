package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// WholeRestarts bounds how often ReadWhole starts a read again after the
// text changed under it (context_changed).
const WholeRestarts = 3

// wholeKey carries, in a whole read's context, the record its chunk
// calls fill instead of recording each.
type wholeKey struct{}

// wholeRecord is what a whole read's chunk calls tell its one record:
// the last call's record, and the code points served since the read last
// started over.
type wholeRecord struct {
	rec        tzctx.Record
	calls      int
	codePoints int
}

// add takes one chunk call's record.
func (w *wholeRecord) add(rec tzctx.Record) {
	w.calls++
	w.rec = rec
	if rec.Code == tzctx.OK {
		w.codePoints += rec.CodePoints
	} else {
		w.codePoints = 0
	}
}

// ReadWhole reads a text to its end through the named action
// (read_context or read_documentation) with args, in chunks of limit
// code points, as a front end that serves a text whole needs it (an MCP
// resource or prompt): each chunk is a Call, validated, resolved and
// gated as any, and a text that changes between chunks is read again
// from its start, at most WholeRestarts times. The read is one call to
// the records: one record, of the action and its subject, the outcome of
// its last chunk, the code points of the text served and the whole
// read's duration, where a Call per chunk would record each. The caller
// is resolved once, as for one request.
func (d *Dispatcher) ReadWhole(ctx context.Context, name string, args map[string]any, limit int) (text, mimeType string, err error) {
	start := time.Now()
	// The caller is resolved once for the whole read, not once a chunk;
	// a refusal is carried to the first chunk's call, which records it.
	ctx, _ = d.Authenticate(ctx)
	w := &wholeRecord{}
	text, mimeType, err = d.readWhole(context.WithValue(ctx, wholeKey{}, w), name, args, limit)
	if w.calls == 0 || d.recorder == nil {
		return text, mimeType, err
	}
	rec := w.rec
	rec.Time, rec.Duration = start, time.Since(start)
	rec.CodePoints = 0
	if rec.Code == tzctx.OK {
		rec.CodePoints = w.codePoints
	}
	d.recorder.Record(ctx, rec)
	return text, mimeType, err
}

// readWhole is ReadWhole's paging, its calls recorded into ctx's
// wholeRecord.
func (d *Dispatcher) readWhole(ctx context.Context, name string, args map[string]any, limit int) (string, string, error) {
	var err error
	for range WholeRestarts {
		var b strings.Builder
		call := map[string]any{"limit": json.Number(strconv.Itoa(limit))}
		for k, v := range args {
			call[k] = v
		}
		for {
			var res any
			if res, err = d.Call(ctx, name, call); err != nil {
				break
			}
			chunk, ok := res.(Chunk)
			if !ok {
				return "", "", fmt.Errorf("%s answered %T, not a chunk of text", name, res)
			}
			text, mime, stamp, next := chunk.Chunk()
			b.WriteString(text)
			if next == nil {
				return b.String(), mime, nil
			}
			call["offset"] = json.Number(strconv.Itoa(*next))
			call["stamp"] = stamp
		}
		if tzctx.ErrorCode(err) != tzctx.ContextChanged {
			break
		}
	}
	return "", "", err
}
