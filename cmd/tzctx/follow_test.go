package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
)

// probe is a /healthz or /readyz answer.
type probe struct {
	code    int
	Status  string `json:"status"`
	Version string `json:"version"`
	Detail  string `json:"detail"`
}

func getProbe(t *testing.T, u string) probe {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		return probe{}
	}
	defer resp.Body.Close()
	var p probe
	_ = json.NewDecoder(resp.Body).Decode(&p)
	p.code = resp.StatusCode
	return p
}

// awaitFollow polls cond every 50 ms for at most d and fails with what the
// last poll saw.
func awaitFollow(t *testing.T, d time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	last := ""
	for time.Since(start) < d {
		ok, seen := cond()
		if ok {
			return time.Since(start)
		}
		last = seen
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v; last seen %s", what, d, last)
	return 0
}

// TestPublishAndFollow runs the scale-out path end to end against a real
// S3 server: a replica following an empty location is alive but not
// ready and answers reads with context_unavailable; tzctx publish
// --activate of v1 makes it ready on v1, and of v2 switches it; with the
// store down it goes on serving, alive, and reports the fault on /healthz
// and /metrics; an archive that fails its checks is refused and the
// replica keeps its version; once the store is back it takes the next
// version, and it keeps at most follow.keep versions.
func TestPublishAndFollow(t *testing.T) {
	tier.Long(t, "publishes and follows with tzctx child processes and an S3 server")
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	env := s3.Env()
	loc := "s3://versions/site/prod"
	publish := publisher(t, bin, env, loc)

	base, replica := startFollower(t, bin, env, loc, `{"watch_interval": "100ms", "follow": {"interval": "100ms", "keep": 2}}`)
	awaitFollow(t, 20*time.Second, "the replica answers /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.code == 200 && p.Status == "waiting", fmt.Sprintf("%+v", p)
	})
	if p := getProbe(t, base+"/readyz"); p.code != 503 {
		t.Errorf("/readyz before any version = %+v, want 503", p)
	}
	// HEAD answers the following server's probes as GET does.
	if st, _, raw := testkit.Send(t, http.MethodHead, base+"/healthz", nil); st != 200 || raw != "" {
		t.Errorf("HEAD /healthz of a waiting replica = %d %q, want 200 without a body", st, raw)
	}
	if st, _, raw := testkit.Send(t, http.MethodHead, base+"/readyz", nil); st != 503 || raw != "" {
		t.Errorf("HEAD /readyz before any version = %d %q, want 503 without a body", st, raw)
	}
	if code, a, _, _ := post(base, "read_documentation", map[string]any{"tree": "cloud"}); code != 503 || a == nil || a.Error == nil || a.Error.Code != "context_unavailable" {
		t.Errorf("a read before any version: %d %+v, want 503 context_unavailable", code, a)
	}
	if names := dirNames(t, filepath.Join(replica, "versions")); len(names) != 0 {
		t.Errorf("a following replica loaded %v; it must never load the sample site", names)
	}

	publish(testkit.SampleSite(t), "v1")
	took := awaitFollow(t, 10*time.Second, "the replica serves v1", func() (bool, string) {
		p := getProbe(t, base+"/readyz")
		return p.code == 200 && p.Version == "v1", fmt.Sprintf("%+v", p)
	})
	t.Logf("v1 served %v after its publish", took.Round(time.Millisecond))
	v1Full, v1Stamp := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"})

	publish(changedSite(t), "v2")
	took = awaitFollow(t, 10*time.Second, "the replica serves v2", func() (bool, string) {
		p := getProbe(t, base+"/readyz")
		return p.Version == "v2", fmt.Sprintf("%+v", p)
	})
	t.Logf("v2 served %v after its publish", took.Round(time.Millisecond))
	v2Full, v2Stamp := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"})
	if v2Stamp == v1Stamp || v2Full == v1Full || !strings.Contains(v2Full, "THE") {
		t.Fatal("the page read after the switch is not v2's")
	}

	// The store goes down: the replica goes on serving v2, alive, with
	// the fault on /healthz and /metrics.
	s3.Stop(t)
	awaitFollow(t, 10*time.Second, "the fault shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.code == 200 && p.Status == "degraded" && strings.Contains(p.Detail, "follow:") && p.Version == "v2", fmt.Sprintf("%+v", p)
	})
	if full, stamp := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"}); full != v2Full || stamp != v2Stamp {
		t.Error("with the store down the replica no longer serves v2")
	}
	if _, m := testkit.Scrape(t, base+"/metrics"); !strings.Contains(m, "tzctx_follow_up 0") {
		t.Errorf("/metrics with the store down lacks tzctx_follow_up 0:\n%s", grepLines(m, "tzctx_follow"))
	}
	s3.Start(t)

	// A damaged archive, whose pointer matches its bytes, is refused by
	// the import; one whose bytes do not match the pointer is refused at
	// download. The replica keeps v2.
	c := s3Client(t, s3, loc)
	ctx := context.Background()
	bad, err := c.PutArchive(ctx, "v3", strings.NewReader("not an archive at all"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetActive(ctx, bad); err != nil {
		t.Fatal(err)
	}
	awaitFollow(t, 10*time.Second, "the damaged archive's refusal shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return strings.Contains(p.Detail, "import versions/v3.tzctx"), fmt.Sprintf("%+v", p)
	})
	bad.SHA256 = strings.Repeat("0", 64)
	bad.Size = 21
	if err := c.SetActive(ctx, bad); err != nil {
		t.Fatal(err)
	}
	awaitFollow(t, 10*time.Second, "the mismatched archive's refusal shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return strings.Contains(p.Detail, "does not match its pointer"), fmt.Sprintf("%+v", p)
	})
	if p := getProbe(t, base+"/readyz"); p.Version != "v2" {
		t.Fatalf("after refused archives the replica serves %+v, want v2", p)
	}
	if names := dirNames(t, filepath.Join(replica, "versions")); strings.Contains(strings.Join(names, ","), "v3") {
		t.Fatalf("a refused archive left a version: %v", names)
	}

	// The next good version is taken, the fault clears, and only
	// follow.keep versions stay.
	publish(testkit.SampleSite(t), "v4")
	awaitFollow(t, 10*time.Second, "the replica serves v4, healthy", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Version == "v4" && p.Status == "ok", fmt.Sprintf("%+v", p)
	})
	if full, _ := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"}); full != v1Full {
		t.Error("v4, the sample site again, does not serve v1's text")
	}
	awaitFollow(t, 5*time.Second, "older versions are pruned", func() (bool, string) {
		names := dirNames(t, filepath.Join(replica, "versions"))
		return len(names) == 2, fmt.Sprint(names)
	})
	if left, _ := os.ReadDir(filepath.Join(replica, "downloads")); len(left) != 0 {
		t.Errorf("downloads left behind: %v", left)
	}
}

