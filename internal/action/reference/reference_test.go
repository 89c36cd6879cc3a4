package reference_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/action/reference"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The committed reference, from this package's folder and from the
// repository's root, and the command that regenerates it.
const (
	committedDir = "../../../data/site/cloud/reference/actions"
	regenerate   = "go run ./cmd/tzctx gen reference --write data/site/cloud/reference/actions"
)

// specFile is a copy of the published form of an action reference, the
// read_context page; sharedSpec is where the shared specification keeps
// it, beside a checkout.
const (
	specFile   = "testdata/read_context_reference.spec.md"
	sharedSpec = "../../../../shared/spec/read_context_reference.md"
)

// generate returns the pages of this build: the embedded contract and the
// default dispatcher's registrations.
func generate(t *testing.T) []reference.Page {
	t.Helper()
	names, err := plane.Registered()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := reference.Generate(schemas.FS, names)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func page(t *testing.T, pages []reference.Page, action string) reference.Page {
	t.Helper()
	for _, p := range pages {
		if p.Action == action {
			return p
		}
	}
	t.Fatalf("no page for %s", action)
	return reference.Page{}
}

// served returns a page's copy as ingest serves it, the front matter cut,
// and the front matter.
func served(t *testing.T, md string) (copyText string, fm map[string]string) {
	t.Helper()
	rest, ok := strings.CutPrefix(md, "---\n")
	block, body, ok2 := strings.Cut(rest, "\n---\n")
	if !ok || !ok2 {
		t.Fatalf("page does not open with a front matter block:\n%s", md)
	}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		t.Fatalf("front matter is not YAML: %v\n%s", err, block)
	}
	return strings.TrimPrefix(body, "\n"), fm
}

// TestOnePagePerAction: the pages are the enumeration's actions, in its
// order, each file named for its action, each titled by its action name
// and described by its enumeration summary.
func TestOnePagePerAction(t *testing.T) {
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	pages := generate(t)
	enum := c.Enumeration()
	if len(pages) != len(enum) {
		t.Fatalf("%d pages for %d actions", len(pages), len(enum))
	}
	for i, e := range enum {
		p := pages[i]
		if p.Action != e.Name || p.File != e.Name+".md" {
			t.Errorf("page %d is %s in %s, want %s in %s.md", i, p.Action, p.File, e.Name, e.Name)
		}
		body, fm := served(t, p.Markdown)
		if first, _, _ := strings.Cut(body, "\n"); first != "# "+e.Name {
			t.Errorf("%s: the served copy's first line is %q, want the action's name as a heading", p.File, first)
		}
		if fm["title"] != e.Name || fm["description"] != e.Summary {
			t.Errorf("%s: front matter %v, want title %q and the enumeration's summary", p.File, fm, e.Name)
		}
		if !strings.HasSuffix(p.Markdown, "\n") || strings.HasSuffix(p.Markdown, "\n\n") {
			t.Errorf("%s does not end with exactly one line end", p.File)
		}
	}
}

// TestGoldenReadContextPage pins the whole read_context page.
func TestGoldenReadContextPage(t *testing.T) {
	got := page(t, generate(t), "read_context").Markdown
	path := filepath.Join("testdata", "read_context.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/action/reference -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the read_context page differs from internal/action/reference/%s; if the change is intended, run go test ./internal/action/reference -run Golden -update\n got:\n%s", path, got)
	}
}

// TestSpecCopyIsTheSharedSpec: the published form this package's tests
// hold is the shared specification's, where a checkout has it beside.
func TestSpecCopyIsTheSharedSpec(t *testing.T) {
	shared, err := os.ReadFile(sharedSpec)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent: the copy in %s cannot be compared with it", sharedSpec, specFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, held) {
		t.Errorf("%s differs from %s: copy the shared specification over it and regenerate the reference", specFile, sharedSpec)
	}
}

// spec is the published read_context page, split at its section titles.
type spec struct {
	lines    []string
	sections map[string][]string // a title's lines, up to the next title
}

