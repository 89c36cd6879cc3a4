package testkit

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
)

// The keys of the S3 servers StartS3 runs.
const (
	S3AccessKey = "tzctxtestaccess"
	S3SecretKey = "tzctxtestsecret0123456789"
)

// S3 is a real S3-compatible server (versitygw, with its POSIX backend)
// running as its own process on loopback for one test.
type S3 struct {
	// Endpoint is its http:// URL.
	Endpoint string
	addr     string
	root     string
	bin      string
	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	log      bytes.Buffer
}

// StartS3 starts an S3 server on a free loopback port with an empty store
// and a bucket named bucket, and stops it when the test ends. It skips the
// test, saying why, where versitygw is absent (see VersityGW): make test
// installs it.
func StartS3(t testing.TB, bucket string) *S3 {
	t.Helper()
	bin, err := VersityGW()
	if err != nil {
		t.Skip(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &S3{Endpoint: "http://" + addr, addr: addr, root: t.TempDir(), bin: bin}
	s.Start(t)
	t.Cleanup(func() { s.Stop(t) })
	c, err := objstore.New(objstore.Config{Endpoint: s.Endpoint, Region: "us-east-1", AccessKey: S3AccessKey, SecretKey: S3SecretKey}, objstore.Location{Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.MakeBucket(context.Background(), "us-east-1"); err != nil {
		t.Fatal(err)
	}
	return s
}

// Env returns the environment variables that point a tzctx process at
// the server.
func (s *S3) Env() []string {
	return []string{"AWS_ENDPOINT_URL_S3=" + s.Endpoint, "AWS_ACCESS_KEY_ID=" + S3AccessKey, "AWS_SECRET_ACCESS_KEY=" + S3SecretKey, "AWS_REGION=us-east-1"}
}

// Start starts the server process (again, after Stop, on the same port
// and store) and waits until it answers.
func (s *S3) Start(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return
	}
	s.log.Reset()
	cmd := exec.Command(s.bin, "--port", s.addr, "--quiet", "posix", s.root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+S3AccessKey, "ROOT_SECRET_KEY="+S3SecretKey)
	cmd.Stdout, cmd.Stderr = &s.log, &s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	hc := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; {
		// Any HTTP answer (403 to an unsigned request) means it serves.
		resp, err := hc.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("versitygw exited: %s", s.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw is not serving on %s: %v\n%s", s.addr, err, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.cmd, s.exited = cmd, exited
}

// Stop stops the server process; the store's files stay for Start.
func (s *S3) Stop(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	s.cmd = nil
}
