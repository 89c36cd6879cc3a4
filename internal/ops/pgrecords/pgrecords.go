// Package pgrecords sends the dispatcher's call records to one PostgreSQL
// database, so that the metering of a fleet of servers is in one place,
// and reads them back.
//
// Record never waits on the database. It appends the record, with an ID
// unique to it, to a spool file of its own process under the spool folder
// (one write(2) on a file opened with O_APPEND, as package records
// appends its segments), and returns; a writer goroutine reads what the
// spool holds and inserts it in batches, one multi-row INSERT ... ON
// CONFLICT (id) DO NOTHING a batch. A spool file is emptied or removed
// only after the database committed every record in it. So a record
// answered is on disk before the answer leaves, as with the embedded
// records: an outage of the database only grows the spool, and a process
// killed, or stopped while the database is away, leaves its spool files
// for the next process on the data directory to replay. A replay after a
// crash between a commit and the spool's truncation inserts nothing
// twice: the id column is the table's primary key.
//
// Spool files are named <pid>-<random>-<seq>.spool and hold one JSON
// object per line, the form package records writes with an "id" member
// added. A process holds an exclusive flock on each of its spool files
// while it has them open, and replays only the files of others it can
// lock, which are those of processes that are gone; it looks for them
// when the database first takes its records and once a minute.
//
// The spool of a process is bounded (Options.SpoolMaxBytes). When it is
// full, Record refuses new records, logs it once per run of refusals and
// counts them (Stats.Refused): the records already spooled, the oldest,
// are the ones kept, and the embedded records, kept beside this sink by
// default, hold every call either way.
//
// The schema is created on first use by numbered migrations, recorded in
// tzctx_schema_migrations, run in one transaction under an advisory lock,
// so replicas starting together migrate once.
package pgrecords

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
)

// DefaultSpoolMaxBytes is the spool bound of Options.SpoolMaxBytes zero:
// about 800,000 records of 300 bytes, hours of a busy replica's calls.
const DefaultSpoolMaxBytes = 256 << 20

// Defaults of the writer.
const (
	defaultBatch      = 2000
	defaultRetryMin   = 100 * time.Millisecond
	defaultRetryMax   = 30 * time.Second
	defaultCloseWait  = 5 * time.Second
	connectTimeout    = 10 * time.Second
	statementTimeout  = 30 * time.Second
	orphanScanEvery   = time.Minute
	maxSegment        = 4 << 20
	minSegment        = 64 << 10
	readChunk         = 1 << 20
	spoolExt          = ".spool"
	migrationsLockKey = 0x747a637478 // "tzctx"
)

// Errors of the sink.
var (
	// ErrClosed is the fault of a record offered to a closed sink.
	ErrClosed = errors.New("the postgres records sink is closed")
	// ErrSpoolFull is the fault of a record refused because the spool
	// holds its bound.
	ErrSpoolFull = errors.New("the postgres records spool is full")
	// ErrBadURL is the error of a connection URL pgx cannot parse.
	ErrBadURL = errors.New("not a PostgreSQL connection URL")
)

// Options configure a Sink.
type Options struct {
	// URL is the database's connection URL (postgres://...), or any
	// connection string pgx reads.
	URL string
	// SpoolDir is the folder of the spool files, created 0o700 where
	// missing; the processes of one data directory share it.
	SpoolDir string
	// SpoolMaxBytes bounds this process's spool; zero is
	// DefaultSpoolMaxBytes.
	SpoolMaxBytes int64
	// BatchSize bounds the records of one INSERT; zero is 2000.
	BatchSize int
	// RetryMin and RetryMax bound the backoff between attempts while
	// the database is away; zero is 100ms and 30s.
	RetryMin, RetryMax time.Duration
	// CloseWait bounds how long Close tries to send what the spool
	// holds; zero is 5s. What is left stays for the next process.
	CloseWait time.Duration
	// Logger receives the sink's faults; nil is slog.Default().
	Logger *slog.Logger
}

// Stats count what a Sink did since Open.
type Stats struct {
	// Spooled is the number of records appended to the spool.
	Spooled int64
	// Inserted is the number of records the database committed that it
	// did not hold already.
	Inserted int64
	// Replayed is the number of records read from other processes'
	// spool files and sent.
	Replayed int64
	// Refused is the number of records refused because the spool was
	// full; Lost the number refused for another fault (a closed sink, a
	// spool that cannot be written).
	Refused, Lost int64
	// Rejected is the number of records the database refused, such as
	// a value out of the column's range; they are dropped and logged.
	Rejected int64
	// SpoolBytes is what this process's spool holds now.
	SpoolBytes int64
}

