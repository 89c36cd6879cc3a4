// Package objstore keeps published versions in an S3-compatible object
// store: AWS S3, MinIO, Cloudflare R2, Google Cloud Storage's S3 interface
// or any other. It alone imports the S3 client (minio-go).
//
// Under a location s3://BUCKET/PREFIX a publisher writes each version's
// archive once, as PREFIX/versions/NAME.tzctx, and then, to activate it,
// replaces the pointer object PREFIX/ACTIVE, a small JSON document naming
// the archive with its size and SHA-256. The archive is complete before
// the pointer names it: an interrupted upload leaves at most an
// unfinished multipart upload, which no reader sees, or an archive no
// pointer names. Followers read the pointer with its ETag, so a poll that
// finds it unchanged costs one conditional request and no body.
package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Location is a bucket and a key prefix, written s3://BUCKET/PREFIX.
type Location struct {
	Bucket, Prefix string
}

// String returns the location's URL.
func (l Location) String() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

func (l Location) key(rel string) string {
	if l.Prefix == "" {
		return rel
	}
	return l.Prefix + "/" + rel
}

// ParseLocation parses s3://BUCKET or s3://BUCKET/PREFIX.
func ParseLocation(s string) (Location, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return Location{}, fmt.Errorf("%q is not an s3:// URL; write s3://BUCKET/PREFIX", s)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if bucket == "" {
		return Location{}, fmt.Errorf("%q names no bucket; write s3://BUCKET/PREFIX", s)
	}
	if len(bucket) < 3 || len(bucket) > 63 || strings.Trim(bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return Location{}, fmt.Errorf("bucket %q is not a valid bucket name: 3 to 63 lower-case letters, digits, dots and hyphens", bucket)
	}
	if strings.Contains(prefix, "//") || strings.Contains("/"+prefix+"/", "/../") {
		return Location{}, fmt.Errorf("prefix %q holds an empty or '..' segment", prefix)
	}
	return Location{Bucket: bucket, Prefix: prefix}, nil
}

// Config is how to reach the object store. The zero Endpoint means AWS
// S3 itself.
type Config struct {
	// Endpoint is an http:// or https:// URL, or a bare host:port,
	// which means https.
	Endpoint  string `json:"endpoint"`
	Region    string `json:"region"`
	AccessKey string `json:"access_key_id"`
	SecretKey string `json:"secret_access_key"`
	// PathStyle addresses buckets as ENDPOINT/BUCKET rather than as
	// BUCKET.ENDPOINT; it is on for any endpoint but AWS's own.
	PathStyle *bool `json:"path_style,omitempty"`
}

// FromEnv fills what c leaves empty from the usual environment variables:
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; AWS_REGION, else
// AWS_DEFAULT_REGION; AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
func (c Config) FromEnv(getenv func(string) string) Config {
	first := func(have string, names ...string) string {
		if have != "" {
			return have
		}
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	c.Endpoint = first(c.Endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	c.Region = first(c.Region, "AWS_REGION", "AWS_DEFAULT_REGION")
	c.AccessKey = first(c.AccessKey, "AWS_ACCESS_KEY_ID")
	c.SecretKey = first(c.SecretKey, "AWS_SECRET_ACCESS_KEY")
	return c
}

// The default deadlines of a Client's requests (see SetTimeouts).
const (
	DefaultRequestTimeout = 10 * time.Second
	DefaultStallTimeout   = 30 * time.Second
)

// Client reads and writes the versions of one location.
type Client struct {
	mc  *minio.Client
	loc Location
	// request bounds each small request (the pointer, a lookup); stall
	// bounds the time an archive download may go without a byte.
	request, stall time.Duration
}

// SetTimeouts sets the deadline of each small request (the pointer, a
// lookup, a bucket's creation) and the time an archive download may go
// without receiving a byte before it fails; a download that goes on
// receiving bytes has no deadline, so a large archive on a slow link
// still arrives. A zero value keeps the default (DefaultRequestTimeout,
// DefaultStallTimeout). It is not safe to call during requests.
func (c *Client) SetTimeouts(request, stall time.Duration) {
	if request > 0 {
		c.request = request
	}
	if stall > 0 {
		c.stall = stall
	}
}

// ErrTimeout is matched by the error of a request to the store that got
// no answer, or a download that received no byte, in its time.
var ErrTimeout = errors.New("the object store did not answer in time")

// bounded returns ctx bounded by the request timeout, and a function
// that turns an error of a request under it into one that says the
// request timed out, where it did.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc, func(error) error) {
	bctx, cancel := context.WithTimeoutCause(ctx, c.request, ErrTimeout)
	return bctx, cancel, func(err error) error {
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(bctx), ErrTimeout) {
			return fmt.Errorf("%w: no answer within %v (follow.request_timeout)", ErrTimeout, c.request)
		}
		return err
	}
}

