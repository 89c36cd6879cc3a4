package store_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// The tests of this file go through the public surface alone: a version
// ingested from the sample site, exported and imported as an operator
// would, and archives rewritten the way a damaged disk or a hostile
// sender would.

// manifest mirrors the documented first entry of an archive.
type manifest struct {
	ArchiveFormat int             `json:"archive_format"`
	Version       string          `json:"version"`
	StoreFormat   int             `json:"store_format"`
	Digest        string          `json:"digest"`
	Files         []store.FileSum `json:"files"`
}

// entry is one entry of an archive's tar stream.
type entry struct {
	hdr  tar.Header
	data []byte
}

// sample returns a store holding the sample site's version, active and
// served, and the version's name.
func sample(t *testing.T) (*store.Store, string) {
	t.Helper()
	st := testkit.SampleStore(t)
	name, err := st.ActiveName()
	if err != nil || name == "" {
		t.Fatalf("sample store has no active version: %q, %v", name, err)
	}
	return st, name
}

// sampleArchive exports the sample version once per test binary: most
// tests only rewrite it.
var sampleArchive = func() func(t *testing.T) (string, []byte) {
	var name string
	var arch []byte
	return func(t *testing.T) (string, []byte) {
		t.Helper()
		if arch == nil {
			st, n := sample(t)
			name, arch = n, export(t, st, n)
		}
		return name, bytes.Clone(arch)
	}
}()

func export(t *testing.T, st *store.Store, name string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := st.Export(t.Context(), name, &b); err != nil {
		t.Fatalf("export %s: %v", name, err)
	}
	return b.Bytes()
}

// emptyStore opens a store in a fresh folder.
func emptyStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// entries reads an archive's entries.
func entries(t *testing.T, arch []byte) []entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(arch))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{hdr: *hdr, data: data})
	}
}

