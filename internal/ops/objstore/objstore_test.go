package objstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
)

func client(t *testing.T, s3 *testkit.S3, loc string) *objstore.Client {
	t.Helper()
	l, err := objstore.ParseLocation(loc)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	c, err := objstore.New(objstore.Config{}.FromEnv(func(k string) string { return env[k] }), l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPublishAndFollow: against a real S3 server, an archive of several
// parts goes up and comes back byte for byte with the size and SHA-256
// its pointer names; the pointer reads once, then costs a conditional
// request that reports no change until it is replaced; a replaced archive
// that no longer matches its pointer is refused.
func TestPublishAndFollow(t *testing.T) {
	t.Parallel()
	s3 := testkit.StartS3(t, "versions")
	c := client(t, s3, "s3://versions/site/prod")
	ctx := context.Background()
	if _, _, _, err := c.Active(ctx, ""); !errors.Is(err, objstore.ErrNoPointer) {
		t.Fatalf("Active before a publish: %v, want ErrNoPointer", err)
	}
	data := make([]byte, 40<<20+12345) // three parts
	rand.Read(data)
	p, err := c.PutArchive(ctx, "v1", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if p.Size != int64(len(data)) || p.Archive != "versions/v1.tzctx" {
		t.Fatalf("pointer %+v", p)
	}
	if err := c.SetActive(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, etag, changed, err := c.Active(ctx, "")
	if err != nil || !changed || got != p || etag == "" {
		t.Fatalf("Active = %+v, %q, %v, %v; want %+v", got, etag, changed, err, p)
	}
	if _, same, changed, err := c.Active(ctx, etag); err != nil || changed || same != etag {
		t.Fatalf("Active(etag) of an unchanged pointer = %q, %v, %v", same, changed, err)
	}
	var buf bytes.Buffer
	if err := c.GetArchive(ctx, got, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("GetArchive: %v (%d bytes)", err, buf.Len())
	}
	p2, err := c.PutArchive(ctx, "v2", strings.NewReader("second"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetActive(ctx, p2); err != nil {
		t.Fatal(err)
	}
	if got, etag2, changed, err := c.Active(ctx, etag); err != nil || !changed || got != p2 || etag2 == etag {
		t.Fatalf("Active(old etag) after a new pointer = %+v, %v, %v", got, changed, err)
	}
	// The same key replaced by other bytes of the same size.
	if _, err := c.PutArchive(ctx, "v2", strings.NewReader("SECOND")); err != nil {
		t.Fatal(err)
	}
	if err := c.GetArchive(ctx, p2, &buf); !errors.Is(err, objstore.ErrMismatch) {
		t.Fatalf("GetArchive of a changed archive: %v, want ErrMismatch", err)
	}
}

// TestStoreDown: with the server stopped, reads fail with an error that
// names the location and no credential, and work again once it is back.
func TestStoreDown(t *testing.T) {
	t.Parallel()
	s3 := testkit.StartS3(t, "versions")
	c := client(t, s3, "s3://versions")
	ctx := context.Background()
	p, err := c.PutArchive(ctx, "v1", strings.NewReader("archive"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetActive(ctx, p); err != nil {
		t.Fatal(err)
	}
	s3.Stop(t)
	_, _, _, err = c.Active(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "s3://versions") || strings.Contains(err.Error(), testkit.S3SecretKey) {
		t.Fatalf("Active with the store down: %v", err)
	}
	s3.Start(t)
	if got, _, changed, err := c.Active(ctx, ""); err != nil || !changed || got != p {
		t.Fatalf("Active after a restart: %+v, %v, %v", got, changed, err)
	}
}

func TestParseLocation(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"s3://bucket": "s3://bucket", "s3://bucket/a/b/": "s3://bucket/a/b", "s3://my.bucket-1/p": "s3://my.bucket-1/p"} {
		l, err := objstore.ParseLocation(in)
		if err != nil || l.String() != want {
			t.Errorf("ParseLocation(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	for _, bad := range []string{"bucket/p", "s3://", "s3://Bucket", "s3://ab", "s3://b_c/p", "s3://bucket/a/../b", "s3://bucket/a//b", "https://bucket"} {
		if _, err := objstore.ParseLocation(bad); err == nil {
			t.Errorf("ParseLocation(%q) accepted", bad)
		}
	}
	if _, err := objstore.New(objstore.Config{Endpoint: "ftp://x"}, objstore.Location{Bucket: "abc"}); err == nil {
		t.Error("an ftp endpoint was accepted")
	}
	if _, err := objstore.New(objstore.Config{AccessKey: "a"}, objstore.Location{Bucket: "abc"}); err == nil {
		t.Error("an access key without a secret was accepted")
	}
}

// TestStalledStore: through a proxy that stalls, an archive download that
// has received 64 KiB and then receives nothing fails once the stall
// timeout passes, and a read of the pointer whose answer never comes fails
// once the request timeout passes, each with an error matching ErrTimeout
// that names the setting; once the store answers again both work. A
// download that keeps receiving bytes outlasts the stall timeout: it has
// no deadline.
func TestStalledStore(t *testing.T) {
	t.Parallel()
	s3 := testkit.StartS3(t, "versions")
	direct := client(t, s3, "s3://versions/stall")
	ctx := context.Background()
	data := make([]byte, 2<<20)
	rand.Read(data)
	p, err := direct.PutArchive(ctx, "v1", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.SetActive(ctx, p); err != nil {
		t.Fatal(err)
	}
	// 512 KiB/s: the 2 MiB archive takes about 4 s, twice the stall
	// timeout, and a 32 KiB read 1/16th of it.
	proxy := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), 512<<10)
	c, err := objstore.New(objstore.Config{Endpoint: "http://" + proxy.Addr, Region: "us-east-1", AccessKey: testkit.S3AccessKey, SecretKey: testkit.S3SecretKey}, objstore.Location{Bucket: "versions", Prefix: "stall"})
	if err != nil {
		t.Fatal(err)
	}
	c.SetTimeouts(2*time.Second, 2*time.Second)

	var buf bytes.Buffer
	if err := c.GetArchive(ctx, p, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("a slow download that keeps receiving bytes: %v (%d bytes)", err, buf.Len())
	}

	before := proxy.Sent()
	done := make(chan error, 1)
	go func() { done <- c.GetArchive(ctx, p, io.Discard) }()
	for proxy.Sent()-before < 64<<10 {
		select {
		case err := <-done:
			t.Fatalf("the download ended before the stall: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	proxy.SetStalled(true)
	select {
	case err := <-done:
		if !errors.Is(err, objstore.ErrTimeout) || !strings.Contains(err.Error(), "stall_timeout") || !strings.Contains(err.Error(), "versions/v1.tzctx") {
			t.Errorf("a stalled download: %v, want ErrTimeout naming the archive and stall_timeout", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a stalled download has not ended after 2 minutes")
	}

	active := make(chan error, 1)
	go func() { _, _, _, err := c.Active(ctx, ""); active <- err }()
	select {
	case err := <-active:
		if !errors.Is(err, objstore.ErrTimeout) || !strings.Contains(err.Error(), "request_timeout") || !strings.Contains(err.Error(), "ACTIVE") {
			t.Errorf("a stalled read of the pointer: %v, want ErrTimeout naming ACTIVE and request_timeout", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a stalled read of the pointer has not ended after 2 minutes")
	}

	proxy.SetStalled(false)
	if got, _, changed, err := c.Active(ctx, ""); err != nil || !changed || got != p {
		t.Fatalf("Active once the store answers again: %+v, %v, %v", got, changed, err)
	}
}
