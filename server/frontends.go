package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/api"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/store"
)

// Each front end, and the guard before them, declares the narrow
// interface it needs of the dispatcher; the dispatcher this package
// builds them over is each of them.
var (
	_ api.Dispatcher     = (*dispatch.Dispatcher)(nil)
	_ mcp.Dispatcher     = (*dispatch.Dispatcher)(nil)
	_ shed.Refuser       = (*dispatch.Dispatcher)(nil)
	_ shed.Authenticator = (*dispatch.Dispatcher)(nil)
)

// frontEnds are what every front end calls: the dispatcher of this build
// over the store, the credentials it resolves, the MCP front end, and the
// meter of its calls (nil where metrics are off).
type frontEnds struct {
	dispatcher *dispatch.Dispatcher
	resolver   tzctx.Resolver
	mcp        *mcp.Server
	meter      *metering.Meter
	// close closes the call records' sinks; it runs once the front ends
	// have stopped.
	close func() error
}

// newFrontEnds builds the reader, the dispatcher and the MCP front end
// over st, as cfg configures them, recording calls to the sinks
// openRecords opens, to the meter and to log. With operator, the
// dispatcher also has the operator actions, registered with every other
// action before any front end is built from its list. local says the
// transport reaches only callers on this host, where a configuration
// without a trees member serves every tree of the served version
// (treeMode).
func newFrontEnds(cfg Config, st *store.Store, dataDir string, log *slog.Logger, operator, local bool) (fe *frontEnds, err error) {
	meter := newMeter(cfg, st)
	limits, err := plane.Limits()
	if err != nil {
		return nil, err
	}
	// The served texts name the trees served, with examples drawn from
	// them, where they are not the contract's, and follow the served
	// version (issue 31).
	mode := treeMode(cfg, local)
	texts, err := newSiteTexts(cfg, mode, query.FromStore(st), log)
	if err != nil {
		return nil, fmt.Errorf("the embedded contract set, named %q (site.name): %w", cfg.Site.name(), err)
	}
	start := texts.texts()
	site := start.Site.Name
	qc := query.Config{Limits: limits, Origin: cfg.Origin, SiteName: site, Trees: cfg.Trees.List, Holder: query.AccessHolder(cfg.Trees.Access()), Catalog: texts, Search: query.SearchLimits{BudgetMax: cfg.SearchBudgetMax}}
	if mode == serveAll {
		// The access map over the trees served, the version's
		// unlisted ones included, is the holder check.
		qc.ServeAll, qc.Holder = true, nil
	}
	reader := query.NewReader(qc, query.FromStore(st))
	creds, err := identity.New(context.Background(), cfg.Credentials, cfg.OIDC)
	if err != nil {
		return nil, err
	}
	recs, closeRecords, err := openRecords(cfg, dataDir, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = closeRecords()
		}
	}()
	// The operator's activations tell MCP clients the lists changed, once
	// the MCP front end exists.
	var m *mcp.Server
	po := plane.Options{SiteName: site, SiteTrees: start.Site.Trees, Reader: reader, Resolver: creds, Recorder: append(recs, meter, tzctx.LogRecorder{Logger: log})}
	if operator {
		po.Operator = newOperator(cfg, st, dataDir, log, func() { m.ListsChanged() })
	}
	d, err := plane.NewWith(po)
	if err != nil {
		return nil, err
	}
	// A stdio message is held to the bound of an HTTP body, and a
	// resource URI to what an ID within id_max_length can be escaped to.
	m, err = mcp.New(d, mcp.Options{Version: buildVersion(), TextMaxLimit: limits.TextMaxLimit,
		IDMaxLength: limits.IDMaxLength, LineLimit: cfg.BodyLimitBytes, Logger: log, Texts: texts,
		SubscriptionsPerSession: cfg.MCPSubscriptionsPerSession, SubscriptionsTotal: cfg.MCPSubscriptions, NoticesPerMinute: cfg.MCPNoticesPerMinute, InstructionsMaxChars: cfg.MCPInstructionsMaxChars,
		Completions: cfg.MCPCompletions.bounds()})
	if err != nil {
		return nil, err
	}
	// Every version is warmed before it is served, the one served now
	// included, so no request pays for loading it.
	warm := query.StoreWarm(reader.Warm)
	warmTexts := func(ctx context.Context, v *store.Version) error {
		texts.warm(query.StoreVersion(v))
		return warm(ctx, v)
	}
	if err := st.SetWarm(context.Background(), warmWarning(log, cfg.Trees, mode, warmTexts)); err != nil {
		log.Error("warming the served version", "error", err.Error())
	}
	logServedTrees(log, mode, reader)
	return &frontEnds{dispatcher: d, resolver: creds, mcp: m, meter: meter, close: closeRecords}, nil
}

// closeFrontEnds closes what newFrontEnds opened, logging a fault; Close
// and ServeStdio run it once their front ends have stopped.
func closeFrontEnds(fe *frontEnds, log *slog.Logger) {
	if err := fe.close(); err != nil {
		log.Error("records", "error", err.Error())
	}
}

// newMeter returns the meter of the calls, which reads the served version
// from st at each scrape, or nil (which records nothing) where cfg turns
// metrics off.
func newMeter(cfg Config, st *store.Store) *metering.Meter {
	if !cfg.MetricsOn() {
		return nil
	}
	return metering.New(metering.Options{Version: func() string { name, _ := st.Serving(); return name }})
}

// buildVersion is the module version of this build, "(devel)" for a
// build from a work tree.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
