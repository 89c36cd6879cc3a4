package server

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/pgrecords"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

// openRecords opens the durable sinks of the call records cfg
// configures: the embedded records under dataDir/records (unless
// records.embedded is false) and, where records.postgres_url is set, the
// PostgreSQL sink spooling under dataDir/records-spool. A database that
// is away does not stop it: the sink spools and retries. The close
// function closes them all, returning the first fault.
func openRecords(cfg Config, dataDir string, log *slog.Logger) (tzctx.Recorders, func() error, error) {
	var recs tzctx.Recorders
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}
	if cfg.Records.embedded() {
		rw, err := records.Open(filepath.Join(dataDir, "records"), records.Options{
			RetentionDays: cfg.Records.RetentionDays, MaxBytes: cfg.Records.MaxBytes, Logger: log})
		if err != nil {
			return nil, nil, fmt.Errorf("open the call records: %w", err)
		}
		recs, closers = append(recs, rw), append(closers, rw.Close)
	}
	if cfg.Records.PostgresURL != "" {
		pg, err := pgrecords.Open(pgrecords.Options{
			URL: cfg.Records.PostgresURL, SpoolDir: filepath.Join(dataDir, "records-spool"),
			SpoolMaxBytes: cfg.Records.SpoolMaxBytes, Logger: log})
		if err != nil {
			_ = closeAll()
			return nil, nil, fmt.Errorf("records.postgres_url: %w", err)
		}
		recs, closers = append(recs, pg), append(closers, pg.Close)
	}
	return recs, closeAll, nil
}