// New returns a client of the location loc. It makes no request.
func New(cfg Config, loc Location) (*Client, error) {
	host, secure := "s3.amazonaws.com", true
	if cfg.Endpoint != "" {
		e := cfg.Endpoint
		if !strings.Contains(e, "://") {
			e = "https://" + e
		}
		u, err := url.Parse(e)
		if err != nil || u.Host == "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
			// The value is not repeated: it may hold a credential.
			return nil, errors.New("the S3 endpoint is not an http:// or https:// URL of a host, without user information or a path")
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return nil, errors.New("S3 credentials need both an access key id and a secret access key (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)")
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle != nil && *cfg.PathStyle || cfg.PathStyle == nil && cfg.Endpoint != "" {
		lookup = minio.BucketLookupPath
	}
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, fmt.Errorf("S3 client: %w", err)
	}
	mc, err := minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       secure,
		Region:       cfg.Region,
		BucketLookup: lookup,
		Transport:    progressTransport{tr},
	})
	if err != nil {
		return nil, fmt.Errorf("S3 client: %w", err)
	}
	return &Client{mc: mc, loc: loc, request: DefaultRequestTimeout, stall: DefaultStallTimeout}, nil
}

// Location returns the client's location.
func (c *Client) Location() Location { return c.loc }

// Pointer is the content of the ACTIVE object: the version a location
// serves and its archive.
type Pointer struct {
	Version string `json:"version"`
	// Archive is the archive's key, relative to the location's prefix.
	Archive string `json:"archive"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
}

// ArchiveKey returns the key, relative to the prefix, of a version's
// archive.
func ArchiveKey(version string) string { return "versions/" + version + ".tzctx" }

// partSize is the part size of multipart uploads: an archive is sent in
// parts of this size, each checksummed, so an upload of any size holds at
// most one part in memory.
const partSize = 16 << 20

// PutArchive uploads the archive r reads as the archive of version, in
// checksummed parts, and returns its pointer: key, size and SHA-256. The
// object appears only once the upload is complete.
func (c *Client) PutArchive(ctx context.Context, version string, r io.Reader) (Pointer, error) {
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(r, h)}
	key := ArchiveKey(version)
	_, err := c.mc.PutObject(ctx, c.loc.Bucket, c.loc.key(key), cr, -1, minio.PutObjectOptions{
		ContentType:    "application/vnd.tzctx.archive",
		PartSize:       partSize,
		SendContentMd5: true,
	})
	if err != nil {
		return Pointer{}, fmt.Errorf("upload %s to %s: %w", key, c.loc, describe(err))
	}
	return Pointer{Version: version, Archive: key, Size: cr.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// SetActive replaces the pointer object.
func (c *Client) SetActive(ctx context.Context, p Pointer) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	raw = append(raw, '\n')
	ctx, cancel, timedOut := c.bounded(ctx)
	defer cancel()
	_, err = c.mc.PutObject(ctx, c.loc.Bucket, c.loc.key("ACTIVE"), strings.NewReader(string(raw)), int64(len(raw)), minio.PutObjectOptions{ContentType: "application/json"})
	if err != nil {
		return fmt.Errorf("write the pointer %s/ACTIVE: %w", c.loc, describe(timedOut(err)))
	}
	return nil
}

// ErrNoPointer is returned by Active where the location has no pointer
// yet.
var ErrNoPointer = errors.New("no version is published as active yet")

// maxPointer bounds the pointer object read.
const maxPointer = 64 << 10

// Active reads the pointer unless its ETag is still etag: then it returns
// changed false and no pointer, at the cost of one conditional request.
// A read that gets no answer within the request timeout fails with an
// error matching ErrTimeout.
func (c *Client) Active(ctx context.Context, etag string) (p Pointer, newETag string, changed bool, err error) {
	bctx, cancel, timedOut := c.bounded(ctx)
	defer cancel()
	p, newETag, changed, err = c.active(bctx, etag)
	if t := timedOut(err); t != err {
		return Pointer{}, "", false, fmt.Errorf("read the pointer %s/ACTIVE: %w", c.loc, t)
	}
	return p, newETag, changed, err
}

func (c *Client) active(ctx context.Context, etag string) (p Pointer, newETag string, changed bool, err error) {
	opts := minio.GetObjectOptions{}
	if etag != "" {
		if err := opts.SetMatchETagExcept(etag); err != nil {
			return Pointer{}, "", false, err
		}
	}
	obj, err := c.mc.GetObject(ctx, c.loc.Bucket, c.loc.key("ACTIVE"), opts)
	if err != nil {
		return Pointer{}, "", false, fmt.Errorf("read the pointer %s/ACTIVE: %w", c.loc, describe(err))
	}
	defer obj.Close()
	info, err := obj.Stat()
	if err != nil {
		resp := minio.ToErrorResponse(err)
		switch {
		case resp.StatusCode == http.StatusNotModified:
			return Pointer{}, etag, false, nil
		case resp.Code == "NoSuchKey" || resp.StatusCode == http.StatusNotFound && resp.Code != "NoSuchBucket":
			return Pointer{}, "", false, ErrNoPointer
		}
		return Pointer{}, "", false, fmt.Errorf("read the pointer %s/ACTIVE: %w", c.loc, describe(err))
	}
	raw, err := io.ReadAll(io.LimitReader(obj, maxPointer+1))
	if err != nil {
		return Pointer{}, "", false, fmt.Errorf("read the pointer %s/ACTIVE: %w", c.loc, describe(err))
	}
	if len(raw) > maxPointer {
		return Pointer{}, "", false, fmt.Errorf("the pointer %s/ACTIVE is over %d bytes; it is not a tzctx pointer", c.loc, maxPointer)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Pointer{}, "", false, fmt.Errorf("the pointer %s/ACTIVE is not a tzctx pointer (%v)", c.loc, err)
	}
	if p.Version == "" || p.Archive == "" || len(p.SHA256) != 64 || strings.Trim(p.SHA256, "0123456789abcdef") != "" || p.Size <= 0 || p.Size > MaxArchive || strings.Contains("/"+p.Archive+"/", "/../") {
		return Pointer{}, "", false, fmt.Errorf("the pointer %s/ACTIVE lacks a version, an archive key, a size or a SHA-256", c.loc)
	}
	if info.ETag != "" && info.ETag == etag {
		// A store that ignores If-None-Match: the same ETag is no change.
		return Pointer{}, etag, false, nil
	}
	return p, info.ETag, true, nil
}

// MaxArchive bounds the size a pointer may give its archive.
const MaxArchive = 256 << 30

// MakeBucket creates the location's bucket.
func (c *Client) MakeBucket(ctx context.Context, region string) error {
	ctx, cancel, timedOut := c.bounded(ctx)
	defer cancel()
	if err := c.mc.MakeBucket(ctx, c.loc.Bucket, minio.MakeBucketOptions{Region: region}); err != nil {
		return fmt.Errorf("make bucket %s: %w", c.loc.Bucket, describe(timedOut(err)))
	}
	return nil
}

// HasArchive reports whether the location holds a complete archive of
// version: an unfinished multipart upload is not one.
func (c *Client) HasArchive(ctx context.Context, version string) (bool, error) {
	ctx, cancel, timedOut := c.bounded(ctx)
	defer cancel()
	_, err := c.mc.StatObject(ctx, c.loc.Bucket, c.loc.key(ArchiveKey(version)), minio.StatObjectOptions{})
	if err == nil {
		return true, nil
	}
	if r := minio.ToErrorResponse(err); r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound && r.Code != "NoSuchBucket" {
		return false, nil
	}
	return false, fmt.Errorf("look up %s: %w", ArchiveKey(version), describe(timedOut(err)))
}

// ErrMismatch is returned by a download whose bytes are not the ones the
// pointer names.
var ErrMismatch = errors.New("archive does not match its pointer")

// GetArchive copies the archive p names into w, and checks its size and
// SHA-256 against p: on a mismatch it returns an error wrapping
// ErrMismatch, and w holds bytes the caller must discard. A download
// that receives no byte for the stall timeout, its answer's headers
// included, fails with an error matching ErrTimeout; one that goes on
// receiving bytes has no deadline.
func (c *Client) GetArchive(ctx context.Context, p Pointer, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := fmt.Errorf("%w: no byte of the archive arrived for %v (follow.stall_timeout)", ErrTimeout, c.stall)
	watchdog := time.AfterFunc(c.stall, func() { cancel(stalled) })
	defer watchdog.Stop()
	ctx = context.WithValue(ctx, progressKey{}, func() { watchdog.Reset(c.stall) })
	fail := func(err error) error {
		if context.Cause(ctx) == stalled {
			err = stalled
		}
		return fmt.Errorf("download %s: %w", p.Archive, describe(err))
	}
	obj, err := c.mc.GetObject(ctx, c.loc.Bucket, c.loc.key(p.Archive), minio.GetObjectOptions{})
	if err != nil {
		return fail(err)
	}
	defer obj.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(obj, p.Size+1))
	if err != nil {
		return fail(err)
	}
	return check(p, n, h)
}

// progressKey is the context key of the function that a request's
// answer calls when its headers arrive and at each read of its body that
// returns bytes: what a download's stall timeout watches.
type progressKey struct{}

// progressTransport calls the progress function of a request's context,
// where it has one, as its answer arrives, byte by byte rather than as
// the S3 client reads it, which is in large pieces.
type progressTransport struct{ base http.RoundTripper }

func (t progressTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if progress, ok := req.Context().Value(progressKey{}).(func()); ok && resp != nil && resp.Body != nil {
		progress()
		resp.Body = &progressBody{ReadCloser: resp.Body, progress: progress}
	}
	return resp, err
}

// progressBody calls progress after each read that returned bytes.
type progressBody struct {
	io.ReadCloser
	progress func()
}

func (p *progressBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	if n > 0 {
		p.progress()
	}
	return n, err
}

func check(p Pointer, n int64, h hash.Hash) error {
	if n != p.Size {
		return fmt.Errorf("%w: %s is %d bytes, the pointer says %d", ErrMismatch, p.Archive, n, p.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != p.SHA256 {
		return fmt.Errorf("%w: %s has SHA-256 %s, the pointer says %s", ErrMismatch, p.Archive, sum, p.SHA256)
	}
	return nil
}

// describe keeps an S3 error's code and message, never a signature or
// credential.
func describe(err error) error {
	resp := minio.ToErrorResponse(err)
	if resp.Code != "" {
		return fmt.Errorf("%s (%s)", resp.Code, resp.Message)
	}
	return err
}