// publishedLimit is the published form's description of `limit`, which the
// contract set departs from (contracts/choices/served.md#ch-reference, "The
// limit's description"): a chunk read from an offset that is not a place can
// hold more than the limit, so "Maximum" misled agents.
const publishedLimit = "Maximum Unicode code points returned in this chunk: 1 through 16000, default 8000. Offsets and limits count code points, not UTF-8 bytes or UTF-16 code units."

// servedLimit is the contract set's description of `limit`.
func servedLimit(t *testing.T) string {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Action("read_context")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := a.Request["$defs"].(map[string]any)["limit"].(map[string]any)["description"].(string)
	if d == "" || d == publishedLimit {
		t.Fatalf("the contract set's limit description is %q, not the departure the choices record", d)
	}
	return d
}

// readSpec reads the published form with its recorded departures
// applied: the limit's description.
func readSpec(t *testing.T) spec {
	t.Helper()
	raw, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(publishedLimit)) {
		t.Fatalf("%s no longer holds the limit description the contract set departs from; drop the departure", specFile)
	}
	raw = bytes.ReplaceAll(raw, []byte(publishedLimit), []byte(servedLimit(t)))
	s := spec{lines: strings.Split(string(raw), "\n"), sections: map[string][]string{}}
	cur := ""
	for _, l := range s.lines {
		if slices.Contains(reference.Sections, l) {
			cur = l
			continue
		}
		// The spec's last line runs its final title into the text after it.
		if strings.HasPrefix(l, "Shared contracts") {
			cur = "Shared contracts"
			continue
		}
		if cur != "" {
			s.sections[cur] = append(s.sections[cur], l)
		}
	}
	return s
}

// sections returns a generated page's "## " section titles in order, and
// each section's text.
func sections(md string) (titles []string, text map[string]string) {
	text = map[string]string{}
	cur := ""
	for _, l := range strings.Split(md, "\n") {
		if title, ok := strings.CutPrefix(l, "## "); ok {
			titles, cur = append(titles, title), title
			continue
		}
		if cur != "" {
			text[cur] += l + "\n"
		}
	}
	return titles, text
}

// jsonBlock returns the one ```json fenced block of a section.
func jsonBlock(t *testing.T, section string) string {
	t.Helper()
	_, rest, ok := strings.Cut(section, "```json\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		t.Fatalf("no json block in:\n%s", section)
	}
	return block
}

// TestPageFollowsPublishedForm compares the generated read_context page
// with the published form: the same title, sentences and section titles
// in the same order, the same JSON, and tables with the same rows and
// constraint lines. The page departs from the form where the choices
// (contracts/choices/served.md#ch-reference) say:
// Markdown headings, fences and tables, front matter, a line naming the
// product, no scenario, and a Shared contracts section that lists the
// shared shapes.
func TestPageFollowsPublishedForm(t *testing.T) {
	sp := readSpec(t)
	body, _ := served(t, page(t, generate(t), "read_context").Markdown)
	lines := strings.Split(body, "\n")
	if "# "+sp.lines[0] != lines[0] {
		t.Errorf("title %q, the form's %q", lines[0], sp.lines[0])
	}
	// Sentences the generator writes: each of the form's lines before its
	// first section title is a paragraph of the page, in the same order.
	at := 0
	for _, l := range sp.lines[1:] {
		if l == reference.Sections[0] {
			break
		}
		if l == "" {
			continue
		}
		i := slices.Index(lines[at:], l)
		if i < 0 {
			t.Errorf("the form's line %q is not a line of the page after line %d", l, at+1)
			continue
		}
		at += i + 1
	}
	// Section titles: the page's are the form's, in the form's order.
	titles, text := sections(body)
	var formTitles []string
	for _, l := range sp.lines {
		for _, s := range reference.Sections {
			if l == s || strings.HasPrefix(l, s) && s == "Shared contracts" {
				formTitles = append(formTitles, s)
			}
		}
	}
	if !slices.Equal(titles, formTitles) || len(titles) != 7 {
		t.Errorf("section titles %q, the form's %q", titles, formTitles)
	}
	if got, want := strings.TrimSpace(text["Contract description"]), strings.TrimSpace(strings.Join(sp.sections["Contract description"], "\n")); got != want {
		t.Errorf("contract description %q, the form's %q", got, want)
	}
	for _, title := range []string{"Access and action metadata", "Complete payload contract"} {
		if got, want := jsonBlock(t, text[title]), strings.TrimSpace(strings.Join(sp.sections[title], "\n")); got != want {
			t.Errorf("%s:\n%s\nthe form's:\n%s", title, got, want)
		}
	}
	// The MCP catalog entry is the form's less its scenario, which our
	// sources do not give.
	var got, want map[string]any
	if err := json.Unmarshal([]byte(jsonBlock(t, text["MCP catalog entry"])), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(strings.Join(sp.sections["MCP catalog entry"], "\n")), &want); err != nil {
		t.Fatal(err)
	}
	delete(want, "scenario")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MCP catalog entry %v, the form's less its scenario %v", got, want)
	}
	for _, side := range []string{"request", "response"} {
		gotRows, wantRows := pageRows(t, text[side]), specRows(sp.sections[side])
		if len(wantRows) == 0 || !reflect.DeepEqual(gotRows, wantRows) {
			t.Errorf("%s table:\n got %q\nform %q", side, gotRows, wantRows)
		}
	}
}

