package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

// entry is a catalog entry as list_context answers it.
type entry struct {
	ID       string `json:"id"`
	Tool     string `json:"tool"`
	Title    string `json:"title"`
	MimeType string `json:"mime_type"`
	Tree     string `json:"tree,omitempty"`
	Part     string `json:"part,omitempty"`
	Auth     string `json:"auth,omitempty"`
}

// listAll pages list_context to its end and returns the entries and the
// catalog stamp, checking that every page carries the same stamp and
// total and that the pages join.
func listAll(t *testing.T, s *server, bearer ...string) ([]entry, string) {
	t.Helper()
	var all []entry
	stamp, total := "", -1
	body := `{}`
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("list_context does not end")
		}
		r := s.post(t, "list_context", body, bearer...)
		if r.status != 200 {
			t.Fatalf("list_context %s = %d %s", body, r.status, r.raw)
		}
		var a struct {
			Stamp      string  `json:"stamp"`
			Offset     int     `json:"offset"`
			Total      int     `json:"total"`
			NextOffset *int    `json:"next_offset"`
			Entries    []entry `json:"entries"`
		}
		if err := json.Unmarshal([]byte(r.raw), &a); err != nil {
			t.Fatal(err)
		}
		if stamp != "" && (a.Stamp != stamp || a.Total != total) {
			t.Fatalf("page at %d has stamp %s total %d, the first %s %d", a.Offset, a.Stamp, a.Total, stamp, total)
		}
		if a.Offset != len(all) {
			t.Fatalf("page offset %d after %d entries", a.Offset, len(all))
		}
		stamp, total = a.Stamp, a.Total
		all = append(all, a.Entries...)
		if a.NextOffset == nil {
			break
		}
		if *a.NextOffset != len(all) {
			t.Fatalf("next_offset %d after %d entries", *a.NextOffset, len(all))
		}
		body = fmt.Sprintf(`{"offset":%d,"stamp":%q}`, *a.NextOffset, a.Stamp)
	}
	if len(all) != total {
		t.Fatalf("%d entries listed, total %d", len(all), total)
	}
	return all, stamp
}

// readAll reads one ID through read_context to its end at limit and
// returns the joined text and the answers' stamp and media type.
func readAll(t *testing.T, s *server, id string, limit int, bearer ...string) (text, stamp, mime string, chunks int) {
	t.Helper()
	var b strings.Builder
	body := fmt.Sprintf(`{"id":%q,"limit":%d}`, id, limit)
	for {
		r := s.post(t, "read_context", body, bearer...)
		if r.status != 200 {
			t.Fatalf("read_context %s = %d %s", body, r.status, r.raw)
		}
		chunks++
		if stamp != "" && r.str("stamp") != stamp {
			t.Fatalf("%s: the stamp changed between chunks", id)
		}
		stamp, mime = r.str("stamp"), r.str("mime_type")
		if r.str("id") != id {
			t.Fatalf("read_context %s answers id %q", id, r.str("id"))
		}
		b.WriteString(r.str("text"))
		next, ok := r.body["next_offset"].(float64)
		if !ok {
			break
		}
		body = fmt.Sprintf(`{"id":%q,"limit":%d,"offset":%d,"stamp":%q}`, id, limit, int(next), stamp)
		if chunks > 10000 {
			t.Fatalf("%s does not end", id)
		}
	}
	return b.String(), stamp, mime, chunks
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestCatalogOrderAndShape: the anonymous catalog is A-23's, group by
// group, each entry naming its tool and media type, the documentation
// entries their tree, part and authentication, and the gated tree absent.
func TestCatalogOrderAndShape(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	entries, _ := listAll(t, s)
	idx, err := catalog.ReadIndex(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := schemas.Load()
	var want []string
	want = append(want, "overview", "service_contracts", "manifest_schema", "bundle")
	for _, src := range idx.Sources {
		want = append(want, "source:"+src.Path)
	}
	for _, g := range idx.Guides {
		want = append(want, "guide:"+g.Subject)
	}
	var got []string
	skillsAt := -1
	for i, e := range entries {
		if strings.HasPrefix(e.ID, "skill:") {
			if skillsAt < 0 {
				skillsAt = i
			}
			continue
		}
		got = append(got, e.ID)
	}
	for _, e := range c.Enumeration() {
		want = append(want, "payload:"+e.Name)
	}
	want = append(want, "docs:cloud", "docs:cloud:full", "docs:tzdocs", "docs:tzdocs:full")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog (skills aside) =\n%q\nwant\n%q", got, want)
	}
	if skillsAt >= 0 && skillsAt != 4+len(idx.Sources)+len(idx.Guides) {
		t.Errorf("skills start at %d, not after the guides", skillsAt)
	}
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.ID, "docs:"):
			if e.Tool != "read_documentation" || e.MimeType != "text/markdown" || e.Tree == "" || (e.Part != "index" && e.Part != "full") || e.Auth != "anonymous" {
				t.Errorf("documentation entry %+v", e)
			}
		default:
			if e.Tool != "read_context" || e.Tree != "" || e.Part != "" || e.Auth != "" || e.Title == "" {
				t.Errorf("entry %+v", e)
			}
			wantMime := "text/markdown"
			if strings.HasSuffix(e.ID, ".json") || strings.HasPrefix(e.ID, "payload:") || e.ID == "manifest_schema" || e.ID == "bundle" {
				wantMime = "application/json"
			}
			if e.MimeType != wantMime {
				t.Errorf("%s has mime_type %s, want %s", e.ID, e.MimeType, wantMime)
			}
		}
	}
}

