package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/pgrecords"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
	"github.com/turnzerocloud/tzctx/server"
)

func newRecordsCmd(g *globals) *cobra.Command {
	var since, account, action, cfgPath string
	var asJSON, fromPostgres bool
	cmd := &cobra.Command{
		Use:   "records",
		Short: "List the records of the calls served from the data directory, oldest first",
		Long: `Records lists the record of every call the servers and MCP processes of the
data directory answered, refusals included, merged from every process's files
under DATA/records and ordered by time. A record names the action, transport,
subject, outcome, caller and what was served; it never holds a query's words.
It only reads, so it runs while servers write.

--since takes an RFC 3339 time (2026-12-01T09:00:00Z) or a duration back from
now (24h, 90m); --account and --action select records naming exactly them.
--json prints each record as it is stored, one JSON object per line.

--from-postgres reads the records from the PostgreSQL database that
records.postgres_url of the --config file (or $TZCTX_RECORDS_POSTGRES_URL)
names, instead of DATA/records:
the records of every replica writing to it, with the same filters and
output forms.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := records.Filter{Account: account, Action: action}
			if since != "" {
				t, err := records.ParseSince(since, time.Now())
				if err != nil {
					return err
				}
				f.Since = t
			}
			var recs []tzctx.Record
			var st records.Stats
			var err error
			if fromPostgres {
				recs, err = readPostgresRecords(cmd.Context(), cfgPath, f)
			} else {
				recs, st, err = records.Read(filepath.Join(g.dataDir(), "records"), f)
			}
			if errors.Is(err, records.ErrNoRecords) {
				if fromPostgres && !asJSON {
					fmt.Fprintln(cmd.OutOrStdout(), "no records yet: no server or MCP process has written records to the database")
				} else if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "no records yet: no server or MCP process has answered a call from %s\n", g.dataDir())
				}
				return nil
			}
			if err != nil {
				return err
			}
			for _, n := range st.Notes() {
				fmt.Fprintln(cmd.ErrOrStderr(), "tzctx records: "+n)
			}
			if asJSON {
				return records.WriteJSONLines(cmd.OutOrStdout(), recs)
			}
			if len(recs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no records match")
				return nil
			}
			return records.WriteTable(cmd.OutOrStdout(), recs)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "list records of calls from this time on: RFC 3339, or a duration back from now such as 24h")
	cmd.Flags().StringVar(&account, "account", "", "list the records of this account alone")
	cmd.Flags().StringVar(&action, "action", "", "list the records of this action alone")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per record, as stored")
	cmd.Flags().BoolVar(&fromPostgres, "from-postgres", false, "read the records from the PostgreSQL database of records.postgres_url in --config")
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON), as tzctx serve reads it; --from-postgres reads its records.postgres_url")
	return cmd
}

// readPostgresRecords reads the records f admits from the database of
// records.postgres_url, as the configuration at cfgPath (or
// $TZCTX_RECORDS_POSTGRES_URL) gives it. A database no process wrote
// records to is records.ErrNoRecords.
func readPostgresRecords(ctx context.Context, cfgPath string, f records.Filter) ([]tzctx.Record, error) {
	cfg, err := server.LoadConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	if cfg.Records.PostgresURL == "" {
		return nil, fmt.Errorf("--from-postgres reads the database of records.postgres_url, which is not set: give the configuration file with --config, or set $%s", server.PostgresURLEnv)
	}
	recs, err := pgrecords.Read(ctx, cfg.Records.PostgresURL, f)
	if errors.Is(err, pgrecords.ErrNoSchema) {
		return nil, records.ErrNoRecords
	}
	return recs, err
}
