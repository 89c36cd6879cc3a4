package testkit

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is a throwaway PostgreSQL server on 127.0.0.1, in a temporary
// folder of its own, that a test may stop and start again on the same
// port. Its URL names the superuser postgres with trust authentication.
type Postgres struct {
	// URL is the server's connection URL.
	URL string

	dir, bin string
	port     int
	attr     *syscall.SysProcAttr
	env      []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
	logf   *os.File
}

// pgBinDir finds the server binaries: $TZCTX_PG_BINDIR, else the highest
// /usr/lib/postgresql/N/bin (Debian's layout).
func pgBinDir() string {
	if d := os.Getenv("TZCTX_PG_BINDIR"); d != "" {
		return d
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	ver := func(p string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		return v
	}
	sort.Slice(m, func(i, j int) bool { return ver(m[i]) < ver(m[j]) })
	if len(m) == 0 {
		return ""
	}
	return filepath.Dir(m[len(m)-1])
}

// template is one initdb per test binary, copied for every server.
var template struct {
	once sync.Once
	dir  string // holds data/, the initialised cluster
	attr *syscall.SysProcAttr
	uid  int
	err  error
}

// initTemplate runs initdb once. PostgreSQL refuses to run as root, so
// as root initdb and the servers run as $TZCTX_PG_USER (default postgres,
// the user Debian's package creates), in folders from os.MkdirTemp that
// it owns: t.TempDir's parent is root's alone.
func initTemplate(bin string) {
	t := &template
	t.attr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	t.uid = -1
	gid := -1
	if os.Geteuid() == 0 {
		name := os.Getenv("TZCTX_PG_USER")
		if name == "" {
			name = "postgres"
		}
		u, err := user.Lookup(name)
		if err != nil {
			t.err = fmt.Errorf("running as root, and there is no user %q to run PostgreSQL as (set TZCTX_PG_USER): %w", name, err)
			return
		}
		t.uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		t.attr.Credential = &syscall.Credential{Uid: uint32(t.uid), Gid: uint32(gid), NoSetGroups: true}
	}
	dir, err := os.MkdirTemp("", "tzctx-pgtemplate-*")
	if err != nil {
		t.err = err
		return
	}
	if t.uid >= 0 {
		if err := os.Chown(dir, t.uid, gid); err != nil {
			t.err = err
			return
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions")
	initdb.SysProcAttr, initdb.Env, initdb.Dir = t.attr, pgEnv(), dir
	if out, err := initdb.CombinedOutput(); err != nil {
		t.err = fmt.Errorf("initdb: %w\n%s", err, out)
		return
	}
	t.dir = dir
}

func pgEnv() []string { return append(os.Environ(), "LC_ALL=C.UTF-8", "TZ=UTC") }

// HavePostgres reports whether StartPostgres finds server binaries, for
// tests that cover PostgreSQL where it is installed and run without it
// elsewhere.
func HavePostgres() bool { return pgBinDir() != "" }

// StartPostgres starts a new server, stopped when the test ends, or
// skips the test, saying why, where no PostgreSQL binaries are found.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bin := pgBinDir()
	if bin == "" {
		t.Skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin or $TZCTX_PG_BINDIR: this test runs a real server (apt-get install postgresql)")
	}
	template.once.Do(func() { initTemplate(bin) })
	if template.err != nil {
		t.Fatal(template.err)
	}
	dir, err := os.MkdirTemp("", "tzctx-pg-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// cp -a keeps the owner and the modes initdb gave (postgres wants
	// its data folder 0700 and its own).
	cp := exec.Command("cp", "-a", filepath.Join(template.dir, "data"), filepath.Join(dir, "data"))
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copy the initialised cluster: %v\n%s", err, out)
	}
	if template.uid >= 0 {
		if err := os.Chown(dir, template.uid, -1); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	p := &Postgres{
		URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
		dir: dir, bin: bin, port: port, attr: template.attr, env: pgEnv(),
	}
	t.Cleanup(func() { p.stop() })
	p.Start(t)
	return p
}

// Start starts the server again after Stop (StartPostgres starts it the
// first time), and returns once it accepts connections.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		t.Fatal("testkit: PostgreSQL is running already")
	}
	logf, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(filepath.Join(p.bin, "postgres"), "-D", filepath.Join(p.dir, "data"),
		"-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(p.port),
		"-c", "unix_socket_directories="+p.dir, // short: socket paths are limited to 107 bytes
		"-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=50", "-c", "shared_buffers=32MB")
	srv.SysProcAttr, srv.Env, srv.Dir = p.attr, p.env, p.dir
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	p.cmd, p.exited, p.logf = srv, exited, logf
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, p.URL)
		if err == nil {
			c.Close(ctx)
			cancel()
			return
		}
		cancel()
		select {
		case e := <-exited:
			exited <- e
			t.Fatalf("postgres exited: %v\n%s", e, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres does not accept connections: %v\n%s", err, p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server with a fast shutdown (SIGINT): clients are
// disconnected, and committed transactions are kept.
func (p *Postgres) Stop(t testing.TB) {
	t.Helper()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}

func (p *Postgres) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return nil
	}
	defer func() { p.logf.Close(); p.cmd = nil }()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
		return nil
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
		return fmt.Errorf("postgres did not stop within 20s of SIGINT; killed\n%s", p.log())
	}
}

func (p *Postgres) log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "postgres.log"))
	return strings.TrimSpace(string(b))
}
