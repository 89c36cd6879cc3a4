package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
)

// A tool call's answer over streamable HTTP is encoded once, by the tool
// handler, as HTTP's body is: mcp-go would encode the result's text and
// structured content again, twice over (CallToolResult.MarshalJSON, then
// its Encoder compacting that), escaping every <, > and & as \u003c. So
// the handler hands mcp-go a placeholder result, whose JSON is known, and
// the answer's own JSON waits in the request's answerSlot; answerWriter,
// the ResponseWriter mcp-go writes to, puts the answer where the
// placeholder's JSON stands. mcp-go serves the call as it serves any other
// (session, tool filter, recovery, cancellation, the reply's framing as
// JSON or an event stream); only the result's bytes are the handler's.
// Only legacy (session) requests are spliced: for protocol version
// 2026-07-28 on, mcp-go adds members to the result (resultType, _meta),
// and such a result is encoded by mcp-go whole.

// answerSlot holds the JSON of one tool call's result, as the handler
// encoded it, until the reply is written.
type answerSlot struct {
	mu   sync.Mutex
	used bool
	body []byte
}

type answerSlotKey struct{}

// withAnswerSlot returns ctx carrying a slot for the answer of the tools/call
// the request holds.
func withAnswerSlot(ctx context.Context, s *answerSlot) context.Context {
	return context.WithValue(ctx, answerSlotKey{}, s)
}

// placeholderText is the placeholder result's text: random, so that no
// caller can make an answer hold it.
var placeholderText = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "tzctx-answer-" + hex.EncodeToString(b[:])
}()

// placeholderJSON is the placeholder result as mcp-go encodes it.
var placeholderJSON = func() []byte {
	b, err := json.Marshal(placeholder())
	if err != nil {
		panic(err)
	}
	return b
}()

func placeholder() *mcpgo.CallToolResult {
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(placeholderText)}}
}

// splice encodes the result of res, whose text content is answerText's,
// into ctx's slot, as mcp-go encodes a CallToolResult but without HTML
// escaping, and returns the placeholder result for mcp-go to answer; nil
// where ctx has no slot, or its slot is used. The answer is encoded once,
// as the structured content; a text read's chunk, which opens the text
// content, is copied from there already escaped.
func splice(ctx context.Context, res any) (*mcpgo.CallToolResult, error) {
	s, _ := ctx.Value(answerSlotKey{}).(*answerSlot)
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used {
		return nil, nil
	}
	s.used = true
	rawp := answerBufs.Get().(*[]byte)
	raw, err := jsonwire.Append((*rawp)[:0], res)
	if err != nil {
		return nil, err
	}
	// CallToolResult.MarshalJSON's members, in its order (a map's:
	// sorted), and TextContent's.
	b := (*answerBufs.Get().(*[]byte))[:0]
	b = slices.Grow(b, 2*len(raw)+1024)
	b = append(b, `{"content":[{"type":"text","text":`...)
	tc, ok := res.(dispatch.TextChunk)
	var chunk []byte
	if ok && string(raw) != "null" {
		chunk = lastTextMember(raw)
	}
	if chunk != nil {
		// The escaped chunk without its closing quote, then the members
		// escaped without their opening one: JSON escapes each character
		// on its own, so this is the whole text's escaping.
		b = append(b, chunk[:len(chunk)-1]...)
		n := len(b)
		b = jsonwire.AppendString(b, string(appendMembers(nil, tc)))
		b = append(b[:n], b[n+1:]...)
	} else {
		b = jsonwire.AppendString(b, answerText(res, raw))
	}
	b = append(b, `}],"structuredContent":`...)
	b = append(b, raw...)
	s.body = append(b, '}')
	*rawp = raw
	putAnswerBuf(rawp)
	return placeholder(), nil
}

// textKey is how a text read's JSON names its chunk: the text member,
// which A-19 places last.
const textKey = `,"text":`

// lastTextMember returns the JSON string, quotes included, of raw's last
// member where it is the text member; nil where it is not. It looks for
// the first member named text that is not its object's first, as fast
// as memory is read: a text read's answer has no other (a heading's
// text opens its entry), and were the one found not the last member,
// the rest of raw would hold a quote unescaped.
func lastTextMember(raw []byte) []byte {
	i := bytes.Index(raw, []byte(textKey))
	if i < 0 || !bytes.HasSuffix(raw, []byte(`"}`)) || len(raw)-1-(i+len(textKey)) < 2 || raw[i+len(textKey)] != '"' {
		return nil
	}
	str := raw[i+len(textKey) : len(raw)-1]
	// One JSON string: every quote inside it escaped.
	in := str[1 : len(str)-1]
	for j := 0; ; {
		k := bytes.IndexByte(in[j:], '"')
		if k < 0 {
			return str
		}
		p, n := j+k, 0
		for q := p - 1; q >= 0 && in[q] == '\\'; q-- {
			n++
		}
		if n%2 == 0 {
			return nil
		}
		j = p + 1
	}
}

// answer returns the slot's result JSON, nil where the handler kept none.
func (s *answerSlot) answer() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body
}

// written gives the slot's buffer back once its answer is written.
func (s *answerSlot) written() {
	s.mu.Lock()
	b := s.body
	s.body = nil
	s.mu.Unlock()
	if b != nil {
		putAnswerBuf(&b)
	}
}

// putAnswerBuf gives a buffer back to answerBufs unless it is over
// maxPooledAnswer.
func putAnswerBuf(b *[]byte) {
	if cap(*b) <= maxPooledAnswer {
		answerBufs.Put(b)
	}
}

// answerBufs hold the buffers answers are encoded into, as the HTTP API's
// do; maxPooledAnswer bounds those kept, so that one large answer (a
// tree's whole text) does not stay in memory.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

const maxPooledAnswer = 256 << 10

// answerWriter is the ResponseWriter of a request whose tools/call answer
// may be spliced: where a write holds the placeholder's JSON, the answer
// is written in its place. A reply of JSON is held until that write, so
// that it goes out with its length rather than chunked.
type answerWriter struct {
	http.ResponseWriter
	slot   *answerSlot
	status int // held by WriteHeader until the first write
}

func (w *answerWriter) WriteHeader(code int) {
	if w.status == 0 && w.Header().Get("Content-Type") == "application/json" {
		w.status = code
		return
	}
	w.release()
	w.ResponseWriter.WriteHeader(code)
}

// release writes a held status.
func (w *answerWriter) release() {
	if w.status != 0 {
		code := w.status
		w.status = 0
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *answerWriter) Write(p []byte) (int, error) {
	if ans := w.slot.answer(); ans != nil {
		if i := bytes.Index(p, placeholderJSON); i >= 0 {
			if w.status != 0 {
				w.Header().Set("Content-Length", strconv.Itoa(len(p)-len(placeholderJSON)+len(ans)))
			}
			w.release()
			defer w.slot.written()
			// One write, so that the reply leaves in as few segments as
			// HTTP's body.
			out := answerBufs.Get().(*[]byte)
			reply := append(append(append((*out)[:0], p[:i]...), ans...), p[i+len(placeholderJSON):]...)
			_, err := w.ResponseWriter.Write(reply)
			*out = reply
			putAnswerBuf(out)
			if err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	w.release()
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on, a held status first, as an event stream's
// answer needs.
func (w *answerWriter) Flush() {
	w.release()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