// startFollower starts `tzctx serve --follow loc` on a free port and a
// data directory of its own, with the configuration cfgJSON, and returns
// its base URL and data directory.
func startFollower(t *testing.T, bin string, env []string, loc, cfgJSON string) (base, dataDir string) {
	t.Helper()
	dataDir = t.TempDir()
	_, base = startFollowerProc(t, bin, env, loc, cfgJSON, dataDir)
	return base, dataDir
}

// startFollowerProc starts `tzctx serve --follow loc` on a free port over
// dataDir, with the configuration cfgJSON, and returns the process and
// its base URL.
func startFollowerProc(t *testing.T, bin string, env []string, loc, cfgJSON, dataDir string) (*proc, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(cfgJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	p := startProc(t, bin, env, "--data", dataDir, "serve", "--addr", addr, "--config", cfg, "--follow", loc)
	return p, "http://" + addr
}

// publisher returns a function that ingests a site as a version in a
// data directory of its own and publishes it to loc with --activate, as
// a CI job would, checking what tzctx publish says.
func publisher(t *testing.T, bin string, env []string, loc string) func(site, version string) {
	pub := t.TempDir()
	return func(site, version string) {
		t.Helper()
		runProc(t, bin, nil, "--data", pub, "ingest", site, "--version", version)
		out := runProc(t, bin, env, "--data", pub, "publish", version, "--to", loc, "--activate").stdout.String()
		if !strings.Contains(out, "published "+version) || !strings.Contains(out, "activated "+version) {
			t.Fatalf("publish %s said %q", version, out)
		}
	}
}

func s3Client(t *testing.T, s3 *testkit.S3, loc string) *objstore.Client {
	t.Helper()
	l, err := objstore.ParseLocation(loc)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{}
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		vals[k] = v
	}
	c, err := objstore.New(objstore.Config{}.FromEnv(func(k string) string { return vals[k] }), l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStoreStoppedMidDownload: the connection to the store is cut while
// a replica downloads v2 (a proxy in between sends the archive slowly,
// then goes down): the replica keeps serving v1, says why on /healthz,
// leaves no download or version behind, and takes v2 once the store is
// reachable again.
func TestStoreStoppedMidDownload(t *testing.T) {
	tier.Long(t, "cuts the store under a following tzctx child process mid-download")
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	loc := "s3://versions/slow"
	publish := publisher(t, bin, s3.Env(), loc)
	publish(testkit.SampleSite(t), "v1")
	proxy := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), 100<<10)
	env := append(s3.Env(), "AWS_ENDPOINT_URL_S3=http://"+proxy.Addr)
	base, replica := startFollower(t, bin, env, loc, `{"watch_interval": "100ms", "follow": {"interval": "200ms"}}`)
	awaitFollow(t, 60*time.Second, "the replica serves v1", func() (bool, string) {
		p := getProbe(t, base+"/readyz")
		return p.Version == "v1", fmt.Sprintf("%+v", p)
	})
	v1, _ := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"})

	before := proxy.Sent()
	publish(changedSite(t), "v2")
	awaitFollow(t, 20*time.Second, "the download of v2 is under way", func() (bool, string) {
		sent := proxy.Sent() - before
		return sent > 100<<10, fmt.Sprintf("%d bytes sent", sent)
	})
	proxy.SetDown(true)
	awaitFollow(t, 20*time.Second, "the cut shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.code == 200 && p.Version == "v1" && strings.Contains(p.Detail, "follow:"), fmt.Sprintf("%+v", p)
	})
	if full, _ := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"}); full != v1 {
		t.Fatal("with the download cut the replica no longer serves v1")
	}
	if names := dirNames(t, filepath.Join(replica, "versions")); len(names) != 1 {
		t.Errorf("after the cut the replica holds %v, want v1 alone", names)
	}
	proxy.SetDown(false)
	awaitFollow(t, 90*time.Second, "the replica takes v2 once the store is back", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Version == "v2" && p.Status == "ok", fmt.Sprintf("%+v", p)
	})
	if left, _ := os.ReadDir(filepath.Join(replica, "downloads")); len(left) != 0 {
		t.Errorf("downloads left behind: %v", left)
	}
}

