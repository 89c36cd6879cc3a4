package pgrecords

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

func open(t *testing.T, url, spool string, opts Options) (*Sink, *testkit.SyncBuffer) {
	t.Helper()
	log := &testkit.SyncBuffer{}
	opts.URL, opts.SpoolDir = url, spool
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	if opts.RetryMax == 0 {
		opts.RetryMin, opts.RetryMax = 20*time.Millisecond, 200*time.Millisecond
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, log
}

func rec(i int) tzctx.Record {
	return tzctx.Record{
		Time: time.Now(), Action: "read_documentation", Transport: "http", Subject: fmt.Sprintf("s-%06d", i),
		Code: "ok", Status: 200, Account: "acme", Application: "app", Version: "v1", CodePoints: i, Duration: time.Duration(i) * 1001,
	}
}

// counts returns the records in the table and the distinct subjects.
func counts(t *testing.T, url string) (rows, subjects int) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, `SELECT count(*), count(DISTINCT subject) FROM tzctx_records`).Scan(&rows, &subjects); err != nil {
		t.Fatal(err)
	}
	return rows, subjects
}

func waitSent(t *testing.T, s *Sink, what string) Stats {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := s.Stats()
		if st.SpoolBytes == 0 {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the spool still holds %d bytes: %+v", what, st.SpoolBytes, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func spoolFiles(t *testing.T, dir string) (names []string, size int64) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		size += fi.Size()
	}
	return names, size
}

