package mcp

import (
	"context"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx"
)

// toolErrorsFrom is the first protocol version that reports a tool
// call's invalid arguments as a tool execution error (SEP-1303); before
// it, they are the JSON-RPC error -32602.
const toolErrorsFrom = "2025-11-25"

// precheck answers, for a session whose negotiated protocol version is
// older than toolErrorsFrom, a tools/call whose arguments break the
// tool's input schema: with the JSON-RPC error -32602 whose message is
// the dispatcher's detail, the call recorded as the dispatcher records a
// refusal. mcp-go answers a handler's error with -32603 only, so the
// check runs ahead of it, on the raw message. It returns nil for every
// other message, which mcp-go then handles. Before it, on any version,
// guard answers what mcp-go would answer at a cost or echoing the
// caller's text.
func (s *Server) precheck(ctx context.Context, raw []byte, version string) []byte {
	if b := s.guard(ctx, raw); b != nil {
		return b
	}
	if version == "" || version >= toolErrorsFrom {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method != string(mcpgo.MethodToolsCall) || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	a := s.actions[m.Params.Name]
	if a == nil || !(a.Access == "anonymous" || !tzctx.IdentityFrom(ctx).Anonymous()) {
		return nil // mcp-go refuses a tool it does not list
	}
	args, err := decodeArgs(m.Params.Arguments)
	if err != nil {
		err = s.d.Refuse(ctx, a.Name, err)
	} else if err = s.d.Check(ctx, a.Name, args); err == nil {
		return nil
	}
	out, mErr := json.Marshal(map[string]any{
		"jsonrpc": mcpgo.JSONRPC_VERSION,
		"id":      m.ID,
		"error":   map[string]any{"code": mcpgo.INVALID_PARAMS, "message": contractError(err).Detail},
	})
	if mErr != nil {
		return nil
	}
	return out
}

// sessionVersion returns the protocol version a session negotiated, ""
// where it is unknown.
func (s *Server) sessionVersion(id string) string {
	v, _ := s.versions.Load(id)
	str, _ := v.(string)
	return str
}
