package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/data"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/tier"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/query"
)

// TestListLibraryStatuses: list_library over HTTP lists the sample
// library this caller may read, the gated entry to its holder alone, and
// answers each entry's status against installed rows, rows it does not
// hold under unknown.
func TestListLibraryStatuses(t *testing.T) {
	t.Parallel()
	s := newServer(t, testkit.SampleStore(t))
	anon := s.post(t, "list_library", `{}`)
	if anon.status != 200 || anon.num("total") != 3 || strings.Contains(anon.raw, "service-template") {
		t.Fatalf("anonymous list_library = %d %s, want the three ungated entries", anon.status, anon.raw)
	}
	held := s.post(t, "list_library", `{}`, "holder")
	if held.num("total") != 4 || !strings.Contains(held.raw, "service-template") {
		t.Fatalf("holder's list_library = %s, want four entries", held.raw)
	}
	digest := map[string]string{}
	version := map[string]string{}
	for _, e := range anon.body["entries"].([]any) {
		m := e.(map[string]any)
		digest[m["name"].(string)], version[m["name"].(string)] = m["digest"].(string), m["version"].(string)
	}
	body := fmt.Sprintf(`{"installed": [{"name": "http-client", "version": %q, "digest": %q}, {"name": "error-codes", "version": "1.0.0", "digest": %q}, {"name": "gone", "version": "1.0.0", "digest": "x"}]}`,
		version["http-client"], digest["http-client"], digest["error-codes"])
	r := s.post(t, "list_library", body)
	got := map[string]string{}
	for _, e := range r.body["entries"].([]any) {
		m := e.(map[string]any)
		got[m["name"].(string)] = m["status"].(string)
	}
	want := map[string]string{"http-client": "current", "error-codes": "outdated", "docs-requirements": "available"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("status of %s = %q, want %q (%s)", k, got[k], v, r.raw)
		}
	}
	if u, _ := r.body["unknown"].([]any); len(u) != 1 || !strings.Contains(r.raw, `"name":"gone"`) {
		t.Errorf("unknown = %v, want the row gone", r.body["unknown"])
	}
}

// TestReadLibraryEntryGated: a gated entry is refused to an anonymous
// caller as an unknown one, and read by its holder.
func TestReadLibraryEntryGated(t *testing.T) {
	t.Parallel()
	s := newServer(t, testkit.SampleStore(t))
	if r := s.post(t, "read_library_entry", `{"name": "service-template", "path": "service.yaml"}`); r.status != 404 || r.code() != "context_not_found" {
		t.Errorf("anonymous read of the gated entry = %d %s, want 404 context_not_found", r.status, r.raw)
	}
	if r := s.post(t, "read_library_entry", `{"name": "service-template", "path": "service.yaml"}`, "holder"); r.status != 200 || !strings.Contains(r.str("text"), "site_name") {
		t.Errorf("holder's read = %d %s", r.status, r.raw)
	}
	if r := s.post(t, "read_library_entry", `{"name": "http-client", "path": "../../etc/passwd"}`); r.status != 404 {
		t.Errorf("a path outside the file list = %d %s, want 404", r.status, r.raw)
	}
	r := s.post(t, "read_library_entry", `{"name": "http-client"}`)
	if r.status != 200 || !strings.Contains(r.str("text"), "client.ts ") || r.str("id") != "library:http-client" {
		t.Errorf("file list = %d %s", r.status, r.raw)
	}
}

// TestReadLibraryEntryEveryLimit: paging each sample file at every limit
// from 1 to the maximum joins it byte for byte, and a .json file is cut
// at no line start inside a first- or second-depth member shorter than
// half the limit. Under go test -short (make test) it pages
// at a sample of the limits, libraryLimits; make test-long pages at every
// one.
func TestReadLibraryEntryEveryLimit(t *testing.T) {
	t.Parallel()
	limits, err := plane.Limits()
	if err != nil {
		t.Fatal(err)
	}
	r := query.NewReader(query.Config{Limits: limits}, query.FromStore(testkit.SampleStore(t)))
	ctx := context.Background()
	list, _, err := r.ListLibrary(ctx, query.LibraryListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, testkit.SampleStore(t))
	for _, e := range list.Entries {
		for _, f := range e.Files {
			path := f.Path
			whole, _, err := r.ReadLibraryEntry(ctx, query.LibraryReadRequest{Name: e.Name, Path: &path, Paging: query.Paging{Limit: &limits.TextMaxLimit}})
			if err != nil {
				t.Fatal(err)
			}
			if disk, err := fs.ReadFile(data.Site(), "library/"+e.Name+"/"+path); err != nil || string(disk) != whole.Text {
				t.Fatalf("%s/%s does not read back as the file published (%v)", e.Name, path, err)
			}
			if whole.Total > limits.TextMaxLimit {
				t.Fatalf("%s/%s is longer than one maximal chunk", e.Name, path)
			}
			members, isJSON := textmap.JSONMembers(whole.Text)
			isJSON = isJSON && strings.HasSuffix(path, ".json")
			for _, limit := range libraryLimits(whole.Text, whole.Total, limits.TextMaxLimit, members, tier.Exhaustive()) {
				var b strings.Builder
				off, stamp := 0, ""
				for {
					p := query.Paging{Limit: &limit}
					if off > 0 {
						p.Offset, p.Stamp = &off, &stamp
					}
					a, _, err := r.ReadLibraryEntry(ctx, query.LibraryReadRequest{Name: e.Name, Path: &path, Paging: p})
					if err != nil {
						t.Fatalf("%s/%s at limit %d offset %d: %v", e.Name, path, limit, off, err)
					}
					b.WriteString(a.Text)
					stamp = a.Stamp
					if a.NextOffset == nil {
						break
					}
					off = *a.NextOffset
					if isJSON {
						for _, m := range members {
							if m.Depth <= 2 && 2*(m.End-m.Start) < limit && off > m.Start && off < m.End {
								t.Fatalf("%s/%s at limit %d is cut at %d inside a short member [%d,%d)", e.Name, path, limit, off, m.Start, m.End)
							}
						}
					}
				}
				if b.String() != whole.Text {
					t.Fatalf("%s/%s at limit %d: the chunks do not join to the file", e.Name, path, limit)
				}
			}
			// Over HTTP, at a limit that pages, the joined text is the file.
			var b strings.Builder
			body := map[string]any{"name": e.Name, "path": path, "limit": 1000}
			for {
				raw, _ := json.Marshal(body)
				a := s.post(t, "read_library_entry", string(raw))
				if a.status != 200 {
					t.Fatalf("HTTP read of %s/%s = %d %s", e.Name, path, a.status, a.raw)
				}
				b.WriteString(a.str("text"))
				next, ok := a.body["next_offset"].(float64)
				if !ok {
					break
				}
				body["offset"], body["stamp"] = int(next), a.str("stamp")
			}
			if b.String() != whole.Text {
				t.Errorf("HTTP chunks of %s/%s do not join to the file", e.Name, path)
			}
		}
	}
}