// TestBatches: records from many goroutines arrive once each, in far
// fewer transactions than records, and the spool is emptied.
func TestBatches(t *testing.T) {
	pg := testkit.StartPostgres(t)
	spool := t.TempDir()
	s, _ := open(t, pg.URL, spool, Options{})
	const n, workers = 20000, 8
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				s.Record(context.Background(), rec(i))
			}
		})
	}
	wg.Wait()
	recorded := time.Since(start)
	st := waitSent(t, s, "after the records")
	took := time.Since(start)
	if st.Spooled != n || st.Inserted != n || st.Refused+st.Lost+st.Rejected != 0 {
		t.Fatalf("stats %+v, want %d spooled and inserted", st, n)
	}
	rows, subjects := counts(t, pg.URL)
	if rows != n || subjects != n {
		t.Fatalf("%d rows, %d subjects; want %d", rows, subjects, n)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var txs int
	if err := c.QueryRow(ctx, `SELECT count(DISTINCT inserted_at) FROM tzctx_records`).Scan(&txs); err != nil {
		t.Fatal(err)
	}
	if txs > n/10 {
		t.Errorf("%d records in %d transactions: not batched", n, txs)
	}
	t.Logf("%d records: recorded in %v (%.0f/s), all in postgres after %v (%.0f records/s), in %d transactions",
		n, recorded, n/recorded.Seconds(), took, n/took.Seconds(), txs)
	// Exact round trip through the table.
	got, err := Read(ctx, pg.URL, records.Filter{Account: "acme", Action: "read_documentation", Since: start.Add(-time.Second)})
	if err != nil || len(got) != n {
		t.Fatalf("Read: %d records, %v", len(got), err)
	}
	for _, r := range got {
		var i int
		fmt.Sscanf(r.Subject, "s-%d", &i)
		want := rec(i)
		if r.CodePoints != want.CodePoints || r.Duration != want.Duration || r.Account != "acme" || r.Status != 200 || r.Version != "v1" || r.Transport != "http" {
			t.Fatalf("read back %+v, want %+v", r, want)
		}
	}
	if got, err := Read(ctx, pg.URL, records.Filter{Account: "other"}); err != nil || len(got) != 0 {
		t.Fatalf("Read of another account: %d, %v", len(got), err)
	}
	if names, size := spoolFiles(t, spool); size != 0 {
		t.Errorf("the spool holds %v (%d bytes) after everything was sent", names, size)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if names, _ := spoolFiles(t, spool); len(names) != 0 {
		t.Errorf("spool files left after Close: %v", names)
	}
}

// TestMigrateTwice: a second migration, and a second sink's start,
// change nothing.
func TestMigrateTwice(t *testing.T) {
	pg := testkit.StartPostgres(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := Read(ctx, pg.URL, records.Filter{}); err != ErrNoSchema {
		t.Fatalf("Read before any migration: %v, want ErrNoSchema", err)
	}
	for range 2 {
		if err := Migrate(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		s, _ := open(t, pg.URL, t.TempDir(), Options{})
		s.Record(ctx, rec(i))
		waitSent(t, s, "a record")
		s.Close()
	}
	var versions, maxV int
	if err := c.QueryRow(ctx, `SELECT count(*), max(version) FROM tzctx_schema_migrations`).Scan(&versions, &maxV); err != nil {
		t.Fatal(err)
	}
	if versions != SchemaVersion || maxV != SchemaVersion {
		t.Fatalf("%d migration rows up to %d, want %d", versions, maxV, SchemaVersion)
	}
	if rows, _ := counts(t, pg.URL); rows != 2 {
		t.Fatalf("%d rows, want 2", rows)
	}
	// A database a later build migrated is refused.
	if _, err := c.Exec(ctx, `INSERT INTO tzctx_schema_migrations (version) VALUES ($1)`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, c); err == nil || !strings.Contains(err.Error(), ErrSchemaNewer.Error()) {
		t.Fatalf("Migrate on a newer schema: %v", err)
	}
}

// TestDownAtStart: with the database away from the start, records wait
// in the spool; the sink sends them once the database is back, and a
// process stopped before that leaves them for the next one, which
// replays them once, also after a crash between the commit and the
// spool file's removal.
func TestDownAtStart(t *testing.T) {
	pg := testkit.StartPostgres(t)
	pg.Stop(t)
	spool := t.TempDir()

	// The same sink sends them once the database is back.
	s, log := open(t, pg.URL, spool, Options{})
	for i := range 100 {
		s.Record(context.Background(), rec(i))
	}
	time.Sleep(300 * time.Millisecond)
	if st := s.Stats(); st.Spooled != 100 || st.Inserted != 0 || st.SpoolBytes == 0 {
		t.Fatalf("with the database down: %+v", st)
	}
	if !strings.Contains(log.String(), "postgres does not take records") {
		t.Errorf("the outage is not logged:\n%s", log)
	}
	pg.Start(t)
	if st := waitSent(t, s, "the database back"); st.Inserted != 100 {
		t.Fatalf("after the database came back: %+v", st)
	}
	if !strings.Contains(log.String(), "postgres takes records again") {
		t.Errorf("the recovery is not logged:\n%s", log)
	}
	s.Close()

	// A process stopped during the outage leaves its spool to the next.
	pg.Stop(t)
	a, _ := open(t, pg.URL, spool, Options{CloseWait: 100 * time.Millisecond})
	for i := 100; i < 250; i++ {
		a.Record(context.Background(), rec(i))
	}
	a.Close()
	names, size := spoolFiles(t, spool)
	if len(names) == 0 || size == 0 {
		t.Fatal("the stopped process left no spool")
	}
	saved := filepath.Join(t.TempDir(), "saved")
	orphan := filepath.Join(spool, names[0])
	raw, err := os.ReadFile(orphan)
	if err != nil || len(names) != 1 {
		t.Fatalf("spool %v: %v", names, err)
	}
	if err := os.WriteFile(saved, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	pg.Start(t)
	b, blog := open(t, pg.URL, spool, Options{})
	deadline := time.Now().Add(30 * time.Second)
	for b.Stats().Replayed < 150 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := b.Stats(); st.Replayed != 150 || st.Inserted != 150 {
		t.Fatalf("replay: %+v\n%s", st, blog)
	}
	if rows, subjects := counts(t, pg.URL); rows != 250 || subjects != 250 {
		t.Fatalf("%d rows, %d subjects; want 250", rows, subjects)
	}
	if names, _ := spoolFiles(t, spool); len(names) != 0 {
		t.Fatalf("the replayed spool is left: %v", names)
	}
	b.Close()

	// The spool file back, as a crash after the commit and before the
	// removal leaves it: replayed again, nothing doubles.
	if err := os.WriteFile(orphan, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := open(t, pg.URL, spool, Options{})
	deadline = time.Now().Add(30 * time.Second)
	for c.Stats().Replayed < 150 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := c.Stats(); st.Replayed != 150 || st.Inserted != 0 {
		t.Fatalf("second replay: %+v", st)
	}
	if rows, _ := counts(t, pg.URL); rows != 250 {
		t.Fatalf("%d rows after a second replay, want 250", rows)
	}
}

// TestOutage: records written at a steady rate while the database stops
// and starts again all arrive, exactly once.
func TestOutage(t *testing.T) {
	pg := testkit.StartPostgres(t)
	s, _ := open(t, pg.URL, t.TempDir(), Options{})
	stop := make(chan struct{})
	var n int
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.Record(context.Background(), rec(n))
			n++
			time.Sleep(200 * time.Microsecond)
		}
	})
	time.Sleep(300 * time.Millisecond)
	pg.Stop(t)
	time.Sleep(time.Second)
	during := s.Stats()
	pg.Start(t)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	st := waitSent(t, s, "after the outage")
	if st.Spooled != int64(n) || st.Refused+st.Lost+st.Rejected != 0 {
		t.Fatalf("%d recorded, stats %+v", n, st)
	}
	rows, subjects := counts(t, pg.URL)
	if rows != n || subjects != n {
		t.Fatalf("%d recorded, %d rows, %d distinct: want each once", n, rows, subjects)
	}
	if during.SpoolBytes == 0 {
		t.Error("nothing was spooled during the outage")
	}
	t.Logf("%d records written across the outage, %d found once each; %d bytes spooled while the database was down", n, rows, during.SpoolBytes)
}

// TestSpoolBound: with the database away, the spool holds at most its
// bound; further records are refused, counted and logged once, and what
// was spooled arrives once the database is back.
func TestSpoolBound(t *testing.T) {
	pg := testkit.StartPostgres(t)
	pg.Stop(t)
	spool := t.TempDir()
	const bound = 64 << 10
	s, log := open(t, pg.URL, spool, Options{SpoolMaxBytes: bound})
	for i := range 1000 {
		s.Record(context.Background(), rec(i))
	}
	st := s.Stats()
	if st.Refused == 0 || st.Spooled+st.Refused != 1000 || st.SpoolBytes > bound {
		t.Fatalf("stats %+v under a bound of %d", st, bound)
	}
	if _, size := spoolFiles(t, spool); size > bound {
		t.Fatalf("the spool files hold %d bytes, over the bound %d", size, bound)
	}
	if c := strings.Count(log.String(), "spool is full"); c != 1 {
		t.Errorf("the full spool is logged %d times, want once:\n%s", c, log)
	}
	pg.Start(t)
	waitSent(t, s, "the database back")
	if rows, _ := counts(t, pg.URL); int64(rows) != st.Spooled {
		t.Fatalf("%d rows, %d spooled", rows, st.Spooled)
	}
	// Room again: records are taken, and the recovery is logged.
	s.Record(context.Background(), rec(5000))
	if st2 := s.Stats(); st2.Spooled != st.Spooled+1 {
		t.Fatalf("after the spool emptied: %+v", st2)
	}
	if !strings.Contains(log.String(), "takes records again") {
		t.Errorf("the spool's recovery is not logged:\n%s", log)
	}
}

// TestPasswordNotLogged: the fault of an unreachable database is logged
// without the URL's password; a URL that does not parse is refused
// without echoing it.
func TestPasswordNotLogged(t *testing.T) {
	const pw = "hunter2sekrit"
	s, log := open(t, "postgres://tz:"+pw+"@127.0.0.1:1/db?sslmode=disable", t.TempDir(), Options{})
	s.Record(context.Background(), rec(1))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "does not take records") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.Close()
	if out := log.String(); !strings.Contains(out, "127.0.0.1:1/db") || strings.Contains(out, pw) {
		t.Fatalf("log:\n%s", out)
	}
	_, err := Open(Options{URL: "postgres://tz:" + pw + "@host:notaport/db", SpoolDir: t.TempDir()})
	if err != ErrBadURL || strings.Contains(fmt.Sprint(err), pw) {
		t.Fatalf("bad URL: %v", err)
	}
}