// pack writes entries as an archive, taking each header's size from its
// data unless sizes says otherwise.
func pack(t *testing.T, es []entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range es {
		hdr := e.hdr
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readManifest(t *testing.T, es []entry) manifest {
	t.Helper()
	var m manifest
	if err := json.Unmarshal(es[0].data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeManifest(t *testing.T, es []entry, m manifest) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	es[0].data = b
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// find returns the index of the entry named name.
func find(t *testing.T, es []entry, name string) int {
	t.Helper()
	for i, e := range es {
		if e.hdr.Name == name {
			return i
		}
	}
	t.Fatalf("archive has no entry %s", name)
	return -1
}

// clean fails the test where the store's staging or versions folder holds
// anything but the names given.
func clean(t *testing.T, st *store.Store, versions ...string) {
	t.Helper()
	for _, d := range []string{"staging", "versions"} {
		// A refused import removes the folders its store created.
		ents, err := os.ReadDir(filepath.Join(st.Dir(), d))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		want := []string(nil)
		if d == "versions" {
			want = versions
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s/ holds %v, want %v", d, got, want)
		}
	}
}

// texts lists every text key of a tree: its three composed texts and its
// pages.
func texts(tr *store.Tree) []string {
	keys := []string{"index", "full", "outline"}
	for _, p := range tr.Pages {
		keys = append(keys, p.Route)
	}
	return keys
}

func TestExportImportRoundTrip(t *testing.T) {
	src, name := sample(t)
	arch := export(t, src, name)

	// The archive is what the format says: the manifest, meta.json, then
	// every file meta.json lists, in path order, with their checksums.
	es := entries(t, arch)
	m := readManifest(t, es)
	srcMeta, err := src.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].hdr.Name != "tzctx-archive.json" || m.ArchiveFormat != 1 || m.Version != name || m.StoreFormat != store.FormatVersion || m.Digest != srcMeta.Digest {
		t.Fatalf("manifest %s = %+v", es[0].hdr.Name, m)
	}
	if len(es) != len(m.Files)+1 || len(m.Files) != len(srcMeta.Files)+1 || m.Files[0].Path != "meta.json" {
		t.Fatalf("archive holds %d entries, manifest lists %d files, meta.json %d", len(es), len(m.Files), len(srcMeta.Files))
	}
	for i, f := range m.Files {
		e := es[i+1]
		if e.hdr.Name != f.Path || e.hdr.Typeflag != tar.TypeReg || e.hdr.Size != f.Size || sum(e.data) != f.SHA256 {
			t.Errorf("entry %d %s (%d bytes) does not match manifest file %+v", i+1, e.hdr.Name, e.hdr.Size, f)
		}
		if i > 1 && f.Path <= m.Files[i-1].Path {
			t.Errorf("files out of order: %s after %s", f.Path, m.Files[i-1].Path)
		}
		if i > 0 && f != srcMeta.Files[i-1] {
			t.Errorf("manifest file %+v, meta.json %+v", f, srcMeta.Files[i-1])
		}
	}
	if again := export(t, src, name); !bytes.Equal(again, arch) {
		t.Error("two exports of one version differ")
	}

	dst := emptyStore(t)
	res, err := dst.Import(t.Context(), bytes.NewReader(arch), store.ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if res.Name != name || res.Present {
		t.Errorf("import = %+v, want %s imported", res, name)
	}
	clean(t, dst, name)
	if err := dst.Verify(t.Context(), name); err != nil {
		t.Fatalf("imported version does not verify: %v", err)
	}
	// The imported version exports to the same bytes.
	if again := export(t, dst, name); !bytes.Equal(again, arch) {
		t.Error("the imported version exports to another archive")
	}

	// It serves what the source serves: every text, byte for byte, with
	// its stamp.
	if err := dst.Activate(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.Close() })
	a, err := src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := dst.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	am, bm := a.Meta(), b.Meta()
	if am.Name != bm.Name || am.Digest != bm.Digest || !am.Created.Equal(bm.Created) || am.Pages != bm.Pages {
		t.Errorf("imported meta %+v, source %+v", bm, am)
	}
	n := 0
	for _, tn := range tzctx.DefaultTrees {
		ta, tb := a.Tree(tn), b.Tree(tn)
		if (ta == nil) != (tb == nil) {
			t.Fatalf("tree %s: source has it %v, import %v", tn, ta != nil, tb != nil)
		}
		if ta == nil {
			continue
		}
		if len(ta.Pages) != len(tb.Pages) || ta.Title != tb.Title {
			t.Fatalf("tree %s: %d pages titled %q, import %d titled %q", tn, len(ta.Pages), ta.Title, len(tb.Pages), tb.Title)
		}
		for _, key := range texts(ta) {
			xa, err := ta.Text(key)
			if err != nil || xa == nil {
				t.Fatalf("source %s %s: %v, %v", tn, key, xa, err)
			}
			xb, err := tb.Text(key)
			if err != nil || xb == nil {
				t.Fatalf("import %s %s: %v, %v", tn, key, xb, err)
			}
			if xa.Stamp() != xb.Stamp() || !bytes.Equal(xa.Bytes(), xb.Bytes()) || xa.Total() != xb.Total() {
				t.Errorf("%s %s: import serves other text (stamp %s, source %s)", tn, key, xb.Stamp(), xa.Stamp())
			}
			n++
		}
	}
	if n < am.Pages {
		t.Errorf("compared %d texts, fewer than the %d pages", n, am.Pages)
	}

	// Importing it again is a no-op that says so.
	res, err = dst.Import(t.Context(), bytes.NewReader(arch), store.ImportOptions{})
	if err != nil || res.Name != name || !res.Present {
		t.Errorf("re-import = %+v, %v; want present", res, err)
	}
	clean(t, dst, name)
}

func TestImportConflict(t *testing.T) {
	name, arch := sampleArchive(t)
	// Another version, of one tree of the sample, under the same name.
	trees, err := ingest.SiteTrees(testkit.SampleSite(t))
	if err != nil {
		t.Fatal(err)
	}
	dst := emptyStore(t)
	if _, err := ingest.Run(t.Context(), dst, ingest.Options{Trees: trees[:1], Version: name}); err != nil {
		t.Fatal(err)
	}
	before, err := dst.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dst.Import(t.Context(), bytes.NewReader(arch), store.ImportOptions{})
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.Version != name {
		t.Fatalf("import over another version of the name: %v, want a ConflictError", err)
	}
	for _, want := range []string{`"` + name + `"`, "other content", "tzctx delete " + name} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	after, err := dst.Lookup(name)
	if err != nil || after.Digest != before.Digest {
		t.Errorf("stored version changed: %v, %v", after.Digest, err)
	}
	clean(t, dst, name)
}

// TestImportTruncated cuts the archive at many places across the stream,
// the gzip trailer included: every cut is refused and leaves nothing.
func TestImportTruncated(t *testing.T) {
	_, arch := sampleArchive(t)
	dst := emptyStore(t)
	var cuts []int
	for i := range 20 {
		cuts = append(cuts, i*len(arch)/20)
	}
	cuts = append(cuts, 10, 100, len(arch)-9, len(arch)-8, len(arch)-4, len(arch)-1)
	for _, cut := range cuts {
		_, err := dst.Import(t.Context(), bytes.NewReader(arch[:cut]), store.ImportOptions{})
		t.Log(cut, err)
		if !errors.Is(err, store.ErrBadArchive) {
			t.Errorf("cut at %d of %d: %v, want ErrBadArchive", cut, len(arch), err)
			continue
		}
		if !strings.Contains(err.Error(), "nothing was imported") {
			t.Errorf("cut at %d: error %q does not say nothing was imported", cut, err)
		}
		clean(t, dst)
	}
}

func TestImportDamaged(t *testing.T) {
	name, arch := sampleArchive(t)
	dst := emptyStore(t)
	refused := func(t *testing.T, arch []byte, want ...string) {
		t.Helper()
		res, err := dst.Import(t.Context(), bytes.NewReader(arch), store.ImportOptions{})
		t.Log(err)
		if !errors.Is(err, store.ErrBadArchive) {
			t.Fatalf("import = %+v, %v; want ErrBadArchive", res, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
		clean(t, dst)
	}
	// rewrite returns the archive with its entries changed by f.
	rewrite := func(t *testing.T, f func(es []entry) []entry) []byte {
		t.Helper()
		return pack(t, f(entries(t, arch)))
	}

	t.Run("flipped compressed byte", func(t *testing.T) {
		// A flip that leaves the decompressed stream as it was (one in
		// unused Huffman code bits, say) damages nothing gzip can see, so
		// the flip is moved on until the stream it decodes to differs or
		// fails: once in a few hundred archives the middle byte is such.
		want := gunzip(t, arch)
		for pos := len(arch) / 2; ; pos++ {
			b := bytes.Clone(arch)
			b[pos] ^= 0x40
			if got, err := gunzipErr(b); err == nil && bytes.Equal(got, want) {
				continue
			}
			refused(t, b)
			break
		}
	})
	t.Run("flipped data byte", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			i := find(t, es, "texts.bin")
			es[i].data[len(es[i].data)/2] ^= 1
			return es
		}), `"texts.bin"`, "SHA-256")
	})
	t.Run("extra file", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			return append(es, entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "extra.bin", Mode: 0o644}, data: []byte("x")})
		}), `"extra.bin"`, "not listed")
	})
	t.Run("extra file in manifest alone", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			data := []byte("x")
			m.Files = append(m.Files, store.FileSum{Path: "zz.bin", Size: 1, SHA256: sum(data)})
			writeManifest(t, es, m)
			return append(es, entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "zz.bin", Mode: 0o644}, data: data})
		}), `"meta.json"`, `"zz.bin"`)
	})
	t.Run("missing file", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			i := find(t, es, "pages.db")
			return append(es[:i], es[i+1:]...)
		}), `"pages.db"`, "missing")
	})
	t.Run("dot-dot path", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			return append(es[:2], append([]entry{{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "../evil", Mode: 0o644}, data: []byte("x")}}, es[2:]...)...)
		}), `"../evil"`)
		if _, err := os.Stat(filepath.Join(dst.Dir(), "..", "evil")); err == nil {
			t.Error("../evil was written")
		}
	})
	t.Run("dot-dot path in manifest", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.Files[1].Path = "../" + m.Files[1].Path
			writeManifest(t, es, m)
			es[2].hdr.Name = m.Files[1].Path
			return es
		}), "../", "clean relative path")
	})
	t.Run("absolute path", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			es[2].hdr.Name = "/tmp/" + es[2].hdr.Name
			return es
		}), `"/tmp/`)
	})
	t.Run("symlink", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			i := find(t, es, "texts.bin")
			es[i] = entry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "texts.bin", Linkname: "/etc/passwd"}}
			return es
		}), `"texts.bin"`, "symbolic link")
	})
	t.Run("folder entry", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			return append(es[:2], append([]entry{{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "index.bleve/", Mode: 0o755}}}, es[2:]...)...)
		}), "is a folder")
	})
	t.Run("duplicate", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			i := find(t, es, "aux.bin")
			return append(es[:i+1], es[i:]...)
		}), `"aux.bin"`, "twice")
	})
	t.Run("duplicate at the end", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			return append(es, es[len(es)-1])
		}), "twice")
	})
	t.Run("header size", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			i := find(t, es, "aux.bin")
			es[i].data = append(es[i].data, 0)
			return es
		}), `"aux.bin"`, "tar header")
	})
	t.Run("out of order", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			es[2], es[3] = es[3], es[2]
			return es
		}), "missing where the manifest lists it")
	})
	t.Run("digest disagrees with meta.json", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.Digest = strings.Repeat("0", 64)
			writeManifest(t, es, m)
			return es
		}), `"meta.json"`, "digest")
	})
	t.Run("meta.json names another version", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.Version = "other"
			writeManifest(t, es, m)
			return es
		}), `"meta.json"`, `"other"`)
	})
	t.Run("file sums disagree with meta.json", func(t *testing.T) {
		// A self-consistent manifest and tar stream whose file differs
		// from what meta.json records.
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			i := find(t, es, "texts.bin")
			es[i].data[0] ^= 1
			m.Files[i-1].SHA256 = sum(es[i].data)
			writeManifest(t, es, m)
			return es
		}), `"meta.json"`, `"texts.bin"`)
	})
	// resealed rewrites file name with damage and then every checksum
	// (manifest and meta.json) to agree with it, as a publisher that built
	// the version wrong would.
	resealed := func(name string, damage func([]byte) []byte) []byte {
		return rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			i := find(t, es, name)
			es[i].data = damage(es[i].data)
			m.Files[i-1].SHA256, m.Files[i-1].Size = sum(es[i].data), int64(len(es[i].data))
			var meta map[string]any
			if err := json.Unmarshal(es[1].data, &meta); err != nil {
				t.Fatal(err)
			}
			for _, f := range meta["files"].([]any) {
				if f := f.(map[string]any); f["path"] == name {
					f["sha256"], f["size"] = m.Files[i-1].SHA256, m.Files[i-1].Size
				}
			}
			b, err := json.Marshal(meta)
			if err != nil {
				t.Fatal(err)
			}
			es[1].data = b
			m.Files[0].Size, m.Files[0].SHA256 = int64(len(b)), sum(b)
			writeManifest(t, es, m)
			return es
		})
	}
	t.Run("consistent archive whose texts disagree with their tables", func(t *testing.T) {
		// Every checksum agrees, but a text's bytes are not the ones its
		// stamp and checkpoints were computed from: refused before any
		// read can trip over it.
		refused(t, resealed("texts.bin", func(b []byte) []byte {
			b = append([]byte(nil), b...)
			for i := range b {
				if b[i] == 'a' {
					b[i] = 'b'
					break
				}
			}
			return b
		}), `"texts.bin"`, "stamp")
		refused(t, resealed("aux.bin", func(b []byte) []byte {
			b = append([]byte(nil), b...)
			// The first layout's first checkpoint, after its header
			// and its line and place tables, is far from the text.
			copy(b[24+32:], []byte{0xff, 0xff, 0xff, 0x7f})
			return b
		}), `"texts.bin"`, "text")
	})
	t.Run("consistent archive of a version that does not open", func(t *testing.T) {
		// Every checksum agrees, but pages.db is no bbolt file: the
		// version is checked as a server checks it before the rename.
		refused(t, resealed("pages.db", func(b []byte) []byte { return make([]byte, len(b)) }), `"pages.db"`, "does not open")
	})
	t.Run("archive format", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.ArchiveFormat = 2
			writeManifest(t, es, m)
			return es
		}), "archive format 2", "upgrade")
	})
	t.Run("store format", func(t *testing.T) {
		for _, f := range []int{2, store.FormatVersion + 1} {
			refused(t, rewrite(t, func(es []entry) []entry {
				m := readManifest(t, es)
				m.StoreFormat = f
				writeManifest(t, es, m)
				return es
			}), "store format")
		}
	})
	t.Run("invalid version name", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.Version = "../" + name
			writeManifest(t, es, m)
			return es
		}), "no valid version name")
	})
	t.Run("manifest over 1 MiB", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			es[0].data = append(es[0].data, bytes.Repeat([]byte(" "), 1<<20)...)
			return es
		}), "tzctx-archive.json", "bound")
	})
	t.Run("declared size over the bound", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			m := readManifest(t, es)
			m.Files[len(m.Files)-1].Size = 100 << 30
			writeManifest(t, es, m)
			return es
		}), "bound")
	})
	t.Run("manifest not first", func(t *testing.T) {
		refused(t, rewrite(t, func(es []entry) []entry {
			es[0], es[1] = es[1], es[0]
			return es
		}), "not a tzctx version archive")
	})
	t.Run("not gzip", func(t *testing.T) {
		zr, err := gzip.NewReader(bytes.NewReader(arch))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		refused(t, raw, "not gzip-compressed")
	})
	t.Run("empty", func(t *testing.T) {
		refused(t, nil, "empty")
	})
	// withTail returns the archive with tail(its tar stream) appended
	// to its tar stream, compressed again.
	withTail := func(tail func(raw []byte) []byte) []byte {
		zr, err := gzip.NewReader(bytes.NewReader(arch))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(raw)
		zw.Write(tail(raw))
		zw.Close()
		return b.Bytes()
	}
	t.Run("data after the tar stream", func(t *testing.T) {
		refused(t, withTail(func([]byte) []byte { return []byte("hidden") }), "after the end of its tar stream")
	})
	t.Run("zero padding after the tar stream", func(t *testing.T) {
		// What other tar writers add, padding to a 10 KiB record, is
		// accepted.
		padded := withTail(func(raw []byte) []byte { return make([]byte, 10240-len(raw)%10240) })
		res, err := dst.Import(t.Context(), bytes.NewReader(padded), store.ImportOptions{})
		if err != nil || res.Name != name {
			t.Fatalf("import of a padded archive = %+v, %v", res, err)
		}
		if err := dst.Delete(name); err != nil {
			t.Fatal(err)
		}
		clean(t, dst)
	})
	t.Run("data after the stream", func(t *testing.T) {
		refused(t, append(bytes.Clone(arch), "junk"...), "after")
	})
}

