package pgrecords

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

// migrations are the schema's steps, in order; migration i+1 is version
// i+1 in tzctx_schema_migrations. A step is never changed once released:
// a later schema is a new step.
var migrations = []string{
	// 1: the records. id is the spool's record ID, unique per record
	// across processes and restarts, so a replay inserts nothing twice;
	// time is the call's start (to the microsecond), duration_ns its
	// length.
	`CREATE TABLE IF NOT EXISTS tzctx_records (
		id          text PRIMARY KEY,
		time        timestamptz NOT NULL,
		action      text NOT NULL,
		transport   text NOT NULL,
		subject     text NOT NULL,
		code        text NOT NULL,
		status      integer NOT NULL,
		credential  text NOT NULL DEFAULT '',
		account     text NOT NULL DEFAULT '',
		application text NOT NULL DEFAULT '',
		version     text NOT NULL DEFAULT '',
		code_points bigint NOT NULL DEFAULT 0,
		duration_ns bigint NOT NULL DEFAULT 0,
		inserted_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX IF NOT EXISTS tzctx_records_time ON tzctx_records (time);
	CREATE INDEX IF NOT EXISTS tzctx_records_account_time ON tzctx_records (account, time)`,
}

// SchemaVersion is the schema version this build migrates to.
var SchemaVersion = len(migrations)

// ErrSchemaNewer is the error of a database a later build migrated
// beyond SchemaVersion; this build writes nothing to it.
var ErrSchemaNewer = errors.New("the database's tzctx schema is newer than this build's")

// Migrate brings the database's schema to SchemaVersion: it creates
// tzctx_schema_migrations where missing and runs the steps it does not
// list, in one transaction under an advisory lock, so processes starting
// together run each step once. Running it again changes nothing.
func Migrate(ctx context.Context, conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, statementTimeout)
	defer cancel()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationsLockKey)); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS tzctx_schema_migrations (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM tzctx_schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if have > SchemaVersion {
		return fmt.Errorf("%w (version %d, this build knows %d)", ErrSchemaNewer, have, SchemaVersion)
	}
	for v := have + 1; v <= SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v-1]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tzctx_schema_migrations (version) VALUES ($1)`, v); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// ErrNoSchema is the error of Read on a database no tzctx process has
// written records to.
var ErrNoSchema = errors.New("the database holds no tzctx records table yet")

// Read returns the records of the database at url that f admits, ordered
// by time. Its errors never hold the URL.
func Read(ctx context.Context, url string, f records.Filter) ([]tzctx.Record, error) {
	cfg, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout = connectTimeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, scrubbed(err, cfg.Password)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('tzctx_records') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, scrubbed(err, cfg.Password)
	}
	if !exists {
		return nil, ErrNoSchema
	}
	var where []string
	var args []any
	if !f.Since.IsZero() {
		args = append(args, f.Since)
		where = append(where, fmt.Sprintf("time >= $%d", len(args)))
	}
	if f.Account != "" {
		args = append(args, f.Account)
		where = append(where, fmt.Sprintf("account = $%d", len(args)))
	}
	if f.Action != "" {
		args = append(args, f.Action)
		where = append(where, fmt.Sprintf("action = $%d", len(args)))
	}
	q := `SELECT time, action, transport, subject, code, status, credential, account, application, version, code_points, duration_ns
		FROM tzctx_records`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY time, id"
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return nil, scrubbed(err, cfg.Password)
	}
	var out []tzctx.Record
	for rows.Next() {
		var r tzctx.Record
		var status int32
		var points, ns int64
		if err := rows.Scan(&r.Time, &r.Action, &r.Transport, &r.Subject, &r.Code, &status,
			&r.Credential, &r.Account, &r.Application, &r.Version, &points, &ns); err != nil {
			return nil, scrubbed(err, cfg.Password)
		}
		r.Time = r.Time.UTC()
		r.Status, r.CodePoints, r.Duration = int(status), int(points), time.Duration(ns)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, scrubbed(err, cfg.Password)
	}
	return out, nil
}

// scrubbedError is a fault with the password taken out of its text.
type scrubbedError struct {
	err error
	pw  string
}

func (e scrubbedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.pw, "xxxxx") }
func (e scrubbedError) Unwrap() error { return e.err }

func scrubbed(err error, pw string) error {
	if pw == "" {
		return fmt.Errorf("postgres records: %w", err)
	}
	return fmt.Errorf("postgres records: %w", scrubbedError{err, pw})
}
