// Package testkit helps tests build versions: from the embedded sample
// site, from the real corpora in ../shared/corpora, or from folders a test
// writes.
package testkit

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/store"
)

// Corpora returns the folder of the real corpora, or skips the test,
// saying why, where it is absent. A test that needs the corpora is of the
// long tier (tier.Long): under go test -short it skips.
func Corpora(t testing.TB) string {
	t.Helper()
	tier.Long(t, "needs the real corpora")
	dir := os.Getenv("TZCTX_CORPORA")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpora")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("real corpora folder %s is absent: this test checks behaviour on real documentation sets and needs it (set TZCTX_CORPORA)", dir)
	}
	return dir
}

// Corpus returns one corpus folder, or skips.
func Corpus(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(Corpora(t), name)
	if _, err := os.Stat(filepath.Join(dir, "docs.json")); err != nil {
		t.Skipf("corpus %s is absent from %s: the test needs it", name, dir)
	}
	return dir
}

// SampleSite extracts the embedded sample site into a temporary folder.
func SampleSite(t testing.TB) string {
	t.Helper()
	site, err := data.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// Ingest ingests trees into a new store in a temporary folder, activates
// the version and loads it.
func Ingest(t testing.TB, trees ...ingest.TreeSource) *store.Store {
	t.Helper()
	return IngestOptions(t, ingest.Options{Trees: trees})
}

// IngestOptions ingests as opts say into a new store and activates the
// version, as Ingest does.
func IngestOptions(t testing.TB, opts ingest.Options) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Run(context.Background(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// SampleStore ingests the embedded sample site into a new store.
func SampleStore(t testing.TB) *store.Store {
	t.Helper()
	site := SampleSite(t)
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	return IngestOptions(t, ingest.Options{Trees: trees, Library: ingest.SiteLibrary(site)})
}

// WriteFiles writes files (path → content) below dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// SampleStoreIn ingests the sample site into a store in dir, for TestMain
// functions that share one version across a package's tests.
func SampleStoreIn(dir string) (*store.Store, error) {
	site, err := data.Extract(dir)
	if err != nil {
		return nil, err
	}
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees, Library: ingest.SiteLibrary(site)})
	if err != nil {
		return nil, err
	}
	if err := st.Activate(context.Background(), sum.Version); err != nil {
		return nil, err
	}
	_, err = st.Refresh(context.Background())
	return st, err
}

// IngestInto ingests trees into the store of dataDir as the named
// version, as tzctx ingest --version does, and activates it where
// activate is set; the store is closed again before it returns, so a
// server may open it.
func IngestInto(t testing.TB, dataDir, version string, activate bool, trees ...ingest.TreeSource) {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := ingest.Run(context.Background(), st, ingest.Options{Trees: trees, Version: version})
	if err != nil {
		t.Fatalf("ingest %s: %v", version, err)
	}
	if activate {
		if err := st.Activate(context.Background(), sum.Version); err != nil {
			t.Fatalf("activate %s: %v", version, err)
		}
	}
}

// SiteTrees are the trees of a site folder, as tzctx ingest SITE reads
// them.
func SiteTrees(t testing.TB, site string) []ingest.TreeSource {
	t.Helper()
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	return trees
}