// segment is one of this process's spool files.
type segment struct {
	f    *os.File
	name string
	size int64 // bytes written, always at a line end
	done int64 // bytes committed to the database
}

// Sink is a tzctx.Recorder that sends records to PostgreSQL through a
// spool. It is safe for concurrent use.
type Sink struct {
	cfg    *pgx.ConnConfig
	opts   Options
	log    *slog.Logger
	limit  int64
	prefix string // "<pid>-<random>-" of spool names and record IDs
	secret string // the URL's password, scrubbed from logged faults

	mu      sync.Mutex
	segs    []*segment // oldest first; the last is the active one
	bytes   int64
	seq     uint64 // record IDs
	segSeq  int
	rotate  bool // the active segment ends in a torn line: start another
	closed  bool
	full    bool // refusing: log once per run
	failing bool // spool writes failing: log once per run
	stats   Stats

	kick chan struct{}
	done chan struct{}
	bg   sync.WaitGroup
	// ctx is cancelled by Close, which ends a statement in flight before
	// the last attempt within CloseWait.
	ctx    context.Context
	cancel context.CancelFunc

	// writer goroutine state
	conn     *pgx.Conn
	down     bool // the database is away: log once per run
	nextScan time.Time
}

var _ tzctx.Recorder = (*Sink)(nil)

// ParseURL checks a connection URL. Its error never holds the URL, which
// may hold a password.
func ParseURL(url string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil || url == "" {
		return nil, ErrBadURL
	}
	return cfg, nil
}

// Open returns a sink spooling under opts.SpoolDir and starts its writer.
// It does not wait for the database: one that is away is retried with
// backoff while the spool holds the records.
func Open(opts Options) (*Sink, error) {
	cfg, err := ParseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	if opts.SpoolMaxBytes < 0 {
		return nil, fmt.Errorf("the spool bound must not be negative (%d bytes)", opts.SpoolMaxBytes)
	}
	if opts.SpoolMaxBytes == 0 {
		opts.SpoolMaxBytes = DefaultSpoolMaxBytes
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = defaultBatch
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = defaultRetryMin
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = defaultRetryMax
	}
	opts.RetryMax = max(opts.RetryMax, opts.RetryMin)
	if opts.CloseWait <= 0 {
		opts.CloseWait = defaultCloseWait
	}
	if err := os.MkdirAll(opts.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the postgres records spool: %w", err)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "tzctx"
	}
	cfg.ConnectTimeout = connectTimeout
	s := &Sink{
		cfg:    cfg,
		opts:   opts,
		log:    opts.Logger,
		limit:  max(min(opts.SpoolMaxBytes/16, maxSegment), minSegment),
		prefix: fmt.Sprintf("%d-%s-", os.Getpid(), hex.EncodeToString(rnd[:])),
		secret: cfg.Password,
		kick:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.bg.Go(s.run)
	s.poke()
	return s, nil
}

// Record implements tzctx.Recorder: it appends rec to the spool with
// one write and returns; the writer sends it. A fault is logged once per
// run of them, with the record's action and code alone, and counted.
func (s *Sink) Record(_ context.Context, rec tzctx.Record) {
	body, err := records.Marshal(rec)
	if err != nil || len(body) < 2 {
		s.mu.Lock()
		s.failLocked(rec, fmt.Errorf("marshal: %w", err))
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.failLocked(rec, ErrClosed)
		return
	}
	s.seq++
	id := s.prefix + strconv.FormatUint(s.seq, 10)
	line := make([]byte, 0, len(body)+len(id)+10)
	line = append(line, `{"id":"`...)
	line = append(line, id...)
	line = append(line, `",`...)
	line = append(line, body[1:]...)
	line = append(line, '\n')
	if s.bytes+int64(len(line)) > s.opts.SpoolMaxBytes {
		s.stats.Refused++
		if !s.full {
			s.full = true
			s.log.Error("records: the postgres spool is full; new records are refused, and counted, until the database takes the spool (the embedded records, where kept, still hold them)",
				"spool", s.opts.SpoolDir, "bytes", s.bytes, "max_bytes", s.opts.SpoolMaxBytes, "action", rec.Action, "code", rec.Code)
		}
		return
	}
	if s.full {
		s.full = false
		s.log.Warn("records: the postgres spool takes records again", "spool", s.opts.SpoolDir, "refused", s.stats.Refused)
	}
	seg, err := s.activeLocked()
	if err != nil {
		s.failLocked(rec, err)
		return
	}
	n, err := seg.f.Write(line)
	if err != nil {
		if n > 0 {
			if terr := seg.f.Truncate(seg.size); terr != nil {
				// The torn line stays; start a new file, so no record
				// follows it on its line. Replay skips the torn line.
				seg.size += int64(n)
				s.bytes += int64(n)
				s.rotate = true
			}
		}
		s.failLocked(rec, err)
		return
	}
	seg.size += int64(n)
	s.bytes += int64(n)
	s.stats.Spooled++
	if s.failing {
		s.failing = false
		s.log.Warn("records: spooling postgres records again", "spool", s.opts.SpoolDir, "lost", s.stats.Lost)
	}
	s.poke()
}

func (s *Sink) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Sink) failLocked(rec tzctx.Record, err error) {
	s.stats.Lost++
	if s.failing {
		return
	}
	s.failing = true
	s.log.Error("records: a call record was not spooled for postgres; later faults are counted, not logged, until spooling recovers",
		"spool", s.opts.SpoolDir, "action", rec.Action, "code", rec.Code, "error", err.Error())
}