// TestExportDamaged: a damaged version is not exported, and the error
// names it.
func TestExportDamaged(t *testing.T) {
	st, name := sample(t)
	p := filepath.Join(st.Dir(), "versions", name, "texts.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = st.Export(t.Context(), name, &out)
	var de *store.DamagedError
	if !errors.As(err, &de) || de.Version != name || de.File != "texts.bin" {
		t.Fatalf("export of a damaged version: %v, want a DamagedError naming %s texts.bin", err, name)
	}
	if !strings.Contains(err.Error(), `"`+name+`"`) {
		t.Errorf("error %q does not name the version", err)
	}
	if out.Len() != 0 {
		t.Errorf("export of a damaged version wrote %d bytes", out.Len())
	}
	if err := st.Export(t.Context(), "absent", &out); err == nil || !strings.Contains(err.Error(), `"absent"`) {
		t.Errorf("export of an absent version: %v", err)
	}
}

// cancelAfter reads r, cancelling ctx once n bytes have been read.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n -= k; c.n <= 0 {
		c.cancel()
	}
	return k, err
}

// TestImportCancelled: an import cancelled mid-stream returns ctx's error
// and leaves nothing; one killed leaves a staging folder that the next
// import removes.
func TestImportCancelled(t *testing.T) {
	_, arch := sampleArchive(t)
	dst := emptyStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := dst.Import(ctx, &cancelAfter{r: bytes.NewReader(arch), n: len(arch) / 2, cancel: cancel}, store.ImportOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v, want context.Canceled", err)
	}
	clean(t, dst)

	// What a killed import leaves: a staging folder whose lock nobody
	// holds.
	dead := filepath.Join(dst.Dir(), "staging", "import-dead")
	testkit.WriteFiles(t, dead, map[string]string{"lock": "", "texts.bin": "partial"})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dead, old, old); err != nil {
		t.Fatal(err)
	}
	res, err := dst.Import(t.Context(), bytes.NewReader(arch), store.ImportOptions{})
	if err != nil || res.Present {
		t.Fatalf("import = %+v, %v", res, err)
	}
	clean(t, dst, res.Name)
}

