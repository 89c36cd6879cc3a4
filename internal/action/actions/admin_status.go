package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// defaultStatusRecords is how many records admin_status answers where
// the call names no number.
const defaultStatusRecords = 50

// Status is admin_status's answer.
type Status struct {
	ContractVersion int               `json:"contract_version"`
	Active          *string           `json:"active"`
	Served          *string           `json:"served"`
	Fault           *string           `json:"fault"`
	Versions        []StatusVersion   `json:"versions"`
	Records         []json.RawMessage `json:"records"`
	RecordsNote     string            `json:"records_note,omitempty"`
}

// StatusVersion is one stored version in admin_status's answer.
type StatusVersion struct {
	Name    string       `json:"name"`
	Active  bool         `json:"active"`
	Served  bool         `json:"served"`
	Damaged bool         `json:"damaged"`
	Created *string      `json:"created"`
	Pages   int          `json:"pages"`
	Trees   []StatusTree `json:"trees"`
}

// StatusTree counts one tree of a version.
type StatusTree struct {
	Tree  string `json:"tree"`
	Pages int    `json:"pages"`
	Bytes int64  `json:"bytes"`
	// CodePoints is the tree's whole text's length, counted for the
	// served version alone (nil for the others, which are not opened).
	CodePoints *int `json:"code_points"`
}

// AdminStatus returns the admin_status action over op: the stored
// versions, the active and the served one, and the last call records.
// The dispatcher admits admin callers alone.
func AdminStatus(c *schemas.Contract, op *Operator) *dispatch.Action {
	return defineIn(c, "admin_status", dispatch.Typed(op.handleStatus, subject("versions")), subject("versions"))
}

// statusRequest is admin_status's request.
type statusRequest struct {
	Records int `json:"records"`
}

// handleStatus is admin_status's handler: the status with req.Records
// records, defaultStatusRecords where it names none, recorded under the
// versions.
func (op *Operator) handleStatus(ctx context.Context, req statusRequest) (*Status, string, error) {
	if req.Records == 0 {
		req.Records = defaultStatusRecords
	}
	st, err := op.status(ctx, req.Records)
	return st, "versions", err
}

func (op *Operator) status(ctx context.Context, n int) (*Status, error) {
	out := &Status{ContractVersion: 1, Versions: []StatusVersion{}, Records: []json.RawMessage{}}
	h := op.Versions.Health()
	if h.Active != "" {
		out.Active = &h.Active
	}
	if h.Serving != "" {
		out.Served = &h.Serving
	}
	if h.Fault != nil {
		f := h.Fault.Error()
		out.Fault = &f
	}
	ms, err := op.Versions.List()
	if err != nil {
		return nil, fmt.Errorf("list the versions: %w", err)
	}
	// The served version's whole texts are counted from the version
	// itself, which is open already.
	var served *store.Version
	if v, err := op.Versions.Acquire(); err == nil {
		defer v.Release()
		served = v
	}
	for _, m := range ms {
		created := m.Created.UTC().Format(time.RFC3339)
		sv := StatusVersion{Name: m.Name, Active: m.Name == h.Active, Served: m.Name == h.Serving, Created: &created, Pages: m.Pages, Trees: []StatusTree{}}
		for _, t := range m.Trees {
			st := StatusTree{Tree: t.Name, Pages: t.Pages, Bytes: t.Bytes}
			if served != nil && sv.Served && served.Meta().Digest == m.Digest {
				if tr := served.Tree(t.Name); tr != nil {
					if text, err := tr.Text("full"); err == nil && text != nil {
						cp := text.Total()
						st.CodePoints = &cp
					}
				}
			}
			sv.Trees = append(sv.Trees, st)
		}
		out.Versions = append(out.Versions, sv)
	}
	damaged, err := op.Versions.Unreadable()
	if err != nil {
		return nil, fmt.Errorf("list the versions: %w", err)
	}
	for _, name := range damaged {
		out.Versions = append(out.Versions, StatusVersion{Name: name, Active: name == h.Active, Served: name == h.Serving, Damaged: true, Trees: []StatusTree{}})
	}
	if op.Records == "" {
		out.RecordsNote = op.RecordsNote
		if out.RecordsNote == "" {
			out.RecordsNote = "this server keeps no call records of its own"
		}
		return out, nil
	}
	recs, err := lastRecords(ctx, op.Records, n)
	if err != nil {
		return nil, err
	}
	out.Records = recs
	return out, nil
}

// lastRecords returns the last n records under dir, newest first, each in
// its stored form, reading no more segments than it must (records.Last).
func lastRecords(ctx context.Context, dir string, n int) ([]json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs, err := records.Last(dir, n)
	if errors.Is(err, records.ErrNoRecords) {
		return []json.RawMessage{}, nil
	}
	if err != nil {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the call records could not be read; try again, or read them with 'tzctx records'")
	}
	if len(recs) > n {
		recs = recs[len(recs)-n:]
	}
	slices.Reverse(recs)
	out := make([]json.RawMessage, 0, len(recs))
	for _, r := range recs {
		b, err := records.Marshal(r)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