// activeLocked returns the segment to append to, starting one where
// there is none or the last one is full.
func (s *Sink) activeLocked() (*segment, error) {
	if n := len(s.segs); n > 0 && !s.rotate && s.segs[n-1].size < s.limit {
		return s.segs[n-1], nil
	}
	s.segSeq++
	name := fmt.Sprintf("%s%06d%s", s.prefix, s.segSeq, spoolExt)
	f, err := os.OpenFile(filepath.Join(s.opts.SpoolDir, name), os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create a spool file: %w", err)
	}
	// A fresh name no other process holds, so the lock is granted; it
	// tells replaying processes the file is alive.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("lock spool file %s: %w", name, err)
	}
	seg := &segment{f: f, name: name}
	s.segs = append(s.segs, seg)
	s.rotate = false
	return seg, nil
}

// Stats returns the counts of the sink.
func (s *Sink) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.SpoolBytes = s.bytes
	return st
}

// Close stops the writer after trying, for up to Options.CloseWait, to
// send what the spool holds. What the database did not take stays in the
// spool files, which the next process replays.
func (s *Sink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	s.cancel()
	s.bg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, seg := range s.segs {
		if seg.done == seg.size {
			if err := os.Remove(filepath.Join(s.opts.SpoolDir, seg.name)); err != nil && first == nil {
				first = err
			}
			s.bytes -= seg.size
		} else if err := seg.f.Sync(); err != nil && first == nil {
			first = err
		}
		if err := seg.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.segs = nil
	if s.bytes > 0 {
		s.log.Warn("records: records not yet in postgres are left in the spool; the next process on this data directory sends them",
			"spool", s.opts.SpoolDir, "bytes", s.bytes)
	}
	if s.stats.Refused > 0 || s.stats.Lost > 0 {
		s.log.Warn("records: postgres records were refused or lost", "refused", s.stats.Refused, "lost", s.stats.Lost)
	}
	if first != nil {
		return fmt.Errorf("close the postgres records spool: %w", first)
	}
	return nil
}

// run is the writer: it sends the spool whenever a record arrives, and
// retries with backoff while the database is away.
func (s *Sink) run() {
	defer func() {
		if s.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = s.conn.Close(ctx)
			cancel()
		}
	}()
	wait := s.opts.RetryMin
	tick := time.NewTicker(orphanScanEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.CloseWait)
			_ = s.send(ctx)
			cancel()
			return
		case <-s.kick:
		case <-tick.C:
		}
		err := s.send(s.ctx)
		if err == nil {
			wait = s.opts.RetryMin
			continue
		}
		s.fault(err)
		// Back off: records arriving meanwhile only wait in the spool.
		select {
		case <-s.done:
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.CloseWait)
			_ = s.send(ctx)
			cancel()
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, s.opts.RetryMax)
		s.poke()
	}
}

// fault logs the first fault of a run of them, without the password,
// and drops the connection.
func (s *Sink) fault(err error) {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
	if s.down || s.ctx.Err() != nil { // Close ended the statement
		return
	}
	s.down = true
	st := s.Stats()
	s.log.Error("records: postgres does not take records; they are spooled and sent once it does (retrying with backoff)",
		"server", s.server(), "spool_bytes", st.SpoolBytes, "error", s.scrub(err.Error()))
}

func (s *Sink) server() string {
	return fmt.Sprintf("%s:%d/%s", s.cfg.Host, s.cfg.Port, s.cfg.Database)
}