// TestInterruptedPublish: a publish killed mid-upload (through a slow
// proxy) leaves no archive and the pointer as it was, so a follower
// stays on the version it serves; the publish run again completes and
// the follower takes it.
func TestInterruptedPublish(t *testing.T) {
	tier.Long(t, "kills a tzctx publish child process mid-upload")
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	loc := "s3://versions/interrupted"
	publisher(t, bin, s3.Env(), loc)(testkit.SampleSite(t), "v1")
	base, _ := startFollower(t, bin, s3.Env(), loc, `{"watch_interval": "100ms", "follow": {"interval": "200ms"}}`)
	awaitFollow(t, 20*time.Second, "the replica serves v1", func() (bool, string) {
		p := getProbe(t, base+"/readyz")
		return p.Version == "v1", fmt.Sprintf("%+v", p)
	})

	pub := t.TempDir()
	runProc(t, bin, nil, "--data", pub, "ingest", changedSite(t), "--version", "v2")
	proxy := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), 50<<10)
	slow := append(s3.Env(), "AWS_ENDPOINT_URL_S3=http://"+proxy.Addr)
	p := startProc(t, bin, slow, "--data", pub, "publish", "v2", "--to", loc, "--activate")
	awaitFollow(t, 30*time.Second, "the upload of v2 is under way", func() (bool, string) {
		return proxy.Received() > 100<<10, fmt.Sprintf("%d bytes received", proxy.Received())
	})
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.wait(t, 10*time.Second)
	c := s3Client(t, s3, loc)
	if ok, err := c.HasArchive(context.Background(), "v2"); err != nil || ok {
		t.Fatalf("after the killed publish the archive of v2 is there: %v, %v", ok, err)
	}
	if ptr, _, _, err := c.Active(context.Background(), ""); err != nil || ptr.Version != "v1" {
		t.Fatalf("after the killed publish the pointer is %+v, %v; want v1", ptr, err)
	}
	time.Sleep(time.Second)
	if p := getProbe(t, base+"/readyz"); p.Version != "v1" {
		t.Fatalf("after the killed publish the replica serves %+v, want v1", p)
	}
	runProc(t, bin, s3.Env(), "--data", pub, "publish", "v2", "--to", loc, "--activate")
	awaitFollow(t, 10*time.Second, "the replica takes v2 once it is published", func() (bool, string) {
		p := getProbe(t, base+"/readyz")
		return p.Version == "v2", fmt.Sprintf("%+v", p)
	})
}