// zerosArchive writes to w the archive arch with one more file,
// zeros.bin, of size bytes of zeros, listed in its manifest and in its
// meta.json as any file is, with the SHA-256 sha: an archive of a version
// of that size, a few MB compressed for gigabytes. It writes the zeros as
// the reader takes them, and fails once it has written more than stop of
// them, so that an import that does read them costs little.
func zerosArchive(t *testing.T, arch []byte, size int64, sha string, w io.Writer, stop int64) error {
	es := entries(t, arch)
	m := readManifest(t, es)
	mi := find(t, es, "meta.json")
	var meta store.Meta
	if err := json.Unmarshal(es[mi].data, &meta); err != nil {
		return err
	}
	zeros := store.FileSum{Path: "zeros.bin", Size: size, SHA256: sha}
	meta.Files = append(meta.Files, zeros)
	raw, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	es[mi].data = raw
	m.Files[0] = store.FileSum{Path: "meta.json", Size: int64(len(raw)), SHA256: sum(raw)}
	m.Files = append(m.Files, zeros)
	slices.SortFunc(m.Files[1:], func(a, b store.FileSum) int { return strings.Compare(a.Path, b.Path) })
	writeManifest(t, es, m)
	es = append(es, entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "zeros.bin", Mode: 0o644}})
	slices.SortStableFunc(es[2:], func(a, b entry) int { return strings.Compare(a.hdr.Name, b.hdr.Name) })

	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	for _, e := range es {
		hdr := e.hdr
		if hdr.Name != "zeros.bin" {
			hdr.Size = int64(len(e.data))
			if err := tw.WriteHeader(&hdr); err != nil {
				return err
			}
			if _, err := tw.Write(e.data); err != nil {
				return err
			}
			continue
		}
		hdr.Size = size
		if err := tw.WriteHeader(&hdr); err != nil {
			return err
		}
		// What precedes the zeros reaches the reader before them.
		if err := zw.Flush(); err != nil {
			return err
		}
		buf := make([]byte, 1<<20)
		for n := int64(0); n < size; {
			if n > stop {
				return fmt.Errorf("the import read %d bytes of zeros.bin, which its bound should have refused from the manifest", n)
			}
			k := int(min(int64(len(buf)), size-n))
			if _, err := tw.Write(buf[:k]); err != nil {
				return err
			}
			n += int64(k)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// TestImportBoundsVersionSize: an archive whose manifest honestly lists a
// 3 GiB file of zeros, a few MB compressed, is refused from its manifest
// before anything is written, with an error naming the version's total,
// the bound and the setting that raises it: the import reads none of the
// file and leaves nothing in staging. The bound is ImportOptions', else
// DefaultMaxVersionBytes (4 GiB); an archive under it imports.
func TestImportBoundsVersionSize(t *testing.T) {
	_, arch := sampleArchive(t)
	const placeholder = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, c := range []struct {
		name         string
		size, bound  int64
		refusedBound int64
	}{
		{"a configured bound", 3 << 30, 1 << 20, 1 << 20},
		{"the default bound", 5 << 30, 0, store.DefaultMaxVersionBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := emptyStore(t)
			pr, pw := io.Pipe()
			sent := make(chan error, 1)
			go func() {
				// The SHA-256 of gigabytes of zeros would cost seconds to
				// compute, and no import may get as far as checking it.
				err := zerosArchive(t, arch, c.size, placeholder, pw, 64<<20)
				pw.CloseWithError(err)
				sent <- err
			}()
			_, err := dst.Import(t.Context(), pr, store.ImportOptions{MaxVersionBytes: c.bound})
			pr.CloseWithError(errors.New("the import returned"))
			if serr := <-sent; serr != nil && strings.Contains(serr.Error(), "zeros.bin") {
				t.Fatal(serr)
			}
			if err == nil {
				t.Fatal("an archive over the bound was imported")
			}
			// The total is the zeros and the sample's files.
			m := regexp.MustCompile(`of (\d+) bytes of files`).FindStringSubmatch(err.Error())
			if total, _ := strconv.ParseInt(append(m, "", "")[1], 10, 64); total <= c.size || total > c.size+int64(len(arch))*64 {
				t.Errorf("refusal %q does not give the version's total, over %d bytes", err, c.size)
			}
			for _, want := range []string{"archive refused", fmt.Sprintf("bound of %d bytes", c.refusedBound), "max_version_bytes", "nothing was imported"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
			if !errors.Is(err, store.ErrBadArchive) {
				t.Errorf("refusal %v does not match ErrBadArchive", err)
			}
			clean(t, dst)
		})
	}

	// An archive of 8 MiB of zeros, honest to the last checksum: over a
	// bound of 1 MiB it is refused; under one of 64 MiB it imports.
	const size = 8 << 20
	zs := sha256.Sum256(make([]byte, size))
	var b bytes.Buffer
	if err := zerosArchive(t, arch, size, hex.EncodeToString(zs[:]), &b, size); err != nil {
		t.Fatal(err)
	}
	dst := emptyStore(t)
	_, err := dst.Import(t.Context(), bytes.NewReader(b.Bytes()), store.ImportOptions{MaxVersionBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "bound of 1048576 bytes") {
		t.Fatalf("an 8 MiB version under a 1 MiB bound: %v", err)
	}
	clean(t, dst)
	res, err := dst.Import(t.Context(), bytes.NewReader(b.Bytes()), store.ImportOptions{MaxVersionBytes: 64 << 20})
	if err != nil {
		t.Fatalf("an 8 MiB version under a 64 MiB bound: %v", err)
	}
	clean(t, dst, res.Name)
}

// gunzip returns the decompressed stream of a gzip archive.
func gunzip(t *testing.T, arch []byte) []byte {
	t.Helper()
	b, err := gunzipErr(arch)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gunzipErr returns the decompressed stream of arch, or why it does not
// decompress (its checksum included).
func gunzipErr(arch []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(arch))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