// A table row as both forms can be compared: the pointer, then the
// description and each constraint line, backticks dropped.
var rowStartRE = regexp.MustCompile(`^("" \(root\)|/\S*)(?: (.*))?$`)

func normalise(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "`", "")) }

func specRows(lines []string) [][]string {
	var out [][]string
	for _, l := range lines {
		if m := rowStartRE.FindStringSubmatch(l); m != nil {
			row := []string{m[1]}
			if m[2] != "" {
				row = append(row, normalise(m[2]))
			}
			out = append(out, row)
			continue
		}
		if len(out) > 0 && strings.TrimSpace(l) != "" {
			out[len(out)-1] = append(out[len(out)-1], normalise(l))
		}
	}
	return out
}

func pageRows(t *testing.T, section string) [][]string {
	t.Helper()
	var out [][]string
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.SplitN(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ", 2)
		if len(cells) != 2 {
			t.Fatalf("row %q has not two cells", l)
		}
		row := []string{normalise(cells[0])}
		if row[0] == `"" (root)` || strings.HasPrefix(row[0], "/") {
			for _, part := range strings.Split(cells[1], "<br>") {
				if part != "" {
					row = append(row, normalise(part))
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// TestBannerIsTheDispatchers: each page's build metadata says whether the
// default dispatcher registers its action, whatever the schemas hold
// (every enumerated action has its shapes), and always states the limits
// of registration.
func TestBannerIsTheDispatchers(t *testing.T) {
	names, err := plane.Registered()
	if err != nil {
		t.Fatal(err)
	}
	const limits = " Registration describes the default dispatcher in this build. It does not guarantee that a caller has the required credential or grant, that a tool is listed for that connection, or that the required service is configured."
	check := func(pages []reference.Page, isRegistered func(string) bool) {
		t.Helper()
		for _, p := range pages {
			want := "Build metadata: Not registered in this build." + limits
			if isRegistered(p.Action) {
				want = "Build metadata: Registered in this build." + limits
			}
			if !slices.Contains(strings.Split(p.Markdown, "\n"), want) {
				t.Errorf("%s lacks the line %q", p.File, want)
			}
		}
	}
	pages := generate(t)
	check(pages, func(a string) bool { return slices.Contains(names, a) })
	if len(names) == len(pages) {
		t.Log("every enumerated action is registered in this build")
	}
	none, err := reference.Generate(schemas.FS, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(none, func(string) bool { return false })
	if _, err := reference.Generate(schemas.FS, []string{"read_context", "write_context"}); err == nil || !strings.Contains(err.Error(), `"write_context"`) {
		t.Errorf("a registration the enumeration lacks: %v, want an error naming it", err)
	}
}

// TestPagesPassSurface: every generated page names Turn Zero Cloud and
// holds no code name or repository path (CTX-08), front matter included.
func TestPagesPassSurface(t *testing.T) {
	for _, p := range generate(t) {
		for _, f := range surface.Check(p.Markdown, surface.Options{MustName: true}) {
			t.Errorf("%s:%d:%d: %s: %s", p.File, f.Line, f.Column, f.Rule, f.Detail)
		}
	}
}

// TestOrderedReadingIsTheContracts: the order-keeping reading of the
// schema files that renders the tables and JSON blocks gives the same
// request and response as package schemas, shared shapes put in place.
func TestOrderedReadingIsTheContracts(t *testing.T) {
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range generate(t) {
		a, err := c.Action(p.Action)
		if err != nil {
			t.Fatal(err)
		}
		_, text := sections(p.Markdown)
		var got map[string]any
		if err := json.Unmarshal([]byte(jsonBlock(t, text["Complete payload contract"])), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"request": inline(a.Request, a.Request["$defs"]), "response": inline(a.Response, a.Response["$defs"])}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the payload contract differs from package schemas' shapes", p.Action)
		}
		members, err := reference.RequestMembers(schemas.FS, p.Action)
		if err != nil {
			t.Fatal(err)
		}
		props := a.Request["properties"].(map[string]any)
		if len(members) != len(props) {
			t.Errorf("%s: %d request members, the schema has %d", p.Action, len(members), len(props))
		}
		for _, m := range members {
			prop, _ := inline(props[m.Name], a.Request["$defs"]).(map[string]any)
			if prop == nil || prop["description"] != nilIfEmpty(m.Description) {
				t.Errorf("%s: member %s: description %q, the schema's %v", p.Action, m.Name, m.Description, prop)
			}
		}
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// inline replaces {"$ref": "#/$defs/x"} with defs' x, and drops $defs.
func inline(v, defs any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if ref, ok := x["$ref"].(string); ok {
			for k, y := range inline(defs.(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")], defs).(map[string]any) {
				out[k] = y
			}
		}
		for k, y := range x {
			if k != "$ref" && k != "$defs" {
				out[k] = inline(y, defs)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = inline(y, defs)
		}
		return out
	}
	return v
}

// schemaFS returns a copy of the schema files with edit applied to one.
func schemaFS(t *testing.T, file string, edit func(string) string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	ents, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := fs.ReadFile(schemas.FS, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == file {
			s := edit(string(b))
			if s == string(b) {
				t.Fatalf("the edit left %s as it was", file)
			}
			b = []byte(s)
		}
		m[e.Name()] = &fstest.MapFile{Data: b}
	}
	return m
}

// TestUnknownKeywordFailsGeneration: a schema keyword the tables do not
// print fails generation, naming the action, the pointer and the keyword,
// rather than leaving a contract fact out of the reference.
func TestUnknownKeywordFailsGeneration(t *testing.T) {
	fsys := schemaFS(t, schemas.PayloadsFile, func(s string) string {
		return strings.Replace(s, `"minLength": 1,
            "maxLength": 160,
            "description": "A content ID`, `"minLength": 1,
            "maxLength": 160,
            "not": {"const": "overview"},
            "description": "A content ID`, 1)
	})
	_, err := reference.Generate(fsys, nil)
	if !errors.Is(err, reference.ErrUnrenderedKeyword) {
		t.Fatalf("Generate: %v, want ErrUnrenderedKeyword", err)
	}
	for _, want := range []string{"read_context", "/properties/id", `"not"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// TestEditedSourceChangesThePage: a page renders its source, so an edit
// of a description in the wire shapes shows in the page; nothing is
// written twice.
func TestEditedSourceChangesThePage(t *testing.T) {
	fsys := schemaFS(t, schemas.PayloadsFile, func(s string) string {
		return strings.Replace(s, "IDs select listed platform content", "IDs select listed Turn Zero Cloud content", 1)
	})
	pages, err := reference.Generate(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := page(t, pages, "read_context")
	if n := strings.Count(p.Markdown, "IDs select listed Turn Zero Cloud content"); n != 2 {
		t.Errorf("the edited description shows %d times, want 2 (the table and the payload contract)", n)
	}
}

// TestCommittedReferenceIsFresh is the drift guard: the pages committed
// in the sample site's cloud tree are what this build generates. It fails
// naming each stale, missing or extra file and the command that rewrites
// them.
func TestCommittedReferenceIsFresh(t *testing.T) {
	if err := reference.Check(committedDir, generate(t), regenerate); err != nil {
		// Name the files from the repository's root, as the command does.
		t.Error(strings.ReplaceAll(err.Error(), committedDir, "data/site/cloud/reference/actions"))
	}
}

// TestDriftGuardFails edits, removes and adds files in a copy of the
// committed reference, and checks that Check names each and the command,
// and that Write repairs the copy.
func TestDriftGuardFails(t *testing.T) {
	pages := generate(t)
	dir := t.TempDir()
	ents, err := os.ReadDir(committedDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(committedDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := reference.Check(dir, pages, regenerate); err != nil {
		t.Fatalf("a copy of the committed reference: %v", err)
	}
	stale, missing := pages[0].File, pages[len(pages)-1].File
	edit := filepath.Join(dir, stale)
	b, err := os.ReadFile(edit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edit, bytes.Replace(b, []byte("Turn Zero Cloud"), []byte("Turn Zero Clouds"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, missing)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old_action.md"), []byte("# old_action\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = reference.Check(dir, pages, regenerate)
	var de *reference.DriftError
	if !errors.Is(err, reference.ErrDrift) || !errors.As(err, &de) {
		t.Fatalf("Check: %v, want a DriftError", err)
	}
	want := []reference.Drift{{File: stale, Problem: "stale"}, {File: missing, Problem: "missing"}, {File: "old_action.md", Problem: "extra"}}
	if !reflect.DeepEqual(de.Drifts, want) {
		t.Errorf("drifts %v, want %v", de.Drifts, want)
	}
	for _, s := range []string{filepath.Join(dir, stale) + " is stale", filepath.Join(dir, missing) + " is missing", "old_action.md is extra", "regenerate it with: " + regenerate} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q:\n%s", s, err)
		}
	}
	written, removed, err := reference.Write(dir, pages)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(written, []string{stale, missing}) || !slices.Equal(removed, []string{"old_action.md"}) {
		t.Errorf("Write wrote %v and removed %v, want [%s %s] and [old_action.md]", written, removed, stale, missing)
	}
	if err := reference.Check(dir, pages, regenerate); err != nil {
		t.Errorf("after Write: %v", err)
	}
}

// TestManifestListsTheReference: the cloud tree's manifest lists one page
// per enumerated action, reference/actions/<name>, in enumeration order
// and together, and no other page of that folder, so every generated page
// is read and searched like any page of the tree.
func TestManifestListsTheReference(t *testing.T) {
	res, err := manifest.Walk(filepath.Dir(filepath.Dir(committedDir)))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	first := -1
	for i, p := range res.Pages {
		if name, ok := strings.CutPrefix(p.Path, "reference/actions/"); ok {
			if first < 0 {
				first = i
			}
			if i != first+len(listed) {
				t.Errorf("reference/actions/%s is apart from the other action pages in the manifest", name)
			}
			listed = append(listed, name)
		}
	}
	var want []string
	for _, p := range generate(t) {
		want = append(want, strings.TrimSuffix(p.File, ".md"))
	}
	if !slices.Equal(listed, want) {
		t.Errorf("the cloud manifest lists the action pages %v, want %v", listed, want)
	}
}
