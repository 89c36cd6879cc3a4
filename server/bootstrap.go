package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/store"
)

// ensureVersion ingests and activates the embedded sample site where the
// data directory holds no version, so a newcomer's server answers at once.
func ensureVersion(ctx context.Context, st *store.Store, log *slog.Logger) error {
	active, err := st.ActiveName()
	if err != nil || active != "" {
		return err
	}
	ms, err := st.List()
	if err != nil {
		return err
	}
	damaged, err := st.Unreadable()
	if err != nil {
		return err
	}
	if len(ms) > 0 || len(damaged) > 0 {
		// An operator's data directory never falls back to the sample.
		log.Warn("no version is active; activate one with 'tzctx activate NAME'")
		return nil
	}
	tmp, err := os.MkdirTemp("", "tzctx-sample-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	site, err := data.Extract(tmp)
	if err != nil {
		return err
	}
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		return err
	}
	sum, err := ingest.Run(ctx, st, ingest.Options{Trees: trees, Library: ingest.SiteLibrary(site)})
	if err != nil {
		return fmt.Errorf("ingest the sample site: %w", err)
	}
	log.Info("ingested the sample site", "version", sum.Version, "pages", sum.Pages)
	return st.Activate(ctx, sum.Version)
}
