package server

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/turnzerocloud/tzctx/internal/action/actions"
	"github.com/turnzerocloud/tzctx/store"
)

// newOperator returns what the operator actions (admin_status,
// admin_activate) of a server work on: its store, its call records and
// the location it follows. Only tzctx serve has them: they are HTTP
// actions, and MCP offers no tool of them. An activation switches the
// server at once, as its watcher would at its next tick, and calls
// changed (which tells MCP clients the lists changed).
func newOperator(cfg Config, st *store.Store, dataDir string, log *slog.Logger, changed func()) *actions.Operator {
	op := &actions.Operator{
		Versions: st,
		Follow:   cfg.Follow.URL,
		Refresh: func(ctx context.Context) error {
			// The version was verified just now by the activation: a
			// fault the store remembers of it (from before a repair in
			// place) no longer holds.
			st.Recheck()
			switched, err := st.Refresh(ctx)
			if err != nil {
				return err
			}
			if switched {
				log.Info("serving version", "version", st.Health().Serving)
				changed()
			}
			return nil
		},
	}
	switch {
	case cfg.Records.embedded():
		op.Records = filepath.Join(dataDir, "records")
	case cfg.Records.PostgresURL != "":
		op.RecordsNote = "records.embedded is false: this server's call records go to PostgreSQL alone; read them with 'tzctx records --from-postgres --config FILE'"
	default:
		op.RecordsNote = "records.embedded is false and records.postgres_url is unset: this server keeps no call records"
	}
	return op
}
