// Package schemas embeds the served contract's JSON schemas and reads
// them: the index with its limits (served_context.json), the enumeration
// of actions (actions.json) and the actions' wire shapes
// (action_payloads.json). Every other package takes the contract's bounds,
// metadata and shapes from here; none authors them again.
package schemas

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// FS holds the schema files.
//
//go:embed *.json
var FS embed.FS

// The schema files, as FS names them.
const (
	IndexFile       = "served_context.json"
	EnumerationFile = "actions.json"
	PayloadsFile    = "action_payloads.json"
	// OperatorFile holds this build's operator actions: actions of its
	// own, outside the platform contract's enumeration.
	OperatorFile = "operator_actions.json"
)

// AccessAdmin is the access of an action that answers admin credentials
// alone: the operator actions of OperatorFile.
const AccessAdmin = "admin"

// ErrUnknownAction is the error, in the chain of Contract.Action's, of an
// action the enumeration or the wire shapes lack.
var ErrUnknownAction = errors.New("the contract has no such action")

// Limits are the bounds of served_context.json.
type Limits struct {
	CatalogEntryLimit int `json:"catalog_entry_limit"`
	TextDefaultLimit  int `json:"text_default_limit"`
	TextMaxLimit      int `json:"text_max_limit"`
	IDMaxLength       int `json:"id_max_length"`
	SearchMatchLimit  int `json:"search_match_limit"`
	QueryMaxLength    int `json:"query_max_length"`
	HeadingsLimit     int `json:"headings_limit"`
	HeadingMaxLength  int `json:"heading_max_length"`
	// The bounds of search_documentation: its query's code points, and
	// its budget's default and least value (its most is configured).
	SearchQueryMaxLength int `json:"search_query_max_length"`
	SearchBudgetDefault  int `json:"search_budget_default"`
	SearchBudgetMin      int `json:"search_budget_min"`
}

// Annotations are an action's behaviour hints, as MCP's tools/list shows
// them and the generated reference prints them.
type Annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	OpenWorld   bool `json:"openWorldHint"`
	Idempotent  bool `json:"idempotentHint"`
}

// Entry is one action of the enumeration in actions.json: the "Access and
// action metadata" block of the generated reference.
type Entry struct {
	Name        string      `json:"name"`
	Resource    string      `json:"resource"`
	Tier        string      `json:"tier"`
	Access      string      `json:"access"`
	Summary     string      `json:"summary"`
	Annotations Annotations `json:"annotations"`
}

// Action is one action as the contract defines it: its enumeration entry,
// its contract description (the summary action_payloads.json gives it,
// which discovery quotes) and its request and response schemas, each a
// self-contained JSON schema document whose $defs hold the shared shapes
// it references.
type Action struct {
	Entry
	Description string         `json:"description"`
	Request     map[string]any `json:"request"`
	Response    map[string]any `json:"response"`
}

// Contract is the parsed contract set. It is immutable: every method
// returns values the caller owns.
type Contract struct {
	fsys        fs.FS
	product     string
	version     int
	limits      Limits
	enumeration []Entry
	defs        map[string]json.RawMessage
	payloads    map[string]payload
	operator    []Action
}