// scrub removes the password from a fault's text.
func (s *Sink) scrub(msg string) string {
	if s.secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.secret, "xxxxx")
}

// connect connects and migrates where it is not connected. It migrates
// on every connection, which costs one short transaction, so a database
// restored or recreated meanwhile gets its tables again.
func (s *Sink) connect(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	if err := Migrate(ctx, conn); err != nil {
		_ = conn.Close(ctx)
		return err
	}
	s.conn = conn
	return nil
}

// send inserts what this process's spool holds, then replays other
// processes' spool files where a scan is due.
func (s *Sink) send(ctx context.Context) error {
	if s.Stats().SpoolBytes == 0 && time.Now().Before(s.nextScan) {
		return nil
	}
	if err := s.connect(ctx); err != nil {
		return err
	}
	if s.down {
		s.down = false
		s.log.Info("records: postgres takes records again", "server", s.server(), "spool_bytes", s.Stats().SpoolBytes)
	}
	for {
		more, err := s.sendOwn(ctx)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	if time.Now().Before(s.nextScan) {
		return nil
	}
	if err := s.replayOrphans(ctx); err != nil {
		return err
	}
	s.nextScan = time.Now().Add(orphanScanEvery)
	return nil
}

// sendOwn sends one batch from this process's oldest segment holding
// unsent records, and reports whether any was sent.
func (s *Sink) sendOwn(ctx context.Context) (bool, error) {
	s.mu.Lock()
	var seg *segment
	for _, g := range s.segs {
		if g.done < g.size {
			seg = g
			break
		}
	}
	if seg == nil {
		s.mu.Unlock()
		return false, nil
	}
	from, to := seg.done, seg.size
	s.mu.Unlock()
	// The bytes [from, to) are written and will not change: read them
	// without the lock.
	buf := make([]byte, min(to-from, readChunk))
	n, err := seg.f.ReadAt(buf, from)
	if n < len(buf) {
		return false, fmt.Errorf("read the spool: %w", err)
	}
	rows, used, _ := parse(buf, s.opts.BatchSize)
	if used == 0 {
		// A line longer than the chunk: records are far shorter, so it
		// is damage. Skip to the line's end.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			used = i + 1
		} else {
			used = len(buf)
		}
	}
	ins, err := s.insert(ctx, rows)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Inserted += ins
	seg.done += int64(used)
	s.releaseLocked()
	return true, nil
}

// releaseLocked removes the segments the database took, and empties the
// active one where it took all of it.
func (s *Sink) releaseLocked() {
	keep := s.segs[:0]
	for i, g := range s.segs {
		if g.done < g.size {
			keep = append(keep, g)
			continue
		}
		if i == len(s.segs)-1 {
			if err := g.f.Truncate(0); err == nil {
				s.bytes -= g.size
				g.size, g.done = 0, 0
				keep = append(keep, g)
				continue
			}
		}
		// Removed before closed: the lock, held until Close, keeps any
		// replayer off it meanwhile.
		if err := os.Remove(filepath.Join(s.opts.SpoolDir, g.name)); err != nil {
			s.log.Warn("records: remove a sent spool file", "spool", s.opts.SpoolDir, "error", err.Error())
		}
		g.f.Close()
		s.bytes -= g.size
	}
	for i := len(keep); i < len(s.segs); i++ {
		s.segs[i] = nil
	}
	s.segs = keep
}

// replayOrphans sends and removes the spool files of processes that are
// gone: those whose lock it gets.
func (s *Sink) replayOrphans(ctx context.Context) error {
	ents, err := os.ReadDir(s.opts.SpoolDir)
	if err != nil {
		return fmt.Errorf("list the spool: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, spoolExt) || strings.HasPrefix(name, s.prefix) || !e.Type().IsRegular() {
			continue
		}
		if err := s.replay(ctx, filepath.Join(s.opts.SpoolDir, name)); err != nil {
			return err
		}
	}
	return nil
}

// replay sends and removes one spool file of another process, where its
// lock is free.
func (s *Sink) replay(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open a spool file to replay: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // alive, or another process replays it
	}
	// Removed by another replayer between the open and the lock?
	if pi, err := os.Stat(path); err != nil {
		return nil
	} else if fi, err := f.Stat(); err != nil || !os.SameFile(fi, pi) {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read a spool file to replay: %w", err)
	}
	var sent, skipped int
	for len(data) > 0 {
		rows, used, bad := parse(data, s.opts.BatchSize)
		skipped += bad
		if used == 0 { // a torn last line, or one far too long
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				skipped++
				break
			}
			used = i + 1
			skipped++
		}
		ins, err := s.insert(ctx, rows)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.stats.Inserted += ins
		s.stats.Replayed += int64(len(rows))
		s.mu.Unlock()
		sent += len(rows)
		data = data[used:]
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove a replayed spool file: %w", err)
	}
	s.log.Info("records: replayed a spool file a gone process left", "file", filepath.Base(path), "records", sent, "skipped", skipped)
	return nil
}