// TestFollowReplacesADamagedCopy: where the replica's own copy of the
// version the pointer names is damaged (and not served), the follower
// removes it and takes the version again from the store, rather than
// failing to activate it at every poll.
func TestFollowReplacesADamagedCopy(t *testing.T) {
	t.Parallel() // a child process of its own on its own data directory
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	loc := "s3://versions/repair"
	publish := publisher(t, bin, s3.Env(), loc)
	publish(testkit.SampleSite(t), "v1")
	base, replica := startFollower(t, bin, s3.Env(), loc, `{"watch_interval": "100ms", "follow": {"interval": "200ms"}}`)
	serves := func(v string) {
		t.Helper()
		awaitFollow(t, 20*time.Second, "the replica serves "+v, func() (bool, string) {
			p := getProbe(t, base+"/healthz")
			return p.Version == v && p.Status == "ok", fmt.Sprintf("%+v", p)
		})
	}
	serves("v1")
	publish(changedSite(t), "v2")
	serves("v2")
	f := filepath.Join(replica, "versions", "v1", "texts.bin")
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := os.Chmod(f, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	publish(testkit.SampleSite(t), "v1") // the same archive, pointed at again
	serves("v1")
	if out := runProc(t, bin, nil, "--data", replica, "verify", "v1").stdout.String(); !strings.Contains(out, "v1") {
		t.Errorf("verify v1 after the repair said %q", out)
	}
}

// TestFollowStalledStore: the store stalls, as a hung server or a
// black-holed network does, through a proxy that keeps the connections
// open and sends nothing more: first after 64 KiB of v2's archive, then
// while it sends the pointer. The replica keeps serving v1, and says so
// on /healthz (degraded, naming follow.stall_timeout, then
// follow.request_timeout) and in /metrics (tzctx_follow_up 0, failures
// counted), rather than waiting for good; once the store answers again
// its next poll sees the newer pointer, v3, and takes it. The timeouts
// are 1 s; the waits are bounded generously, so the verdict does not
// depend on the machine's speed.
func TestFollowStalledStore(t *testing.T) {
	tier.Long(t, "stalls the store under a following tzctx child process until its timeouts fire")
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	loc := "s3://versions/stalled"
	publish := publisher(t, bin, s3.Env(), loc)
	publish(testkit.SampleSite(t), "v1")
	// 32 KiB/s: an archive of the sample (about 250 KB) takes some 8 s,
	// so the stall comes in the middle of v2's.
	proxy := testkit.StartProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"), 32<<10)
	env := append(s3.Env(), "AWS_ENDPOINT_URL_S3=http://"+proxy.Addr)
	// The timeouts are short enough to show a stall within the waits
	// below, and long enough that a loaded machine's pointer read, or a
	// pause between the proxy's 50 ms sends, never passes them.
	base, replica := startFollower(t, bin, env, loc, `{"watch_interval": "100ms", "follow": {"interval": "200ms", "request_timeout": "3s", "stall_timeout": "3s"}}`)
	awaitFollow(t, 90*time.Second, "the replica serves v1", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Version == "v1" && p.Status == "ok", fmt.Sprintf("%+v", p)
	})

	before := proxy.Sent()
	publish(changedSite(t), "v2")
	awaitFollow(t, 60*time.Second, "64 KiB of v2's archive are sent", func() (bool, string) {
		sent := proxy.Sent() - before
		return sent > 64<<10, fmt.Sprintf("%d bytes sent", sent)
	})
	proxy.SetStalled(true)
	took := awaitFollow(t, 60*time.Second, "the stalled download shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.code == 200 && p.Status == "degraded" && p.Version == "v1" && strings.Contains(p.Detail, "follow: download versions/v2.tzctx") && strings.Contains(p.Detail, "follow.stall_timeout"), fmt.Sprintf("%+v", p)
	})
	t.Logf("the stalled download showed on /healthz %v after the stall", took.Round(time.Millisecond))
	fams, m := testkit.Scrape(t, base+"/metrics")
	if !strings.Contains(m, "tzctx_follow_up 0") {
		t.Errorf("/metrics with the store stalled lacks tzctx_follow_up 0:\n%s", grepLines(m, "tzctx_follow"))
	}
	if f := fams["tzctx_follow_poll_failures_total"]; f == nil || len(f.Metric) != 1 || f.Metric[0].GetCounter().GetValue() < 1 {
		t.Errorf("/metrics with the store stalled counts no failed poll:\n%s", grepLines(m, "tzctx_follow"))
	}
	// The next poll's read of the pointer stalls too.
	took = awaitFollow(t, 60*time.Second, "the stalled pointer shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Status == "degraded" && p.Version == "v1" && strings.Contains(p.Detail, "ACTIVE") && strings.Contains(p.Detail, "follow.request_timeout"), fmt.Sprintf("%+v", p)
	})
	t.Logf("the stalled pointer showed on /healthz %v after that", took.Round(time.Millisecond))
	if full, _ := readWhole(t, base, map[string]any{"tree": "cloud", "page": "/cloud/reference/http/"}); !strings.Contains(full, "HTTP reference") || strings.Contains(full, "version B") {
		t.Error("with the store stalled the replica no longer serves v1")
	}

	// A newer pointer, published meanwhile, is taken once the store
	// answers again.
	publish(testkit.SampleSite(t), "v3")
	proxy.SetStalled(false)
	awaitFollow(t, 120*time.Second, "the replica takes v3 once the store answers again", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Version == "v3" && p.Status == "ok", fmt.Sprintf("%+v", p)
	})
	if _, m := testkit.Scrape(t, base+"/metrics"); !strings.Contains(m, "tzctx_follow_up 1") {
		t.Errorf("/metrics after the store answers again lacks tzctx_follow_up 1:\n%s", grepLines(m, "tzctx_follow"))
	}
	if names := dirNames(t, filepath.Join(replica, "versions")); strings.Join(names, ",") != "v1,v3" {
		t.Errorf("after the stall the replica holds %v, want v1 and v3", names)
	}
	if left, _ := os.ReadDir(filepath.Join(replica, "downloads")); len(left) != 0 {
		t.Errorf("downloads left behind: %v", left)
	}
}