// TestCatalogVisibilityAndStamp: a holder of the blueprint profile sees
// the blueprint entries too, so the two views' stamps differ; each stamp
// is the SHA-256 of the compact JSON array of that view's entries; a stamp
// of one view does not page the other.
func TestCatalogVisibilityAndStamp(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	anon, anonStamp := listAll(t, s)
	held, heldStamp := listAll(t, s, "holder")
	if len(held) != len(anon)+2 {
		t.Fatalf("the holder sees %d entries, the anonymous caller %d", len(held), len(anon))
	}
	var bp []entry
	for _, e := range held {
		if e.Tree == "blueprint" {
			bp = append(bp, e)
		}
	}
	if len(bp) != 2 || bp[0].ID != "docs:blueprint" || bp[1].ID != "docs:blueprint:full" || bp[0].Auth != "product_profile" {
		t.Errorf("blueprint entries for the holder: %+v", bp)
	}
	for _, v := range []struct {
		entries []entry
		stamp   string
	}{{anon, anonStamp}, {held, heldStamp}} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v.entries); err != nil {
			t.Fatal(err)
		}
		if got := sha(strings.TrimSuffix(b.String(), "\n")); got != v.stamp {
			t.Errorf("catalog stamp %s, the SHA-256 of the entries is %s", v.stamp, got)
		}
	}
	if anonStamp == heldStamp {
		t.Error("the two views share a stamp")
	}
	// The blueprint entries are read_documentation's; read_context reads
	// them for the holder alone, and calls them unknown for others.
	if r := s.post(t, "read_context", `{"id":"docs:blueprint"}`); r.status != 404 || r.code() != "context_not_found" {
		t.Errorf("anonymous read_context docs:blueprint = %d %s", r.status, r.raw)
	}
	if r := s.post(t, "read_context", `{"id":"docs:blueprint"}`, "holder"); r.status != 200 {
		t.Errorf("holder read_context docs:blueprint = %d %s", r.status, r.raw)
	}
}

