package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
)

// Dispatcher is what the MCP front end needs of the dispatcher: its call
// pipeline and what it tells of the trees served. Package server, which
// builds the front end, checks that its dispatcher is one.
type Dispatcher interface {
	Caller
	TreeReader
}

// Caller is the dispatcher's call pipeline as the MCP front end calls
// it: a tool's or a resource's call, checked, refused or read whole, and
// the registered actions it offers tools of.
type Caller interface {
	Call(ctx context.Context, name string, args map[string]any) (any, error)
	Check(ctx context.Context, name string, args map[string]any) error
	Refuse(ctx context.Context, name string, err error) error
	// ReadWhole reads a text to its end as one recorded call.
	ReadWhole(ctx context.Context, name string, args map[string]any, limit int) (text, mimeType string, err error)
	Actions() []*dispatch.Action
}

// TreeReader is what the MCP front end reads of the trees served, for
// the caller of each request: the lists, the resources' descriptions,
// the completions and the instructions.
type TreeReader interface {
	// Trees gives the documentation trees the caller of ctx can read in
	// the served version, which a tool's tree enumeration lists.
	Trees(ctx context.Context) ([]string, error)
	// TreeNames gives every configured tree, in order, which the
	// resource templates' descriptions name as registered; each
	// resources/templates/list names the caller's trees (templatesFor).
	TreeNames() []string
	// TreeText gives what the configuration says of a tree beside its
	// name, which its resources' descriptions and the tree member's
	// description show.
	TreeText(tree string) dispatch.TreeText
	// Pages gives the pages of a tree the caller of ctx may read in the
	// served version, which completions offer, recorded as a read of
	// the tree's index.
	Pages(ctx context.Context, tree string) ([]tzctx.Page, error)
	// Summary gives what is served to the caller of ctx: each tree it
	// may read with its title, description and page count, and whether
	// the served version holds a library entry it may read; which the
	// instructions say first, and which offers the library's tools.
	Summary(ctx context.Context) ([]tzctx.TreeSummary, bool, error)
}

// errorEnvelope is the schema of the contract's error envelope, the
// structured content of a refused call. The output schema of every tool
// admits it beside the answer, since clients validate structured content
// against the output schema even where isError is set.
var errorEnvelope = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"error": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"code":   map[string]any{"enum": []any{string(tzctx.InvalidRequest), string(tzctx.ContextNotFound), string(tzctx.ContextChanged), string(tzctx.ContextUnavailable), string(tzctx.Internal), string(tzctx.Unauthenticated)}},
				"detail": map[string]any{"type": "string"},
			},
			"required":             []any{"code", "detail"},
			"additionalProperties": false,
		},
	},
	"required":             []any{"error"},
	"additionalProperties": false,
}

// outputSchema returns the tool's output schema: an object that is either
// the action's response or the error envelope, the response's $defs
// lifted to the root where it has any.
func outputSchema(response map[string]any) (json.RawMessage, error) {
	answer := map[string]any{}
	for k, v := range response {
		answer[k] = v
	}
	out := map[string]any{"type": "object", "anyOf": []any{answer, errorEnvelope}}
	if defs, ok := answer["$defs"]; ok {
		delete(answer, "$defs")
		out["$defs"] = defs
	}
	return marshal(out)
}

// ActionTool returns the MCP tool of one registered action and its
// handler, which calls the action through d. The tool's description is
// the action's contract description, its input schema the action's
// request schema, its output schema the response's or the error
// envelope's, and its annotations the enumeration's.
func ActionTool(d Dispatcher, a *dispatch.Action) (mcpgo.Tool, server.ToolHandlerFunc, error) {
	in, err := marshal(a.Request)
	if err != nil {
		return mcpgo.Tool{}, nil, fmt.Errorf("tool %s: input schema: %w", a.Name, err)
	}
	if a.Request["type"] != "object" || a.Response["type"] != "object" {
		return mcpgo.Tool{}, nil, fmt.Errorf("tool %s: MCP needs object schemas at the root of the request and the response", a.Name)
	}
	out, err := outputSchema(a.Response)
	if err != nil {
		return mcpgo.Tool{}, nil, fmt.Errorf("tool %s: output schema: %w", a.Name, err)
	}
	tool := mcpgo.NewToolWithRawSchema(a.Name, a.Description, in)
	tool.RawOutputSchema = out
	tool.Title = toolTitle(a.Name)
	tool.Annotations = mcpgo.ToolAnnotation{
		// Clients of protocol versions before 2025-06-18 show the
		// annotations' title; later ones the tool's.
		Title:           tool.Title,
		ReadOnlyHint:    mcpgo.ToBoolPtr(a.Annotations.ReadOnly),
		DestructiveHint: mcpgo.ToBoolPtr(a.Annotations.Destructive),
		IdempotentHint:  mcpgo.ToBoolPtr(a.Annotations.Idempotent),
		OpenWorldHint:   mcpgo.ToBoolPtr(a.Annotations.OpenWorld),
	}
	name := a.Name
	handle := func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		args, err := arguments(req)
		if err != nil {
			return violationResult(d.Refuse(ctx, name, err)), nil
		}
		res, err := d.Call(ctx, name, args)
		if err != nil {
			return refusalResult(err), nil
		}
		return answerResult(ctx, res)
	}
	return tool, handle, nil
}

