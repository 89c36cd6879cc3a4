package follow_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/follow"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/store"
)

// bench is a real S3 server, a client of one location on it, a source
// data directory versions are ingested into and published from, and the
// store a follower keeps.
type bench struct {
	c   *objstore.Client
	src string
	dst *store.Store
}

func newBench(t *testing.T) *bench {
	t.Helper()
	s3 := testkit.StartS3(t, "versions")
	loc, err := objstore.ParseLocation("s3://versions/site")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	c, err := objstore.New(objstore.Config{}.FromEnv(func(k string) string { return env[k] }), loc)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	return &bench{c: c, src: t.TempDir(), dst: dst}
}

// archive ingests a small mdBook whose page says text as version name
// into the source data directory and returns its archive.
func (b *bench) archive(t *testing.T, name, text string) []byte {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"book/book.toml":      "[book]\ntitle = \"Engine Manual\"\n",
		"book/src/SUMMARY.md": "# Summary\n\n- [Engines](README.md)\n",
		"book/src/README.md":  "# Engines\n\n" + text + "\n",
	})
	testkit.IngestInto(t, b.src, name, false, ingest.TreeSource{Name: "book", Dir: filepath.Join(root, "book")})
	st, err := store.Open(b.src)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var buf bytes.Buffer
	if err := st.Export(context.Background(), name, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// publish uploads arch as the archive of version name and points the
// location at it, as tzctx publish --activate does.
func (b *bench) publish(t *testing.T, name string, arch []byte) {
	t.Helper()
	ctx := context.Background()
	p, err := b.c.PutArchive(ctx, name, bytes.NewReader(arch))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.c.SetActive(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// names lists the versions of st.
func names(t *testing.T, st *store.Store) []string {
	t.Helper()
	ms, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	slices.Sort(out)
	return out
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestPollTakesEachPublishedVersion: a poll before anything is published
// fails with ErrNothingPublished; each version published is downloaded,
// imported, verified and activated by the next poll, which reports it
// to Activated once; a poll of an unchanged pointer takes nothing; and of the
// versions taken, the active one and Keep-1 others are kept, the oldest
// deleted, with no download left behind.
func TestPollTakesEachPublishedVersion(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	var activated []string
	f := follow.New(b.c, b.dst, quiet, follow.Options{Keep: 2, Activated: func(name string) { activated = append(activated, name) }})
	if err := f.Poll(ctx); !errors.Is(err, follow.ErrNothingPublished) {
		t.Fatalf("poll before a publish = %v, want ErrNothingPublished", err)
	}
	for i, v := range []string{"v1", "v2", "v3"} {
		b.publish(t, v, b.archive(t, v, "Engines of version "+v+"."))
		if err := f.Poll(ctx); err != nil {
			t.Fatalf("poll after publishing %s: %v", v, err)
		}
		if active, err := b.dst.ActiveName(); err != nil || active != v {
			t.Fatalf("after publishing %s the active version is %q (%v)", v, active, err)
		}
		if err := b.dst.Verify(ctx, v); err != nil {
			t.Fatalf("the version %s taken does not verify: %v", v, err)
		}
		if got := f.Status().Taken; got != int64(i+1) {
			t.Fatalf("after publishing %s Taken = %d, want %d", v, got, i+1)
		}
		// The same pointer again: nothing more is taken.
		if err := f.Poll(ctx); err != nil {
			t.Fatalf("second poll of %s: %v", v, err)
		}
		if got := f.Status().Taken; got != int64(i+1) {
			t.Fatalf("a poll of the unchanged pointer to %s took a version: Taken = %d", v, got)
		}
	}
	if got, want := names(t, b.dst), []string{"v2", "v3"}; !slices.Equal(got, want) {
		t.Errorf("versions kept with Keep 2 = %v, want %v", got, want)
	}
	if want := []string{"v1", "v2", "v3"}; !slices.Equal(activated, want) {
		t.Errorf("Activated was called with %v, want %v", activated, want)
	}
	if left, _ := os.ReadDir(filepath.Join(b.dst.Dir(), "downloads")); len(left) != 0 {
		t.Errorf("the downloads folder holds %d files after the polls, want none", len(left))
	}
}

// TestPollRefusesAnotherVersionsArchive: a pointer naming v2 whose
// archive holds v1 is refused with an error naming both, and the version
// the archive held is not left in the store.
func TestPollRefusesAnotherVersionsArchive(t *testing.T) {
	b := newBench(t)
	b.publish(t, "v2", b.archive(t, "v1", "Engines."))
	f := follow.New(b.c, b.dst, quiet, follow.Options{})
	err := f.Poll(context.Background())
	if err == nil || !strings.Contains(err.Error(), "holds version v1, the pointer names v2") {
		t.Fatalf("poll of a pointer to v2 at an archive of v1 = %v, want a refusal naming both", err)
	}
	if got := names(t, b.dst); len(got) != 0 {
		t.Errorf("the refused archive left versions %v in the store", got)
	}
	if active, _ := b.dst.ActiveName(); active != "" {
		t.Errorf("the refused archive was activated as %q", active)
	}
}

// TestRunReportsFaultsAndRecovers: Run polls until its context ends; while
// nothing is published its Status carries ErrNothingPublished and counts
// the failed polls, with no success; once a version is published a later
// poll takes it and clears the fault; a cancelled context ends Run.
func TestRunReportsFaultsAndRecovers(t *testing.T) {
	b := newBench(t)
	f := follow.New(b.c, b.dst, quiet, follow.Options{Interval: 5 * time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		f.Run(ctx)
		close(done)
	}()
	defer func() {
		cancel()
		<-done // Run returns once its context is cancelled
	}()
	// until waits for cond, generously: the verdict is cond's, not the
	// time it took.
	until := func(what string, cond func(follow.Status) bool) follow.Status {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if s := f.Status(); cond(s) {
				return s
			}
		}
		t.Fatalf("the follower never reached %s: %+v", what, f.Status())
		return follow.Status{}
	}
	s := until("two failed polls", func(s follow.Status) bool { return s.Failures >= 2 })
	if !errors.Is(s.Fault, follow.ErrNothingPublished) || !s.LastSuccess.IsZero() || s.Taken != 0 {
		t.Fatalf("with nothing published Status = %+v, want the fault ErrNothingPublished and no success", s)
	}
	b.publish(t, "v1", b.archive(t, "v1", "Engines."))
	s = until("the version taken", func(s follow.Status) bool { return s.Taken == 1 && s.Fault == nil && !s.LastSuccess.IsZero() })
	if active, _ := b.dst.ActiveName(); active != "v1" {
		t.Fatalf("Run took v1 (%+v) but the active version is %q", s, active)
	}
	// The deferred cancel ends Run: the wait for done returns.
}
