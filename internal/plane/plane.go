// Package plane assembles the served-context plane: the limits and wire
// shapes from the embedded schemas, the reader over the store, and the
// dispatcher with every action registered. Every front end (HTTP, MCP)
// calls the dispatcher it returns.
package plane

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/turnzerocloud/tzctx/internal/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Limits reads the limits of the embedded schemas/served_context.json.
func Limits() (query.Limits, error) {
	var idx struct {
		Limits query.Limits `json:"limits"`
	}
	raw, err := schemas.FS.ReadFile("served_context.json")
	if err != nil {
		return idx.Limits, err
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return idx.Limits, fmt.Errorf("served_context.json: %w", err)
	}
	return idx.Limits, nil
}

// Payloads is the parsed schemas/action_payloads.json.
type Payloads struct {
	ContractVersion int                      `json:"contract_version"`
	Defs            map[string]any           `json:"$defs"`
	Actions         map[string]ActionPayload `json:"actions"`
}

// ActionPayload is one action's summary and wire shapes.
type ActionPayload struct {
	Summary  string         `json:"summary"`
	Request  map[string]any `json:"request"`
	Response map[string]any `json:"response"`
}

// LoadPayloads reads the embedded schemas/action_payloads.json.
func LoadPayloads() (*Payloads, error) {
	raw, err := schemas.FS.ReadFile("action_payloads.json")
	if err != nil {
		return nil, err
	}
	var p Payloads
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("action_payloads.json: %w", err)
	}
	return &p, nil
}

// Request returns an action's request schema as one self-contained
// document: the shared shapes it references travel under $defs.
func (p *Payloads) Request(action string) map[string]any {
	req := map[string]any{}
	for k, v := range p.Actions[action].Request {
		req[k] = v
	}
	req["$defs"] = p.Defs
	return req
}

// New returns the dispatcher with read_documentation and read_context
// registered over reader.
func New(reader *query.Reader, resolver dispatch.Resolver, recorder dispatch.Recorder) (*dispatch.Dispatcher, error) {
	p, err := LoadPayloads()
	if err != nil {
		return nil, err
	}
	limits, err := Limits()
	if err != nil {
		return nil, err
	}
	d := dispatch.New(resolver, recorder)
	handlers := map[string]dispatch.Handler{
		"read_documentation": func(ctx context.Context, args map[string]any) (any, string, error) {
			var req query.DocRequest
			if err := dispatch.Bind(args, &req); err != nil {
				return nil, "docs:", err
			}
			return reader.ReadDocumentation(ctx, req)
		},
		"read_context": func(ctx context.Context, args map[string]any) (any, string, error) {
			var req query.ContextRequest
			if err := dispatch.Bind(args, &req); err != nil {
				return nil, "", err
			}
			return reader.ReadContext(ctx, req)
		},
	}
	refused := map[string]func(map[string]any) string{
		"read_documentation": query.RefusedDocSubject,
		"read_context": func(args map[string]any) string {
			return query.RefusedContextSubject(args, limits.IDMaxLength)
		},
	}
	for name, h := range handlers {
		if _, ok := p.Actions[name]; !ok {
			return nil, fmt.Errorf("action_payloads.json has no action %s", name)
		}
		if err := d.Register(&dispatch.Action{Name: name, Summary: p.Actions[name].Summary, Request: p.Request(name), Handle: h, RefusedSubject: refused[name]}); err != nil {
			return nil, err
		}
	}
	return d, nil
}
