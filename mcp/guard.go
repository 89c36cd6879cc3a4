package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
)

// The defaults of the message bounds, where Options leave them out.
const (
	// defaultIDMaxLength is the contract's id_max_length.
	defaultIDMaxLength = 160
	// defaultLineLimit is the default body_limit_bytes.
	defaultLineLimit = 1 << 20
)

// uriSlack is what a resource URI holds beside its ID or route: the
// longest prefix, a tree's name and "/page/", with room to spare.
const uriSlack = 64

// maxMethodEchoed bounds the method name an answer echoes: every MCP
// method is a few plain steps well within it.
const maxMethodEchoed = 64

// msgBounds are the bounds a message is held to before mcp-go reads it.
type msgBounds struct {
	// uriMax bounds a resources/read URI in bytes: an ID or page route
	// of idMax code points, each of up to four bytes path-escaped to
	// three characters apiece, after the longest prefix.
	uriMax int
	// idMax is the contract's id_max_length, which uriMax derives from.
	idMax int
	// lineLimit bounds one stdio message in bytes, as body_limit_bytes
	// bounds an HTTP body.
	lineLimit int64
}

// newMsgBounds returns the bounds opts give, the defaults where they give
// none.
func newMsgBounds(opts Options) msgBounds {
	b := msgBounds{idMax: opts.IDMaxLength, lineLimit: opts.LineLimit}
	if b.idMax <= 0 {
		b.idMax = defaultIDMaxLength
	}
	if b.lineLimit <= 0 {
		b.lineLimit = defaultLineLimit
	}
	b.uriMax = uriSlack + 12*b.idMax
	return b
}

// guard answers, ahead of mcp-go, a message mcp-go would answer at a cost
// or with the caller's text echoed whole, and returns nil for any other:
//   - bytes that are not UTF-8 anywhere in it: -32700, as not valid JSON
//     (mcp-go would read them as U+FFFD and dispatch on the result);
//   - a request whose method no MCP method can be (long or odd): -32601
//     naming it as tzctx.EchoedName names a caller's name, where
//     mcp-go's "Method … not found" would echo it whole;
//   - a resources/read whose URI is over the bound that any ID or page
//     route within id_max_length fits: read by its prefix without
//     mcp-go's template matching, which costs microseconds a byte, so the
//     dispatcher refuses it as the HTTP API does.
//
// A refusal of a call is recorded under the action the message names.
func (s *Server) guard(ctx context.Context, raw []byte) []byte {
	if !utf8.Valid(raw) {
		err := tzctx.Errorf(tzctx.InvalidRequest, "the message is not valid JSON: it holds bytes that are not UTF-8")
		if name := calledAction(raw); name != "" {
			_ = s.d.Refuse(ctx, name, err)
		}
		return rpcErrorMessage(nil, mcpgo.PARSE_ERROR, err.Detail)
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" || m.Method == "" {
		// mcp-go answers what is not JSON, ignores a notification it
		// does not know, and takes a message without a method as an
		// answer to its own request.
		return nil
	}
	if echoed := echoedMethod(m.Method); echoed != m.Method {
		return rpcErrorMessage(m.ID, mcpgo.METHOD_NOT_FOUND, "Method "+echoed+" not found")
	}
	if m.Method == string(mcpgo.MethodResourcesRead) {
		var r struct {
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &r) == nil && len(r.Params.URI) > s.bounds.uriMax {
			return s.readLongURI(ctx, m.ID, r.Params.URI)
		}
	}
	return nil
}

// readLongURI answers a resources/read of a URI over the bound without
// mcp-go's template matching: the template its prefix names reads it,
// which the dispatcher refuses as the HTTP API does (an ID or page route
// over id_max_length). A URI no template's prefix names is refused
// invalid_request naming the bound.
func (s *Server) readLongURI(ctx context.Context, id json.RawMessage, uri string) []byte {
	var read func(context.Context, string) ([]mcpgo.ResourceContents, error)
	if strings.HasPrefix(uri, ContextPrefix) {
		read = s.readContextURI
	} else if rest, ok := strings.CutPrefix(uri, DocsPrefix); ok {
		tree, tail, _ := strings.Cut(rest, "/")
		switch {
		case tail == "outline":
			read = s.readOutlineURI
		case tree != "" && (tail == "page" || strings.HasPrefix(tail, "page/")):
			read = s.readPageURI
		}
	}
	if read == nil {
		err := tzctx.Errorf(tzctx.InvalidRequest, "the resource URI is %d bytes long, over the bound of %d (an ID or page route holds at most %d characters); resources/list and resources/templates/list give the URIs", len(uri), s.bounds.uriMax, s.bounds.idMax)
		_ = s.d.Refuse(ctx, "read_context", err)
		return rpcErrorMessage(id, mcpgo.INTERNAL_ERROR, readError(err).Error())
	}
	contents, err := read(ctx, uri)
	if err != nil {
		// A resource handler's error, as mcp-go answers one.
		return rpcErrorMessage(id, mcpgo.INTERNAL_ERROR, err.Error())
	}
	return encodeRPC(rpcMessage{ID: id, Result: mcpgo.ReadResourceResult{Contents: contents}})
}

// echoedMethod is how an answer names a method the caller sent: itself
// where it is at most maxMethodEchoed bytes and each of its steps is a
// plain name (dispatch.EchoedPath), otherwise its length alone.
func echoedMethod(method string) string {
	if len(method) > maxMethodEchoed {
		return tzctx.EchoedName(method)
	}
	if e := dispatch.EchoedPath(strings.Split(method, "/")); e != method {
		return tzctx.EchoedName(method)
	}
	return method
}

// rpcMessage is a JSON-RPC answer, its members in the usual order.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcErrorBody   `json:"error,omitempty"`
}

// rpcErrorBody is a JSON-RPC error's code and message.
type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcErrorMessage is a JSON-RPC error message for id (null where nil).
func rpcErrorMessage(id json.RawMessage, code int, message string) []byte {
	return encodeRPC(rpcMessage{ID: id, Error: &rpcErrorBody{Code: code, Message: message}})
}

// encodeRPC encodes m, its id null where it has none.
func encodeRPC(m rpcMessage) []byte {
	m.JSONRPC = mcpgo.JSONRPC_VERSION
	if len(m.ID) == 0 {
		m.ID = json.RawMessage("null")
	}
	out, err := json.Marshal(m)
	if err != nil {
		// Only an id that is not JSON fails, and ids come decoded.
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the server failed to answer; try again"}}`)
	}
	return out
}
