package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/server"
)

// startProxy starts nginx (Debian's) on a free loopback port as the load
// balancer of the servers at addrs, round robin, and stops it at the
// test's end. It skips the test, saying why, where nginx is absent.
func startProxy(t *testing.T, addrs []string) string {
	t.Helper()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			t.Skip("nginx, the load balancer this test puts in front of the replicas, is absent: apt-get install nginx (.ci/run does)")
		}
		nginx = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	addr := freeAddr(t)
	user := ""
	if os.Getuid() == 0 {
		user = "user root;"
	}
	var ups strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&ups, "\t\tserver %s;\n", a)
	}
	conf := fmt.Sprintf(`daemon off;
%[1]s
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path %[2]s/body;
	proxy_temp_path %[2]s/proxy;
	fastcgi_temp_path %[2]s/fastcgi;
	uwsgi_temp_path %[2]s/uwsgi;
	scgi_temp_path %[2]s/scgi;
	upstream tzctx {
%[3]s		keepalive 16;
	}
	server {
		listen %[4]s;
		location / {
			proxy_pass http://tzctx;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			# the reverse-proxy advice of docs/security.md: the replicas' Host guard
			# answers a loopback Host; nginx would otherwise forward
			# "Host: tzctx", the upstream's name, and be refused 403.
			proxy_set_header Host localhost;
			proxy_next_upstream off;
		}
	}
}
`, user, dir, ups.String(), addr)
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// nginx's workers outlive a killed master: the whole process group
	// is stopped, SIGTERM first, at the test's end.
	cmd := exec.Command(nginx, "-p", dir, "-c", cfg, "-e", filepath.Join(dir, "error.log"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	awaitFollow(t, 10*time.Second, "nginx answers", func() (bool, string) {
		p := getProbe(t, "http://"+addr+"/readyz")
		return p.code == 200, fmt.Sprintf("%+v", p)
	})
	return "http://" + addr
}

// TestReplicasFollowBehindALoadBalancer is the fleet on loopback:
// three `serve --follow` replicas of one S3 location behind nginx, read
// continuously, page by page, while a new version is published and
// activated. Every chunk answered is one whole version's text at its
// offset, a paging that spans the switch is refused with context_changed
// (never mixed text), every replica serves the new version within 10 s,
// and a paging begun on one replica continues on another with the same
// stamps. Their records go to one PostgreSQL database, stopped during the
// switch and started again: every call the replicas answered is there
// once.
func TestReplicasFollowBehindALoadBalancer(t *testing.T) {
	tier.Long(t, "the replica fleet test runs three servers")
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	env := s3.Env()
	loc := "s3://versions/fleet"
	publisher(t, bin, env, loc)(testkit.SampleSite(t), "v1")
	// The fleet's records go to one PostgreSQL database, where the
	// server binaries are installed (.ci/run installs them).
	var pg *testkit.Postgres
	records := ""
	if testkit.HavePostgres() {
		pg = testkit.StartPostgres(t)
		records = fmt.Sprintf(`, "records": {"postgres_url": %q}`, pg.URL)
	} else {
		t.Log("PostgreSQL's server binaries are absent: the replicas keep their records to themselves, and the sink part of this test is skipped")
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"watch_interval": "200ms", "follow": {"interval": "500ms"}`+records+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var addrs, bases, datas []string
	for range 3 {
		a, d := freeAddr(t), t.TempDir()
		startProc(t, bin, env, "--data", d, "serve", "--addr", a, "--config", cfg, "--follow", loc)
		addrs, bases, datas = append(addrs, a), append(bases, "http://"+a), append(datas, d)
	}
	for _, b := range bases {
		awaitFollow(t, 20*time.Second, b+" serves v1", func() (bool, string) {
			p := getProbe(t, b+"/readyz")
			return p.Version == "v1", fmt.Sprintf("%+v", p)
		})
	}
	lb := startProxy(t, addrs)
	page := map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"}
	v1, v1Stamp := readWhole(t, bases[0], page)

	// A paging begun on one replica continues on the others.
	const limit = 1500
	first := mustRead(t, bases[0], map[string]any{"tree": "cloud", "page": "/cloud/reference/http/", "limit": limit})
	text, off := first.Text, *first.NextOffset
	for i := 1; ; i++ {
		a := mustRead(t, bases[i%3], map[string]any{"tree": "cloud", "page": "/cloud/reference/http/", "limit": limit, "offset": off, "stamp": first.Stamp})
		if a.Stamp != first.Stamp {
			t.Fatalf("replica %d answers stamp %s for the paging replica 0 began with %s", i%3, a.Stamp, first.Stamp)
		}
		text += a.Text
		if a.NextOffset == nil {
			break
		}
		off = *a.NextOffset
	}
	if text != v1 {
		t.Fatal("a paging across the three replicas did not join to the page's text")
	}

	// Readers page through the load balancer while v2 is published.
	texts := map[string][]rune{v1Stamp: []rune(v1)}
	var mu sync.Mutex
	var chunks, pagings, changed, mixed atomic.Int64
	var bad atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				stamp, off := "", 0
				for {
					body := map[string]any{"tree": "cloud", "page": "/cloud/reference/http/", "limit": limit}
					if off > 0 {
						body["offset"], body["stamp"] = off, stamp
					}
					code, a, raw, err := post(lb, "read_documentation", body)
					if err != nil {
						bad.Store(err.Error())
						return
					}
					if a.Error != nil && a.Error.Code == "context_changed" {
						changed.Add(1)
						break
					}
					if code != 200 || a.Error != nil {
						bad.Store(fmt.Sprintf("status %d: %.200s", code, raw))
						return
					}
					chunks.Add(1)
					mu.Lock()
					whole, known := texts[a.Stamp]
					mu.Unlock()
					rs := []rune(a.Text)
					if !known || off > 0 && a.Stamp != stamp || a.Offset+len(rs) > len(whole) || string(whole[a.Offset:a.Offset+len(rs)]) != a.Text {
						mixed.Add(1)
					}
					stamp = a.Stamp
					if a.NextOffset == nil {
						pagings.Add(1)
						break
					}
					off = *a.NextOffset
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	site2 := changedSite(t)
	// The readers must know v2's text before any replica serves it.
	v2Dir := t.TempDir()
	runProc(t, bin, nil, "--data", v2Dir, "ingest", site2, "--version", "v2", "--activate")
	srv := startServer(t, v2Dir, server.DefaultConfig())
	v2, v2Stamp := readWhole(t, srv.base, page)
	mu.Lock()
	texts[v2Stamp] = []rune(v2)
	mu.Unlock()
	publisher(t, bin, env, loc)(site2, "v2")
	published := time.Now() // the pointer is replaced as publish ends
	if pg != nil {
		// The database goes away for a while as the replicas switch.
		pg.Stop(t)
	}
	for _, b := range bases {
		awaitFollow(t, 10*time.Second, b+" serves v2", func() (bool, string) {
			p := getProbe(t, b+"/readyz")
			return p.Version == "v2", fmt.Sprintf("%+v", p)
		})
	}
	all := time.Since(published)
	if pg != nil {
		time.Sleep(time.Second)
		pg.Start(t)
	}
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if v := bad.Load(); v != nil {
		t.Fatalf("a read through the load balancer failed: %v", v)
	}
	t.Logf("from the end of the publish of v2 to all three replicas serving it: %v; %d chunks in %d whole pagings read through nginx, %d pagings refused with context_changed, %d chunks of mixed text",
		all.Round(time.Millisecond), chunks.Load(), pagings.Load(), changed.Load(), mixed.Load())
	if mixed.Load() != 0 {
		t.Errorf("%d chunks were not one version's text at their offset", mixed.Load())
	}
	if chunks.Load() == 0 || pagings.Load() == 0 {
		t.Error("the readers read nothing")
	}
	for _, b := range bases {
		if full, stamp := readWhole(t, b, page); full != v2 || stamp != v2Stamp {
			t.Errorf("%s does not serve v2's text", b)
		}
	}
	if pg == nil {
		return
	}
	// Every call each replica answered, recorded in its own folder before
	// the answer, is in the database once, the outage notwithstanding.
	want := map[callKey]int{}
	calls := 0
	for _, d := range datas {
		keys, n := recordKeys(t, runProc(t, bin, nil, "--data", d, "records", "--json").stdout.String())
		for k, c := range keys {
			want[k] += c
		}
		calls += n
	}
	if int64(calls) < chunks.Load()+changed.Load() {
		t.Fatalf("the replicas recorded %d calls; the readers alone were answered %d", calls, chunks.Load()+changed.Load())
	}
	var got map[callKey]int
	n := 0
	if !waitFor(60*time.Second, func() bool {
		got, n = recordKeys(t, runProc(t, bin, nil, "--data", datas[0], "records", "--from-postgres", "--config", cfg, "--json").stdout.String())
		return n >= calls
	}) {
		t.Fatalf("%d records in PostgreSQL for the %d calls the replicas answered", n, calls)
	}
	for k, c := range want {
		if got[k] != c {
			t.Errorf("%v: %d calls answered, %d records in PostgreSQL", k, c, got[k])
		}
	}
	if n != calls {
		t.Errorf("%d records in PostgreSQL for %d calls", n, calls)
	}
	t.Logf("records: %d calls answered by the three replicas, %d records in PostgreSQL after a stop of the database during the switch", calls, n)
}
