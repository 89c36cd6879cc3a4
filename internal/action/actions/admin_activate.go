package actions

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// Activation is admin_activate's answer.
type Activation struct {
	ContractVersion int     `json:"contract_version"`
	Active          string  `json:"active"`
	Previous        *string `json:"previous"`
	Served          *string `json:"served"`
}

// AdminActivate returns the admin_activate action over op: it makes a
// stored version the active one as tzctx activate does (verified, then
// the pointer replaced atomically) and switches the server to it. The
// dispatcher admits admin callers alone.
func AdminActivate(c *schemas.Contract, op *Operator) *dispatch.Action {
	return defineIn(c, "admin_activate", dispatch.Typed(op.handleActivate, versionSubject), versionSubject)
}

// activateRequest is admin_activate's request.
type activateRequest struct {
	Version string `json:"version"`
}

// handleActivate is admin_activate's handler: the activation, recorded
// under the version it names.
func (op *Operator) handleActivate(ctx context.Context, req activateRequest) (*Activation, string, error) {
	a, err := op.activate(ctx, req.Version)
	return a, versionNameSubject(req.Version), err
}

func (op *Operator) activate(ctx context.Context, name string) (*Activation, error) {
	if op.Follow != "" {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "this server follows the versions published at %s, whose pointer decides the active version; publish and activate there instead ('tzctx publish %s --to %s --activate')", op.Follow, name, op.Follow)
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	ms, err := op.Versions.List()
	if err != nil {
		return nil, fmt.Errorf("list the versions: %w", err)
	}
	damaged, err := op.Versions.Unreadable()
	if err != nil {
		return nil, fmt.Errorf("list the versions: %w", err)
	}
	switch {
	case slices.Contains(damaged, name):
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "version %q is damaged: its metadata does not read, so it is not activated and the active version is unchanged; run 'tzctx verify %s', then import it again or activate another", name, name)
	case !slices.ContainsFunc(ms, func(m store.Meta) bool { return m.Name == name }):
		return nil, tzctx.Errorf(tzctx.ContextNotFound, "no version %q is stored here; admin_status lists the stored versions", name)
	}
	prev, err := op.Versions.ActiveName()
	if err != nil {
		return nil, err
	}
	if prev != name {
		if err := op.Versions.Activate(ctx, name); err != nil {
			var de *store.DamagedError
			if errors.As(err, &de) {
				return nil, tzctx.Errorf(tzctx.ContextUnavailable, "not activated, and the active version is unchanged: %s", de.Error())
			}
			if errors.Is(err, store.ErrDamaged) {
				return nil, tzctx.Errorf(tzctx.ContextUnavailable, "version %q is damaged, so it is not activated and the active version is unchanged; run 'tzctx verify %s', then import it again or activate another", name, name)
			}
			if ctx.Err() != nil {
				return nil, tzctx.Errorf(tzctx.ContextUnavailable, "the activation of version %q was cut short, and the active version is unchanged; try again", name)
			}
			return nil, err
		}
	}
	if op.Refresh != nil {
		// The pointer has moved: the server follows it whether or not
		// the caller is still there to read the answer.
		rctx := context.WithoutCancel(ctx)
		if err := op.Refresh(rctx); err != nil {
			if prev == "" {
				return nil, tzctx.Errorf(tzctx.ContextUnavailable, "this server could not open version %q (%v); ACTIVE names it, as no version was active before, and no version is served; activate another, or run 'tzctx verify %s'", name, err, name)
			}
			// The server refused to open the version: the pointer goes
			// back to the version it named, so nothing is half done, and
			// the server is switched back to it.
			if prev != name {
				if rerr := op.Versions.Activate(rctx, prev); rerr != nil {
					return nil, fmt.Errorf("restore the pointer to %q after the refusal of %q (%v): %w", prev, name, err, rerr)
				}
				_ = op.Refresh(rctx)
			}
			return nil, tzctx.Errorf(tzctx.ContextUnavailable, "this server could not open version %q (%v), so the active version is unchanged; run 'tzctx verify %s'", name, err, name)
		}
	}
	out := &Activation{ContractVersion: 1, Active: name}
	if prev != "" {
		out.Previous = &prev
	}
	if h := op.Versions.Health(); h.Serving != "" {
		out.Served = &h.Serving
	}
	return out, nil
}
