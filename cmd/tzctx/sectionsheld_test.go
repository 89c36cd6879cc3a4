package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	bolt "go.etcd.io/bbolt"
)

// TestIngestSectionsHeldBytes: a --sections-held-bytes that is not
// positive is refused naming the flag, and a version built holding one
// byte of section postings (every page's spilled to a work file and merged
// at commit) stores the same section index, value for value, as one built
// with the default. Spilling at such a bound, with no work file left, is
// store's TestSectionIndexStored.
func TestIngestSectionsHeldBytes(t *testing.T) {
	site := testkit.SampleSite(t)
	if r := runCLI(t, t.TempDir(), "ingest", site, "--sections-held-bytes", "0"); r.err == nil || !strings.Contains(r.err.Error(), "--sections-held-bytes") {
		t.Fatalf("--sections-held-bytes 0: err %v, want a refusal naming the flag", r.err)
	}
	def, spill := t.TempDir(), t.TempDir()
	a := runCLI(t, def, "ingest", site, "--version", "v")
	b := runCLI(t, spill, "ingest", site, "--version", "v", "--sections-held-bytes", "1")
	if a.err != nil || b.err != nil {
		t.Fatalf("ingest: %v; with one byte held: %v", a.err, b.err)
	}
	ka, kb := sectionValues(t, filepath.Join(def, "versions", "v", "pages.db")), sectionValues(t, filepath.Join(spill, "versions", "v", "pages.db"))
	if len(ka) == 0 || !maps.Equal(ka, kb) {
		t.Errorf("the stored section index differs with one byte of postings held: %d values against %d", len(kb), len(ka))
	}
}

// sectionValues returns every key and value under the version database's
// _sections bucket, nested buckets' keys prefixed by their path.
func sectionValues(t *testing.T, db string) map[string]string {
	t.Helper()
	d, err := bolt.Open(db, 0o400, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := map[string]string{}
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(prefix+string(k)+"/", b.Bucket(k))
				return nil
			}
			out[prefix+string(k)] = string(v)
			return nil
		})
	}
	if err := d.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("_sections"))
		if b == nil {
			t.Fatalf("%s holds no _sections bucket", db)
		}
		walk("", b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