// row is one spooled record with its ID.
type row struct {
	id  string
	rec tzctx.Record
}

// parse reads up to n lines of buf, ending at a line end, and returns the
// records, the bytes they took, and how many lines it skipped as damage.
func parse(buf []byte, n int) (rows []row, used, bad int) {
	for len(rows) < n {
		i := bytes.IndexByte(buf[used:], '\n')
		if i < 0 {
			break
		}
		line := buf[used : used+i]
		used += i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id, ok := lineID(line)
		rec, err := records.Unmarshal(line)
		if !ok || err != nil {
			bad++
			continue
		}
		rows = append(rows, row{id: id, rec: rec})
	}
	return rows, used, bad
}

// lineID returns the ID a spool line begins with: Record writes it
// first, and IDs hold no character JSON escapes.
func lineID(line []byte) (string, bool) {
	const head = `{"id":"`
	if !bytes.HasPrefix(line, []byte(head)) {
		return "", false
	}
	end := bytes.IndexByte(line[len(head):], '"')
	if end <= 0 {
		return "", false
	}
	return string(line[len(head) : len(head)+end]), true
}

const insertSQL = `INSERT INTO tzctx_records
	(id, time, action, transport, subject, code, status, credential, account, application, version, code_points, duration_ns)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int4[],
	$8::text[], $9::text[], $10::text[], $11::text[], $12::int8[], $13::int8[])
ON CONFLICT (id) DO NOTHING`

// insert commits rows and returns how many were new. Where the server
// refuses the batch for its data (not for a fault of the connection), the
// rows are inserted one by one and those it refuses are dropped and
// counted, so one bad record does not hold the spool.
func (s *Sink) insert(ctx context.Context, rows []row) (int64, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	n, err := s.exec(ctx, rows)
	var pgErr *pgconn.PgError
	if err == nil || !errors.As(err, &pgErr) || !dataFault(pgErr) {
		return n, err
	}
	var total int64
	for i := range rows {
		n, err := s.exec(ctx, rows[i:i+1])
		if errors.As(err, &pgErr) && dataFault(pgErr) {
			s.mu.Lock()
			s.stats.Rejected++
			s.mu.Unlock()
			s.log.Error("records: postgres refused a call record; it is dropped",
				"action", rows[i].rec.Action, "code", rows[i].rec.Code, "sqlstate", pgErr.Code)
			continue
		}
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// dataFault reports whether the server refused a statement for the
// values it carried: SQLSTATE class 22 (data exception) or 23 (integrity
// constraint violation).
func dataFault(e *pgconn.PgError) bool {
	return strings.HasPrefix(e.Code, "22") || strings.HasPrefix(e.Code, "23")
}

func (s *Sink) exec(ctx context.Context, rows []row) (int64, error) {
	n := len(rows)
	var (
		ids, actions, transports, subjects, codes = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		creds, accounts, apps, versions           = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		times                                     = make([]time.Time, n)
		statuses                                  = make([]int32, n)
		points, durations                         = make([]int64, n), make([]int64, n)
	)
	for i, r := range rows {
		ids[i], times[i] = text(r.id), r.rec.Time
		actions[i], transports[i], subjects[i], codes[i] = text(r.rec.Action), text(r.rec.Transport), text(r.rec.Subject), text(r.rec.Code)
		statuses[i] = int32(r.rec.Status)
		creds[i], accounts[i], apps[i], versions[i] = text(r.rec.Credential), text(r.rec.Account), text(r.rec.Application), text(r.rec.Version)
		points[i], durations[i] = int64(r.rec.CodePoints), int64(r.rec.Duration)
	}
	ctx, cancel := context.WithTimeout(ctx, statementTimeout)
	defer cancel()
	tag, err := s.conn.Exec(ctx, insertSQL, ids, times, actions, transports, subjects, codes, statuses,
		creds, accounts, apps, versions, points, durations)
	if err != nil {
		return 0, fmt.Errorf("insert call records: %w", err)
	}
	return tag.RowsAffected(), nil
}

// text is s as PostgreSQL's text holds it: without NUL, which it refuses.
// Strings from the spool are valid UTF-8 already (JSON decoding replaces
// invalid bytes).
func text(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}