// librarySampleSeed seeds libraryLimits' random limits, so a failure
// names a limit that the next run pages at again.
const librarySampleSeed = 34

// librarySmallFile is the length up to which libraryLimits samples every
// limit to 64 and every chunk edge.
const librarySmallFile = 2048

// libraryLimits returns, ascending, the limits at which
// TestReadLibraryEntryEveryLimit pages a file of text (total its length,
// maxLimit the largest limit, members its JSON members): with exhaustive,
// every limit from 1 to the first that holds the whole file in one chunk
// (total+1, at most maxLimit); else a sample proving the same cuts: every
// limit to 64 (on a small file), every chunk edge (a limit equal to a line's start, and one
// either side; twice a first- or second-depth member's length, and one
// more, where the rule against cutting inside a member begins; the file's
// length and one either side; the maximum), and 32 limits drawn with a
// fixed seed. A file longer than librarySmallFile is paged at no limit
// below 16 and at eight limits from 16 to 64 drawn with the seed.
func libraryLimits(text string, total, maxLimit int, members []textmap.Member, exhaustive bool) []int {
	last := min(total+1, maxLimit)
	if exhaustive {
		all := make([]int, last)
		for i := range all {
			all[i] = i + 1
		}
		return all
	}
	set := map[int]bool{}
	// A larger file pages at a small limit in thousands of reads: the
	// small files prove every limit to 64, it limits from 16 on and a
	// seeded eight of 16 to 64.
	floor := 1
	rng := rand.New(rand.NewPCG(librarySampleSeed, uint64(total)))
	if total > librarySmallFile {
		floor = 16
		for range 8 {
			set[16+rng.IntN(49)] = true
		}
	}
	add := func(l int) {
		if l >= floor && l <= last {
			set[l] = true
		}
	}
	for l := 1; l <= 64 && floor == 1; l++ {
		add(l)
	}
	for i, c := range text {
		if c == '\n' {
			add(i)
			add(i + 1)
			add(i + 2)
		}
	}
	for _, m := range members {
		if m.Depth <= 2 {
			add(2 * (m.End - m.Start))
			add(2*(m.End-m.Start) + 1)
		}
	}
	add(total - 1)
	add(total)
	add(total + 1)
	add(maxLimit)
	for range 32 {
		add(1 + rng.IntN(last))
	}
	return slices.Sorted(maps.Keys(set))
}

// TestListLibraryOutdatedAfterNewVersion: rows taken from one version
// answer outdated once a version with a newer entry is served, and current
// again once the row is the new one's.
func TestListLibraryOutdatedAfterNewVersion(t *testing.T) {
	t.Parallel()
	old := newServer(t, testkit.SampleStore(t))
	first := old.post(t, "list_library", `{}`)
	row := func(r reply, name string) string {
		for _, e := range r.body["entries"].([]any) {
			m := e.(map[string]any)
			if m["name"] == name {
				return fmt.Sprintf(`{"name": %q, "version": %q, "digest": %q}`, name, m["version"], m["digest"])
			}
		}
		t.Fatalf("no entry %s in %s", name, r.raw)
		return ""
	}
	taken := row(first, "http-client")
	site := testkit.SampleSite(t)
	lib := filepath.Join(site, "library")
	raw, err := os.ReadFile(filepath.Join(lib, "library.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "library.json"), []byte(strings.Replace(string(raw), `"version": "1.2.0"`, `"version": "1.3.0"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "http-client", "client.ts"), []byte("// A newer client for Turn Zero Cloud.\nexport const version = 2;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trees, err := ingest.SiteTrees(site)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, testkit.IngestOptions(t, ingest.Options{Trees: trees, Library: ingest.SiteLibrary(site)}))
	r := s.post(t, "list_library", `{"installed": [`+taken+`]}`)
	if !strings.Contains(r.raw, `"name":"http-client"`) || !strings.Contains(r.raw, `"status":"outdated"`) {
		t.Fatalf("list_library after a new version = %s, want http-client outdated", r.raw)
	}
	r = s.post(t, "list_library", `{"installed": [`+row(s.post(t, "list_library", `{}`), "http-client")+`]}`)
	if strings.Contains(r.raw, `"status":"outdated"`) || !strings.Contains(r.raw, `"status":"current"`) {
		t.Errorf("list_library with the new row = %s, want current", r.raw)
	}
}