// payload is one action of action_payloads.json, its shapes kept raw so
// that each Action call decodes maps of its own.
type payload struct {
	Summary  string          `json:"summary"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
}

// Load returns the embedded contract under the default site name
// (DefaultSiteName), parsed once.
func Load() (*Contract, error) { return LoadNamed(DefaultSiteName) }

// Parse reads a contract set from the three schema files in fsys. Named
// fills a site's name in first; a placeholder still in fsys takes the
// default name, DefaultSiteName.
func Parse(fsys fs.FS) (*Contract, error) {
	fsys = Named(fsys, DefaultSiteName)
	var index struct {
		Product string `json:"product"`
		Limits  Limits `json:"limits"`
	}
	var enum struct {
		Actions []Entry `json:"actions"`
	}
	var shapes struct {
		ContractVersion int                        `json:"contract_version"`
		Defs            map[string]json.RawMessage `json:"$defs"`
		Actions         map[string]payload         `json:"actions"`
	}
	for _, f := range []struct {
		name string
		v    any
	}{{IndexFile, &index}, {EnumerationFile, &enum}, {PayloadsFile, &shapes}} {
		raw, err := fs.ReadFile(fsys, f.name)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, f.v); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	seen := map[string]bool{}
	for _, e := range enum.Actions {
		if e.Name == "" || seen[e.Name] {
			return nil, fmt.Errorf("%s: action name %q is empty or repeated", EnumerationFile, e.Name)
		}
		seen[e.Name] = true
	}
	operator, err := parseOperator(fsys, seen)
	if err != nil {
		return nil, err
	}
	return &Contract{fsys: fsys, product: index.Product, version: shapes.ContractVersion, limits: index.Limits, enumeration: enum.Actions, defs: shapes.Defs, payloads: shapes.Actions, operator: operator}, nil
}

// parseOperator reads the operator actions of OperatorFile, none where
// fsys lacks the file. Each must be of AccessAdmin, named apart from the
// enumeration's actions (seen) and self-contained (no $ref).
func parseOperator(fsys fs.FS, seen map[string]bool) ([]Action, error) {
	raw, err := fs.ReadFile(fsys, OperatorFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Actions []json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", OperatorFile, err)
	}
	var out []Action
	for i, r := range doc.Actions {
		var a Action
		if err := json.Unmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("%s: action %d: %w", OperatorFile, i, err)
		}
		switch {
		case a.Name == "" || seen[a.Name]:
			return nil, fmt.Errorf("%s: action name %q is empty or repeated", OperatorFile, a.Name)
		case a.Access != AccessAdmin:
			return nil, fmt.Errorf("%s: action %s: access must be %q", OperatorFile, a.Name, AccessAdmin)
		case a.Request == nil || a.Response == nil:
			return nil, fmt.Errorf("%s: action %s: a request and a response schema are required", OperatorFile, a.Name)
		case len(refs(a.Request)) > 0 || len(refs(a.Response)) > 0:
			return nil, fmt.Errorf("%s: action %s: its schemas must hold no $ref", OperatorFile, a.Name)
		}
		seen[a.Name] = true
		out = append(out, a)
	}
	return out, nil
}

// Product returns the public name the index gives the product: the site's
// name where the set was read through Named.
func (c *Contract) Product() string { return c.product }

// Files returns the schema files the contract was parsed from, as it read
// them: what a generator reads beside the parsed contract (the skill
// sources, the wire shapes in written order).
func (c *Contract) Files() fs.FS { return c.fsys }

// Version returns the contract version of the wire shapes.
func (c *Contract) Version() int { return c.version }

// Limits returns the bounds of served_context.json.
func (c *Contract) Limits() Limits { return c.limits }

// Enumeration returns the actions of actions.json in enumeration order:
// the platform contract's, without this build's operator actions.
func (c *Contract) Enumeration() []Entry { return append([]Entry(nil), c.enumeration...) }

// Operator returns the entries of this build's operator actions
// (OperatorFile), in the file's order.
func (c *Contract) Operator() []Entry {
	var out []Entry
	for _, a := range c.operator {
		out = append(out, a.Entry)
	}
	return out
}

// Action returns the named action as the contract defines it. Its error
// wraps ErrUnknownAction and names the file that lacks the action.
func (c *Contract) Action(name string) (Action, error) {
	var a Action
	found := false
	for _, e := range c.enumeration {
		if e.Name == name {
			a.Entry, found = e, true
		}
	}
	if !found {
		for _, o := range c.operator {
			if o.Name == name {
				return o.copy()
			}
		}
		return Action{}, fmt.Errorf("%w: %s enumerates no action %q", ErrUnknownAction, EnumerationFile, name)
	}
	p, ok := c.payloads[name]
	if !ok {
		return Action{}, fmt.Errorf("%w: %s holds no wire shapes for action %q", ErrUnknownAction, PayloadsFile, name)
	}
	a.Description = p.Summary
	var err error
	if a.Request, err = c.document(p.Request); err != nil {
		return Action{}, fmt.Errorf("%s: action %s: request: %w", PayloadsFile, name, err)
	}
	if a.Response, err = c.document(p.Response); err != nil {
		return Action{}, fmt.Errorf("%s: action %s: response: %w", PayloadsFile, name, err)
	}
	return a, nil
}

// copy returns a deep copy of an operator action, its schemas maps of the
// caller's own.
func (a Action) copy() (Action, error) {
	out := a
	for _, m := range []*map[string]any{&out.Request, &out.Response} {
		raw, err := json.Marshal(*m)
		if err != nil {
			return Action{}, err
		}
		*m = nil
		if err := json.Unmarshal(raw, m); err != nil {
			return Action{}, err
		}
	}
	return out, nil
}

// document decodes one shape and adds, under $defs, the shared shapes it
// references, transitively, and no others; it has none where it
// references none.
func (c *Contract) document(raw json.RawMessage) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	defs := map[string]any{}
	pending := refs(doc)
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		if _, done := defs[name]; done {
			continue
		}
		rawDef, ok := c.defs[name]
		if !ok {
			return nil, fmt.Errorf("$ref to #/$defs/%s, which %s lacks", name, PayloadsFile)
		}
		var def any
		if err := json.Unmarshal(rawDef, &def); err != nil {
			return nil, err
		}
		defs[name] = def
		pending = append(pending, refs(def)...)
	}
	if len(defs) > 0 {
		doc["$defs"] = defs
	}
	return doc, nil
}

// refs returns the names of the shared shapes v references, sorted.
func refs(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if s, ok := y.(string); ok && k == "$ref" {
					if name, ok := strings.CutPrefix(s, "#/$defs/"); ok {
						out = append(out, name)
					}
				}
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}