// toolTitles are what a client shows a person for each tool: the
// contract names the actions but gives them no display title.
var toolTitles = map[string]string{
	"list_context":         "List the served context",
	"read_context":         "Read a catalog entry",
	"read_documentation":   "Read or search the documentation",
	"search_documentation": "Answer a question from the documentation",
}

// toolTitle is the display title of the action's tool; an action without
// one in toolTitles shows its name, its underscores spaces.
func toolTitle(name string) string {
	if t, ok := toolTitles[name]; ok {
		return t
	}
	return strings.ReplaceAll(name, "_", " ")
}

// errNotObject is the schema violation of arguments that are no object.
var errNotObject = tzctx.Errorf(tzctx.InvalidRequest, "the arguments must be a JSON object; see the tool's input schema")

// arguments decodes a call's arguments as HTTP decodes a body, numbers
// kept as written; none is no members.
func arguments(req mcpgo.CallToolRequest) (map[string]any, error) {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		if req.Params.Arguments == nil {
			return nil, nil
		}
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return nil, errNotObject
		}
	}
	return decodeArgs(raw)
}

// decodeArgs decodes a JSON object of arguments with json.Number
// numbers; null is no members. As HTTP refuses such a body, it refuses
// arguments that give a member twice or hold text that is not valid
// UTF-8 (a lone surrogate escape included), which encoding/json would
// read as the last value or as U+FFFD.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if err := dispatch.StrictArgs(raw, "the arguments"); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, errNotObject
	}
	return args, nil
}

// answerResult is a successful call's result: the answer, as HTTP's body
// holds it, as structured content, and a text an agent reads directly.
// Over streamable HTTP it is the placeholder whose place the answer's
// JSON, encoded here once, takes in the reply (splice).
func answerResult(ctx context.Context, res any) (*mcpgo.CallToolResult, error) {
	if r, err := splice(ctx, res); r != nil || err != nil {
		return r, err
	}
	raw, err := marshal(res)
	if err != nil {
		return nil, err
	}
	text := answerText(res, raw)
	return &mcpgo.CallToolResult{
		Content:              []mcpgo.Content{mcpgo.NewTextContent(text)},
		StructuredContent:    raw,
		RawStructuredContent: raw,
	}, nil
}

// refusalResult is a refused call's result: isError, the
// contract's error envelope as structured content and its detail as text.
// A schema violation is violationResult's instead.
func refusalResult(err error) *mcpgo.CallToolResult {
	if errors.Is(err, dispatch.ErrSchema) {
		return violationResult(err)
	}
	te := contractError(err)
	env, mErr := marshal(map[string]any{"error": map[string]any{"code": string(te.Code), "detail": te.Detail}})
	if mErr != nil {
		return violationResult(err)
	}
	return &mcpgo.CallToolResult{
		IsError:              true,
		Content:              []mcpgo.Content{mcpgo.NewTextContent(te.Detail)},
		StructuredContent:    env,
		RawStructuredContent: env,
	}
}

// violationResult is a schema violation's result from protocol version
// 2025-11-25 on: a tool execution error whose text says which
// member breaks which rule, with no envelope, since the plane's
// invalid_request envelope is HTTP's shape for it, not MCP's.
func violationResult(err error) *mcpgo.CallToolResult {
	return &mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{mcpgo.NewTextContent(contractError(err).Detail)}}
}

// contractError returns err's *tzctx.Error, or the internal refusal.
func contractError(err error) *tzctx.Error {
	var te *tzctx.Error
	if errors.As(err, &te) {
		return te
	}
	return tzctx.Errorf(tzctx.Internal, "the server failed to answer; try again")
}

// marshal encodes v as HTTP's writeJSON does (jsonwire), without HTML
// escaping and without the trailing newline.
func marshal(v any) (json.RawMessage, error) {
	return jsonwire.Append(nil, v)
}