// TestFollowVersionBound: a following server refuses a version whose
// archive's manifest declares more than max_version_bytes, saying so on
// /healthz with the bound and the member to raise, and stores nothing of
// it; it takes the version once a server with a bound it fits follows.
func TestFollowVersionBound(t *testing.T) {
	t.Parallel() // a child process of its own on its own data directory
	s3 := testkit.StartS3(t, "versions")
	bin := buildBinary(t)
	loc := "s3://versions/bounded"
	publisher(t, bin, s3.Env(), loc)(testkit.SampleSite(t), "v1")
	base, replica := startFollower(t, bin, s3.Env(), loc, `{"max_version_bytes": 1000, "follow": {"interval": "200ms"}}`)
	awaitFollow(t, 30*time.Second, "the refusal shows on /healthz", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Status == "waiting" && strings.Contains(p.Detail, "over the bound of 1000 bytes") && strings.Contains(p.Detail, "max_version_bytes"), fmt.Sprintf("%+v", p)
	})
	if names := dirNames(t, filepath.Join(replica, "versions")); len(names) != 0 {
		t.Errorf("a refused version left %v", names)
	}
	if names := dirNames(t, filepath.Join(replica, "staging")); len(names) != 0 {
		t.Errorf("a refused version left %v in staging", names)
	}
	base, _ = startFollower(t, bin, s3.Env(), loc, `{"max_version_bytes": 1073741824, "follow": {"interval": "200ms"}}`)
	awaitFollow(t, 30*time.Second, "a server with a larger bound serves v1", func() (bool, string) {
		p := getProbe(t, base+"/healthz")
		return p.Version == "v1" && p.Status == "ok", fmt.Sprintf("%+v", p)
	})
}