// TestCatalogPaging: with a small catalog page the pages join, an offset
// needs its stamp, another view's or a stale stamp answers
// context_changed, and an offset past the end is refused; no limit is
// accepted.
func TestCatalogPaging(t *testing.T) {
	t.Parallel()
	limits, _ := plane.Limits()
	limits.CatalogEntryLimit = 5
	small := newServerWith(t, sample, limits)
	paged, stamp := listAll(t, small)
	whole, wholeStamp := listAll(t, newServer(t, sample))
	if !reflect.DeepEqual(paged, whole) || stamp != wholeStamp {
		t.Fatalf("pages of 5 join to %d entries (stamp %s), one page holds %d (stamp %s)", len(paged), stamp, len(whole), wholeStamp)
	}
	first := small.post(t, "list_context", `{}`)
	if n := len(first.body["entries"].([]any)); n != 5 || first.num("next_offset") != 5 {
		t.Fatalf("first page: %d entries, next_offset %v", n, first.body["next_offset"])
	}
	_, heldStamp := listAll(t, small, "holder")
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"offset":5}`, 400, "invalid_request"},
		{fmt.Sprintf(`{"offset":5,"stamp":%q}`, heldStamp), 409, "context_changed"},
		{fmt.Sprintf(`{"offset":5,"stamp":%q}`, strings.Repeat("0", 64)), 409, "context_changed"},
		{fmt.Sprintf(`{"offset":%d,"stamp":%q}`, len(paged)+1, stamp), 400, "invalid_request"},
		{`{"limit":5}`, 400, "invalid_request"},
		{`{"offset":-1}`, 400, "invalid_request"},
	} {
		r := small.post(t, "list_context", c.body)
		if r.status != c.status || r.code() != c.code {
			t.Errorf("list_context %s = %d %s, want %d %s", c.body, r.status, r.raw, c.status, c.code)
		}
	}
	if r := small.post(t, "list_context", fmt.Sprintf(`{"offset":%d,"stamp":%q}`, len(paged), stamp)); r.status != 200 || len(r.body["entries"].([]any)) != 0 || r.body["next_offset"] != nil {
		t.Errorf("list_context at the end = %d %s", r.status, r.raw)
	}
	// GET answers the same as POST.
	if g := small.get(t, "list_context", ""); g.raw != first.raw {
		t.Errorf("GET list_context differs from POST:\n%s\n%s", g.raw, first.raw)
	}
}

// TestEveryEntryReadsToItsEnd: every listed ID that read_context reads
// reads to its end at several limits with one stamp; a source reads back
// byte for byte as its file, a JSON entry parses, and the joined text's
// SHA-256 is the stamp.
func TestEveryEntryReadsToItsEnd(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	entries, _ := listAll(t, s)
	max := 16000
	for _, e := range entries {
		if e.Tool != "read_context" {
			continue
		}
		var first string
		for _, limit := range []int{max, 2000, 333} {
			text, stamp, mime, _ := readAll(t, s, e.ID, limit)
			if first == "" {
				first = text
			} else if text != first {
				t.Fatalf("%s reads differently at limit %d", e.ID, limit)
			}
			if sha(text) != stamp || mime != e.MimeType {
				t.Errorf("%s at limit %d: stamp %s (text hashes to %s), mime %s (listed %s)", e.ID, limit, stamp, sha(text), mime, e.MimeType)
			}
		}
		if mime := e.MimeType; mime == "application/json" && !json.Valid([]byte(first)) {
			t.Errorf("%s is served as JSON and does not parse", e.ID)
		}
		if p, ok := strings.CutPrefix(e.ID, "source:"); ok {
			raw, err := catalog.Embedded().ReadFile(p)
			if err != nil || string(raw) != first {
				t.Errorf("%s does not read back as its file (%v)", e.ID, err)
			}
		}
		if g, ok := strings.CutPrefix(e.ID, "guide:"); ok {
			// The file as the default site name fills it.
			raw, err := catalog.Embedded().ReadFile("contracts/guides/" + g + ".md")
			if err != nil || string(raw) != first {
				t.Errorf("%s does not read back as its file (%v)", e.ID, err)
			}
		}
	}
	// The documentation entries read through read_context too,
	// answering read_documentation's text and stamp.
	for _, id := range []string{"docs:cloud", "docs:tzdocs:full"} {
		text, stamp, _, _ := readAll(t, s, id, max)
		if sha(text) != stamp {
			t.Errorf("%s: stamp is not the text's", id)
		}
	}
}

// TestPayloadEntries: each payload:<action> is one JSON document holding
// the contract version, the action, exactly the shared shapes its request
// and response reference, and the request and response of the wire
// shapes; each whose total allows it reads in at most two chunks at the
// maximum limit (A-24's drift guard).
func TestPayloadEntries(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	c, _ := schemas.Load()
	max := c.Limits().TextMaxLimit
	for _, e := range c.Enumeration() {
		id := "payload:" + e.Name
		text, _, mime, chunks := readAll(t, s, id, max)
		total := len([]rune(text))
		t.Logf("%s: %d code points, %d chunk(s) at limit %d", id, total, chunks, max)
		if mime != "application/json" {
			t.Errorf("%s: mime_type %s", id, mime)
		}
		if total <= 2*max && chunks > 2 {
			t.Errorf("%s: %d code points read in %d chunks at limit %d; at most two are promised where it fits in two limits", id, total, chunks, max)
		}
		var doc struct {
			ContractVersion int            `json:"contract_version"`
			Action          string         `json:"action"`
			Shared          map[string]any `json:"shared"`
			Request         map[string]any `json:"request"`
			Response        map[string]any `json:"response"`
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		a, err := c.Action(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		wantShared := map[string]any{}
		for _, d := range []map[string]any{a.Request, a.Response} {
			if defs, ok := d["$defs"].(map[string]any); ok {
				for k, v := range defs {
					wantShared[k] = v
				}
				delete(d, "$defs")
			}
		}
		if doc.ContractVersion != c.Version() || doc.Action != e.Name {
			t.Errorf("%s: contract_version %d, action %q", id, doc.ContractVersion, doc.Action)
		}
		norm := func(v any) string {
			b, _ := json.Marshal(v)
			return strings.ReplaceAll(string(b), `"#/shared/`, `"#/$defs/`)
		}
		if norm(doc.Shared) != norm(wantShared) || norm(doc.Request) != norm(a.Request) || norm(doc.Response) != norm(a.Response) {
			t.Errorf("%s differs from the wire shapes of %s", id, e.Name)
		}
		if strings.Contains(text, `"#/$defs/`) {
			t.Errorf("%s keeps a reference to #/$defs, which it does not hold", id)
		}
	}
}

