package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/turnzerocloud/tzctx/store"
)

// Stdio is the one MCP client ServeStdio serves.
type Stdio struct {
	// Token is the client's bearer credential; "" reads anonymously.
	Token string
	In    io.Reader
	Out   io.Writer
	Log   *slog.Logger
	// Recheck, where set, asks for a look at the active pointer at once
	// each time it receives (tzctx mcp sends SIGHUP there).
	Recheck <-chan struct{}
}

// ServeStdio serves one MCP client on c.In and c.Out until c.In ends or
// ctx is done, over the store in dataDir, watching the active pointer as
// a Server does. It registers no operator action and counts no metric.
func ServeStdio(ctx context.Context, cfg Config, dataDir string, c Stdio) error {
	log := c.Log
	st, err := store.Open(dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Refresh(ctx); err != nil && ctx.Err() == nil {
		log.Error("activation", "error", err.Error())
	}
	if h := st.Health(); h.Serving == "" && h.Fault == nil {
		log.Warn("no version is active in " + dataDir + "; reads answer context_unavailable until one is activated")
	}
	// A stdio process serves no /metrics, so it counts nothing either.
	off := false
	cfg.Metrics = &off
	fe, err := newFrontEnds(cfg, st, dataDir, log, false, true)
	if err != nil {
		return err
	}
	defer closeFrontEnds(fe, log)
	id, err := fe.resolver.Resolve(ctx, c.Token)
	if err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	defer startWatch(ctx, st, time.Duration(cfg.WatchInterval), c.Recheck, log, fe.mcp.ListsChanged)()
	log.Info("serving MCP over stdio", "data", dataDir, "credential", id.Credential, "account", id.Account)
	return fe.mcp.ServeStdio(ctx, c.In, c.Out, c.Token, id)
}
