package dispatch

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/schemas"
)

// countingResolver counts the resolutions it answers.
type countingResolver struct {
	oneToken
	n atomic.Int64
}

func (c *countingResolver) Resolve(ctx context.Context, bearer string) (tzctx.Identity, error) {
	c.n.Add(1)
	return c.oneToken.Resolve(ctx, bearer)
}

// testChunk is a chunk of a text the test action pages.
type testChunk struct {
	text, stamp string
	next        *int
}

func (c testChunk) Chunk() (string, string, string, *int) {
	return c.text, "text/plain", c.stamp, c.next
}

// TestReadWholeResolvesTheCallerOnce: a whole read of a text of several
// chunks resolves the caller's credential once, not once a chunk, every
// chunk served to the identity it resolved to, and a refused credential
// ends the read at its first chunk.
func TestReadWholeResolvesTheCallerOnce(t *testing.T) {
	read := schemas.Action{Entry: schemas.Entry{Name: "read", Summary: "Read."}, Request: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"limit": map[string]any{"type": "integer"}, "offset": map[string]any{"type": "integer"}, "stamp": map[string]any{"type": "string"},
		},
		"additionalProperties": false,
	}}
	res := &countingResolver{oneToken: oneToken{"tok": {Credential: "alice", Account: "acme"}}}
	d := New(fakeContract{"read": read}, res, &memRecorder{})
	const text = "abcdefghij"
	if err := d.Register(&Action{Action: read, Handle: func(ctx context.Context, args map[string]any) (any, string, error) {
		if tzctx.IdentityFrom(ctx).Account != "acme" {
			return nil, "t", tzctx.Errorf(tzctx.Unauthenticated, "not the caller")
		}
		off := 0
		if o, ok := args["offset"].(json.Number); ok {
			n, _ := o.Int64()
			off = int(n)
		}
		end := min(off+3, len(text))
		c := testChunk{text: text[off:end], stamp: "s"}
		if end < len(text) {
			c.next = &end
		}
		return c, "t", nil
	}}); err != nil {
		t.Fatal(err)
	}
	got, _, err := d.ReadWhole(tzctx.WithCredential(context.Background(), "tok"), "read", nil, 3)
	if err != nil || got != text {
		t.Fatalf("ReadWhole = %q, %v; want %q", got, err, text)
	}
	if n := res.n.Load(); n != 1 {
		t.Errorf("a whole read of 4 chunks resolved the caller %d times, want once", n)
	}
	res.n.Store(0)
	if _, _, err := d.ReadWhole(tzctx.WithCredential(context.Background(), "unknown"), "read", nil, 3); tzctx.ErrorCode(err) != tzctx.Unauthenticated {
		t.Errorf("a refused credential's whole read: %v, want unauthenticated", err)
	}
	if n := res.n.Load(); n != 1 {
		t.Errorf("a refused credential was resolved %d times, want once", n)
	}
}