// TestBundleListsEverySource: the bundle is the complete source catalog,
// the same for every caller, each source with the total and stamp its
// read answers.
func TestBundleListsEverySource(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	anon, _, _, _ := readAll(t, s, "bundle", 16000)
	held, _, _, _ := readAll(t, s, "bundle", 16000, "holder")
	if anon != held {
		t.Error("the bundle differs between callers")
	}
	var b struct {
		Product string `json:"product"`
		Sources []struct {
			ID, Title, MimeType, Stamp string
			Total                      int
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(anon), &b); err != nil {
		t.Fatal(err)
	}
	idx, _ := catalog.ReadIndex(catalog.Embedded())
	if b.Product != "Turn Zero Cloud" || len(b.Sources) != len(idx.Sources)+len(idx.Guides) {
		t.Fatalf("bundle: product %q, %d sources; the index has %d and %d guides", b.Product, len(b.Sources), len(idx.Sources), len(idx.Guides))
	}
	for _, src := range b.Sources {
		text, stamp, _, _ := readAll(t, s, src.ID, 16000)
		if src.Stamp != stamp || src.Total != len([]rune(text)) {
			t.Errorf("bundle row %s: total %d stamp %s; read: %d, %s", src.ID, src.Total, src.Stamp, len([]rune(text)), stamp)
		}
	}
}

// TestReadContextTakesExactIDsOnly: read_context reads exactly the IDs the
// catalog lists: never a path, URL, other case, trimmed or prefixed form,
// and not read_documentation's own IDs.
func TestReadContextTakesExactIDsOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	for _, id := range []string{
		"Overview", "overview ", " overview", "overvie", "source:", "source:../go.mod", "source:/etc/passwd",
		"source:./contracts/overview.md", "source:contracts//overview.md", "source:contracts/../contracts/overview.md",
		"contracts/overview.md", "/etc/passwd", "https://turnzero.ai/overview", "file:///etc/passwd", "guide:", "guide:Reading",
		"payload:", "payload:nope", "payload:read_context ", "skill:", "docs:cloud:outline", "docs:cloud:page:", "docs::search:0123456789abcdef",
		"source:contracts/contracts.go", "source:schemas/schemas.go", "source:README.md",
	} {
		body, _ := json.Marshal(map[string]any{"id": id})
		r := s.post(t, "read_context", string(body))
		if r.status != 404 || r.code() != "context_not_found" {
			t.Errorf("read_context %q = %d %s, want 404 context_not_found", id, r.status, r.raw)
		}
	}
}

// TestPlaneSentencesHoldNoPaths: the sentences the service writes itself
// (continuations, error details) hold no repository path and no code
// name (CTX-08, A-30).
func TestPlaneSentencesHoldNoPaths(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	var sentences []string
	for _, c := range []struct{ action, body string }{
		{"read_context", `{"id":"overview","limit":100}`},
		{"read_context", `{"id":"nope"}`},
		{"read_context", `{"id":"overview","offset":5}`},
		{"read_context", `{"id":"overview","offset":99999999,"stamp":"` + strings.Repeat("a", 64) + `"}`},
		{"read_context", `{}`},
		{"list_context", `{"limit":1}`},
		{"list_context", `{"offset":1,"stamp":"` + strings.Repeat("a", 64) + `"}`},
		{"read_documentation", `{"page":"/cloud/reference/http/","limit":500}`},
		{"read_documentation", `{"tree":"blueprint"}`},
		{"read_documentation", `{"tree":"cloud","page":"/nope/"}`},
		{"read_documentation", `{"page":"x","query":"y","tree":"cloud"}`},
		{"read_documentation", `{"query":"CTX-07"}`},
		{"read_documentation", `{}`},
		{"nope", `{}`},
	} {
		r := s.post(t, c.action, c.body)
		sentences = append(sentences, r.str("continuation"), r.detail())
		if c.body == `{"query":"CTX-07"}` {
			sentences = append(sentences, strings.SplitN(r.str("text"), "\n", 2)[0])
		}
	}
	checked := 0
	for _, sn := range sentences {
		if sn == "" {
			continue
		}
		checked++
		if f := surface.Check(sn, surface.Options{}); len(f) > 0 {
			t.Errorf("%q: %v", sn, f)
		}
	}
	// Every call above answers a continuation, a detail or a preface.
	if checked < 14 {
		t.Errorf("only %d sentences were collected from 14 calls; the calls no longer answer what this test scans", checked)
	}
}

// TestNewcomerAgentPath walks the path the overview teaches, over HTTP on
// the sample site: list_context, then overview, a guide, a skill, a
// payload and the documentation, each by the ID the catalog gave.
func TestNewcomerAgentPath(t *testing.T) {
	t.Parallel()
	s := newServer(t, sample)
	entries, _ := listAll(t, s)
	byPrefix := func(prefix string) entry {
		for _, e := range entries {
			if strings.HasPrefix(e.ID, prefix) {
				return e
			}
		}
		t.Fatalf("the catalog lists no %s entry", prefix)
		return entry{}
	}
	if entries[0].ID != "overview" {
		t.Fatalf("the catalog starts with %s", entries[0].ID)
	}
	overview, _, _, _ := readAll(t, s, "overview", 8000)
	for _, step := range []string{"list_context", "service_contracts", "guide:reading", "skill:", "payload:", "read_documentation"} {
		if !strings.Contains(overview, step) {
			t.Errorf("the overview does not point to %s", step)
		}
	}
	guide, _, _, _ := readAll(t, s, byPrefix("guide:").ID, 8000)
	skill, _, _, _ := readAll(t, s, "skill:discover-context", 8000)
	if !strings.HasPrefix(skill, "---\nname: discover-context\n") || !strings.Contains(skill, "list_context") {
		t.Errorf("skill:discover-context is not its SKILL.md:\n%.300s", skill)
	}
	payload, _, _, _ := readAll(t, s, "payload:read_documentation", 16000)
	var p struct {
		Request struct {
			Properties map[string]any `json:"properties"`
		} `json:"request"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil || p.Request.Properties["query"] == nil {
		t.Fatalf("payload:read_documentation has no query member (%v)", err)
	}
	// With what it learnt, the agent reads the cloud index as the docs
	// entry names it, and searches.
	docs := byPrefix("docs:cloud")
	if docs.Tool != "read_documentation" || docs.Tree != "cloud" {
		t.Fatalf("docs entry %+v", docs)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud","part":"index"}`); r.status != 200 || !strings.HasPrefix(r.str("text"), "# ") {
		t.Errorf("cloud index: %d %.200s", r.status, r.raw)
	}
	if r := s.post(t, "read_documentation", `{"tree":"cloud","query":"list_context"}`); r.status != 200 || !strings.Contains(r.str("text"), "/cloud/reference/actions/list_context/") {
		t.Errorf("a search for list_context does not find its reference page: %.300s", r.raw)
	}
	if guide == "" {
		t.Error("the guide is empty")
	}
}
