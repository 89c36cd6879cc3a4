package manifest_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
)

// writeSite writes files (slash-separated names relative to dir) and returns dir.
func writeSite(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// at names where a page or skip was listed: "file pointer".
func at(file, pointer string) string { return file + " " + pointer }

func TestWalkRules(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		paths      []string
		where      map[string]string // path -> at(file, pointer) for selected pages
		skipped    int
		skipKinds  []manifest.SkipKind
		duplicates int
		repeats    []string // at(file, pointer) of each repeat
		manifests  []string // Result.Files; nil means just docs.json
	}{
		{
			name:  "pages in order with a leading slash removed",
			files: map[string]string{"docs.json": `{"navigation":{"pages":["index","/guides/intro","guides/errors"]}}`},
			paths: []string{"index", "guides/intro", "guides/errors"},
			where: map[string]string{
				"index":        at("docs.json", "/navigation/pages/0"),
				"guides/intro": at("docs.json", "/navigation/pages/1"),
			},
		},
		{
			name: "nested groups with the root page before the group's pages",
			files: map[string]string{"docs.json": `{"navigation":{"groups":[{"group":"A","pages":[
				"a1",
				{"group":"B","pages":["b1","b2"],"root":"b/index"},
				"a2"]}]}}`},
			paths: []string{"a1", "b/index", "b1", "b2", "a2"},
			where: map[string]string{
				"b/index": at("docs.json", "/navigation/groups/0/pages/1/root"),
				"b2":      at("docs.json", "/navigation/groups/0/pages/1/pages/1"),
			},
		},
		{
			name: "every division nested in any order",
			files: map[string]string{"docs.json": `{"navigation":{"products":[{"product":"P","dropdowns":[{"dropdown":"D",
				"anchors":[{"anchor":"A","tabs":[{"tab":"T","versions":[{"version":"v1","languages":[{"language":"en",
				"groups":[{"group":"G","pages":["deep"]}]}]}]}]}]}]}]}}`},
			paths: []string{"deep"},
			where: map[string]string{"deep": at("docs.json",
				"/navigation/products/0/dropdowns/0/anchors/0/tabs/0/versions/0/languages/0/groups/0/pages/0")},
		},
		{
			name: "divisions of one object in document order",
			files: map[string]string{"docs.json": `{"navigation":{
				"tabs":[{"tab":"x","pages":["t1"]}],
				"anchors":[{"anchor":"a","pages":["a1"]}],
				"pages":["p1"]}}`},
			paths: []string{"t1", "a1", "p1"},
		},
		{
			name: "divisions of one object in reverse document order",
			files: map[string]string{"docs.json": `{"navigation":{
				"pages":["p1"],
				"anchors":[{"anchor":"a","pages":["a1"]}],
				"tabs":[{"tab":"x","pages":["t1"]}]}}`},
			paths: []string{"p1", "a1", "t1"},
		},
		{
			name: "tab menu items with a link item skipped",
			files: map[string]string{"docs.json": `{"navigation":{"tabs":[{"tab":"Learn","menu":[
				{"item":"Course","href":"https://learn.example.com/"},
				{"item":"Guides","groups":[{"group":"g","pages":["m1"]}]},
				{"item":"More","pages":["m2"]}]}]}}`},
			paths:     []string{"m1", "m2"},
			where:     map[string]string{"m2": at("docs.json", "/navigation/tabs/0/menu/2/pages/0")},
			skipped:   1,
			skipKinds: []manifest.SkipKind{manifest.SkipHref},
		},
		{
			name:  "navigation as an array of entries",
			files: map[string]string{"docs.json": `{"navigation":[{"group":"G","pages":["a"]},"b"]}`},
			paths: []string{"a", "b"},
			where: map[string]string{"b": at("docs.json", "/navigation/1")},
		},
		{
			name: "single entries and nested arrays where arrays are expected",
			files: map[string]string{"docs.json": `{"navigation":{
				"tabs":{"tab":"T","pages":"solo"},
				"groups":[[{"group":"g","pages":[["n1","n2"]]}]]}}`},
			paths: []string{"solo", "n1", "n2"},
			where: map[string]string{
				"solo": at("docs.json", "/navigation/tabs/pages"),
				"n2":   at("docs.json", "/navigation/groups/0/0/pages/0/1"),
			},
		},
		{
			name: "href links are skipped and counted",
			files: map[string]string{"docs.json": `{"navigation":{
				"pages":["a",{"title":"External","href":"https://example.com"},"b"],
				"anchors":[{"anchor":"Blog","href":"https://blog.example.com"}],
				"global":{"anchors":[{"anchor":"Status","href":"https://status.example.com"}]}}}`},
			paths:     []string{"a", "b"},
			skipped:   3,
			skipKinds: []manifest.SkipKind{manifest.SkipHref, manifest.SkipHref, manifest.SkipHref},
		},
		{
			name: "openapi operation strings are skipped and counted",
			files: map[string]string{"docs.json": `{"navigation":{"pages":[
				"GET /users",
				"openapi.json POST /users",
				"/specs/api.yaml DELETE /users/{id}",
				"WEBHOOK /plant/webhook",
				"page"]}}`},
			paths:   []string{"page"},
			skipped: 4,
			skipKinds: []manifest.SkipKind{manifest.SkipOperation, manifest.SkipOperation,
				manifest.SkipOperation, manifest.SkipOperation},
		},
		{
			name: "openapi divisions count once and their explicit pages are walked",
			files: map[string]string{"docs.json": `{"navigation":{
				"groups":[
					{"group":"API","openapi":"openapi.json","pages":["api/intro","GET /x"]},
					{"group":"Generated","openapi":{"source":"a.json","directory":"api"}},
					{"group":"Events","asyncapi":"events.yaml"}],
				"tabs":[{"tab":"Reference","openapi":"b.yaml"}]}}`},
			paths:   []string{"api/intro"},
			skipped: 5,
			skipKinds: []manifest.SkipKind{manifest.SkipOpenAPI, manifest.SkipOperation,
				manifest.SkipOpenAPI, manifest.SkipAsyncAPI, manifest.SkipOpenAPI},
		},
		{
			name:       "a page listed again keeps its first position",
			files:      map[string]string{"docs.json": `{"navigation":{"pages":["a","b","/a","c","b"]}}`},
			paths:      []string{"a", "b", "c"},
			where:      map[string]string{"b": at("docs.json", "/navigation/pages/1")},
			duplicates: 2,
			repeats:    []string{at("docs.json", "/navigation/pages/2"), at("docs.json", "/navigation/pages/4")},
		},
		{
			name: "flags and titles are ignored and hidden entries are walked",
			files: map[string]string{"docs.json": `{"navigation":{"tabs":[{"tab":"index","hidden":true,"searchable":true,
				"groups":[{"group":"G","icon":"book","tag":"NEW","expanded":true,"boost":2,"default":true,
				"pages":["h","7.6/Module/Get-Thing"]}]}]}}`},
			paths: []string{"h", "7.6/Module/Get-Thing"},
		},
		{
			name:  "a byte order mark is ignored and a repeated member keeps its first position",
			files: map[string]string{"docs.json": "\ufeff" + `{"navigation":{"pages":["old"],"groups":[{"group":"g","pages":["g1"]}],"pages":["new"]}}`},
			paths: []string{"new", "g1"},
			where: map[string]string{"new": at("docs.json", "/navigation/pages/0")},
		},
		{
			name: "a $ref file keeps its own file and pointers",
			files: map[string]string{
				"docs.json": `{"navigation":{"languages":[{"language":"en","pages":["index"]},{"$ref":"./es.json"}]}}`,
				"es.json":   `{"language":"es","tabs":[{"tab":"Documentación","pages":["es/index"]}]}`,
			},
			paths: []string{"index", "es/index"},
			where: map[string]string{
				"index":    at("docs.json", "/navigation/languages/0/pages/0"),
				"es/index": at("es.json", "/tabs/0/pages/0"),
			},
			manifests: []string{"docs.json", "es.json"},
		},
		{
			name: "nested $ref files resolve relative to the referring file's folder",
			files: map[string]string{
				"docs.json":         `{"navigation":{"$ref":"nav/main.json"}}`,
				"nav/main.json":     `{"tabs":[{"$ref":"tabs/one.json"},{"$ref":"../shared/two.json"}]}`,
				"nav/tabs/one.json": `{"tab":"One","pages":["one"]}`,
				"shared/two.json":   `{"tab":"Two","pages":[{"$ref":"list.json"}]}`,
				"shared/list.json":  `["two"]`,
			},
			paths: []string{"one", "two"},
			where: map[string]string{
				"one": at("nav/tabs/one.json", "/pages/0"),
				"two": at("shared/list.json", "/0"),
			},
			manifests: []string{"docs.json", "nav/main.json", "nav/tabs/one.json", "shared/two.json", "shared/list.json"},
		},
		{
			name: "members beside $ref are merged and win",
			files: map[string]string{
				"docs.json": `{"navigation":{"tabs":[{
					"anchors":[{"anchor":"a","pages":["sibling-anchor"]}],
					"$ref":"tab.json",
					"pages":["mine"],
					"groups":[{"group":"s","pages":["sibling-group"]}]}]}}`,
				"tab.json": `{"tab":"T","groups":[{"group":"g","pages":["theirs-group"]}],"pages":["theirs"],"tabs":[{"tab":"in","pages":["kept"]}]}`,
			},
			// merged order: tab, groups (sibling), pages (sibling), tabs (referenced), anchors (sibling, appended)
			paths: []string{"sibling-group", "mine", "kept", "sibling-anchor"},
			where: map[string]string{
				"sibling-group":  at("docs.json", "/navigation/tabs/0/groups/0/pages/0"),
				"mine":           at("docs.json", "/navigation/tabs/0/pages/0"),
				"kept":           at("tab.json", "/tabs/0/pages/0"),
				"sibling-anchor": at("docs.json", "/navigation/tabs/0/anchors/0/pages/0"),
			},
			manifests: []string{"docs.json", "tab.json"},
		},
		{
			name: "$ref to an array and to a string stand in for entries",
			files: map[string]string{
				"docs.json": `{"navigation":{"pages":[{"$ref":"list.json"},{"$ref":"one.json"}]}}`,
				"list.json": `["a","b"]`,
				"one.json":  `"c"`,
			},
			paths: []string{"a", "b", "c"},
			where: map[string]string{
				"b": at("list.json", "/1"),
				"c": at("one.json", ""),
			},
			manifests: []string{"docs.json", "list.json", "one.json"},
		},
		{
			name: "a file referenced twice without a cycle is read once and walked twice",
			files: map[string]string{
				"docs.json": `{"navigation":{"tabs":[{"$ref":"t.json"},{"$ref":"t.json","tab":"Again"}]}}`,
				"t.json":    `{"tab":"T","pages":["p"]}`,
			},
			paths:      []string{"p"},
			duplicates: 1,
			repeats:    []string{at("t.json", "/pages/0")},
			manifests:  []string{"docs.json", "t.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSite(t, t.TempDir(), tt.files)
			res, err := manifest.Walk(dir)
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if got := res.Paths(); !reflect.DeepEqual(got, tt.paths) {
				t.Errorf("paths = %q, want %q", got, tt.paths)
			}
			for _, p := range res.Pages {
				if want, ok := tt.where[p.Path]; ok && at(p.File, p.Pointer) != want {
					t.Errorf("page %q listed at %q, want %q", p.Path, at(p.File, p.Pointer), want)
				}
			}
			if res.Skipped != tt.skipped || len(res.Skips) != tt.skipped {
				t.Errorf("skipped = %d (%d recorded), want %d", res.Skipped, len(res.Skips), tt.skipped)
			}
			if tt.skipKinds != nil {
				var kinds []manifest.SkipKind
				for _, s := range res.Skips {
					kinds = append(kinds, s.Kind)
				}
				if !reflect.DeepEqual(kinds, tt.skipKinds) {
					t.Errorf("skip kinds = %v, want %v", kinds, tt.skipKinds)
				}
			}
			if res.Duplicates != tt.duplicates || len(res.Repeats) != tt.duplicates {
				t.Errorf("duplicates = %d (%d recorded), want %d", res.Duplicates, len(res.Repeats), tt.duplicates)
			}
			var repeats []string
			for _, r := range res.Repeats {
				repeats = append(repeats, at(r.File, r.Pointer))
			}
			if !reflect.DeepEqual(repeats, tt.repeats) {
				t.Errorf("repeats = %q, want %q", repeats, tt.repeats)
			}
			manifests := tt.manifests
			if manifests == nil {
				manifests = []string{"docs.json"}
			}
			if !reflect.DeepEqual(res.Files, manifests) {
				t.Errorf("files = %q, want %q", res.Files, manifests)
			}
		})
	}
}

func TestWalkSkipDetails(t *testing.T) {
	dir := writeSite(t, t.TempDir(), map[string]string{"docs.json": `{"navigation":{"tabs":[
		{"tab":"API","openapi":"openapi.json","pages":["GET /users"]},
		{"tab":"Blog","href":"https://blog.example.com"}]}}`})
	res, err := manifest.Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []manifest.Skip{
		{Kind: manifest.SkipOpenAPI, Value: "openapi.json", File: "docs.json", Pointer: "/navigation/tabs/0/openapi"},
		{Kind: manifest.SkipOperation, Value: "GET /users", File: "docs.json", Pointer: "/navigation/tabs/0/pages/0"},
		{Kind: manifest.SkipHref, Value: "https://blog.example.com", File: "docs.json", Pointer: "/navigation/tabs/1/href"},
	}
	if !reflect.DeepEqual(res.Skips, want) {
		t.Errorf("skips = %+v, want %+v", res.Skips, want)
	}
}

// nav is a manifest listing the page "ok" and then pages, a JSON fragment.
func nav(pages string) map[string]string {
	return map[string]string{"docs.json": `{"navigation":{"pages":["ok",` + pages + `]}}`}
}

const fixPath = "list the page by its path inside the documentation folder, without extension"

// walkErrorCase is a site whose manifest the walker refuses, with the
// error it must give. schema marks the refusals of the value's shape that
// the manifest schema states too (types, required members, page path
// patterns): TestSchemaAgreesWithWalker holds the schema to refusing them.
type walkErrorCase struct {
	name     string
	site     string // the site folder below the temporary folder; "" for the folder itself
	files    map[string]string
	file     string
	pointer  string
	line     int
	column   int
	msg      string // full message; DIR stands for the site folder
	notExist bool   // errors.Is(err, fs.ErrNotExist)
	schema   bool
}

// walkErrorCases are the manifests TestWalkErrors feeds the walker.
var walkErrorCases = []walkErrorCase{
	{
		name:     "missing docs.json",
		files:    map[string]string{"README.md": "# hi"},
		file:     "docs.json",
		msg:      "docs.json: file not found in DIR; pass the documentation folder that holds docs.json",
		notExist: true,
	},
	{
		name:   "invalid JSON with its line and column",
		files:  map[string]string{"docs.json": "{\n  \"navigation\": {\n    \"pages\": [\"a\",]\n  }\n}"},
		file:   "docs.json",
		line:   3,
		column: 19,
		msg:    "docs.json at line 3, column 19: invalid JSON: invalid character ']' looking for beginning of value; fix the JSON syntax",
	},
	{
		name:   "invalid JSON columns count characters, not bytes",
		files:  map[string]string{"docs.json": `{"é": 1,}`},
		file:   "docs.json",
		line:   1,
		column: 9,
		msg:    "docs.json at line 1, column 9: invalid JSON: invalid character '}' looking for beginning of object key string; fix the JSON syntax",
	},
	{
		name:   "truncated JSON points past the end",
		files:  map[string]string{"docs.json": "{\"navigation\": "},
		file:   "docs.json",
		line:   1,
		column: 16,
		msg:    "docs.json at line 1, column 16: invalid JSON: unexpected end of JSON input; fix the JSON syntax",
	},
	{
		name: "invalid JSON in a referenced file",
		files: map[string]string{
			"docs.json": `{"navigation":{"languages":[{"$ref":"es.json"}]}}`,
			"es.json":   "{\n\"tabs\": [}\n",
		},
		file:   "es.json",
		line:   2,
		column: 10,
		msg:    "es.json at line 2, column 10: invalid JSON: invalid character '}' looking for beginning of value; fix the JSON syntax",
	},
	{
		name:    "navigation missing",
		schema:  true,
		files:   map[string]string{"docs.json": `{"name":"Site","nav":{"pages":["a"]}}`},
		file:    "docs.json",
		pointer: "/navigation",
		msg:     `docs.json at /navigation: the navigation member is missing; add a "navigation" object that lists the pages`,
	},
	{
		name:    "navigation is a string",
		schema:  true,
		files:   map[string]string{"docs.json": `{"navigation":"index"}`},
		file:    "docs.json",
		pointer: "/navigation",
		msg:     "docs.json at /navigation: navigation is a string, not an object or array; make navigation an object holding pages, groups, tabs or another division",
	},
	{
		name:    "navigation is null",
		schema:  true,
		files:   map[string]string{"docs.json": `{"navigation":null}`},
		file:    "docs.json",
		pointer: "/navigation",
		msg:     "docs.json at /navigation: navigation is null, not an object or array; make navigation an object holding pages, groups, tabs or another division",
	},
	{
		name:   "navigation referenced from a file holding a number",
		schema: true,
		files: map[string]string{
			"docs.json": `{"navigation":{"$ref":"nav.json"}}`,
			"nav.json":  `42`,
		},
		file: "nav.json",
		msg:  "nav.json: navigation is a number, not an object or array; make navigation an object holding pages, groups, tabs or another division",
	},
	{
		name:   "manifest is not an object",
		schema: true,
		files:  map[string]string{"docs.json": `["index"]`},
		file:   "docs.json",
		msg:    `docs.json: the manifest is an array, not an object; make docs.json an object with a "navigation" member`,
	},
	{
		name: "$ref leaves the site folder",
		site: "site",
		files: map[string]string{
			"site/docs.json": `{"navigation":{"tabs":[{"$ref":"../x.json"}]}}`,
			"x.json":         `{"pages":["stolen"]}`,
		},
		file:    "docs.json",
		pointer: "/navigation/tabs/0/$ref",
		msg:     `docs.json at /navigation/tabs/0/$ref: reference "../x.json" leaves the site folder; keep referenced files inside the documentation folder`,
	},
	{
		name: "$ref leaves the site folder from a subfolder",
		site: "site",
		files: map[string]string{
			"site/docs.json":     `{"navigation":{"$ref":"nav/main.json"}}`,
			"site/nav/main.json": `{"pages":[{"$ref":"./../../x.json"}]}`,
			"x.json":             `{"pages":["stolen"]}`,
		},
		file:    "nav/main.json",
		pointer: "/pages/0/$ref",
		msg:     `nav/main.json at /pages/0/$ref: reference "./../../x.json" leaves the site folder; keep referenced files inside the documentation folder`,
	},
	{
		name:    "absolute $ref",
		files:   map[string]string{"docs.json": `{"navigation":{"$ref":"/etc/nav.json"}}`},
		file:    "docs.json",
		pointer: "/navigation/$ref",
		msg:     `docs.json at /navigation/$ref: reference "/etc/nav.json" is an absolute path; write the path relative to the referring file's folder`,
	},
	{
		name:    "$ref is a URL",
		files:   map[string]string{"docs.json": `{"navigation":{"$ref":"https://example.com/nav.json"}}`},
		file:    "docs.json",
		pointer: "/navigation/$ref",
		msg:     `docs.json at /navigation/$ref: reference "https://example.com/nav.json" is a URL; copy the referenced file into the documentation folder and reference it by path`,
	},
	{
		name:    "$ref to itself",
		files:   map[string]string{"docs.json": `{"navigation":{"$ref":"./docs.json"}}`},
		file:    "docs.json",
		pointer: "/navigation/$ref",
		msg:     `docs.json at /navigation/$ref: reference "./docs.json" forms a cycle (docs.json → docs.json); remove one of the references in the cycle`,
	},
	{
		name: "$ref cycle through two files",
		files: map[string]string{
			"docs.json":  `{"navigation":{"$ref":"a.json"}}`,
			"a.json":     `{"pages":["a",{"$ref":"sub/b.json"}]}`,
			"sub/b.json": `{"group":"B","pages":["b",{"$ref":"../a.json"}]}`,
		},
		file:    "sub/b.json",
		pointer: "/pages/1/$ref",
		msg:     `sub/b.json at /pages/1/$ref: reference "../a.json" forms a cycle (a.json → sub/b.json → a.json); remove one of the references in the cycle`,
	},
	{
		name:     "$ref to a missing file",
		files:    map[string]string{"docs.json": `{"navigation":{"languages":[{"pages":["index"]},{"$ref":"./de.json"}]}}`},
		file:     "docs.json",
		pointer:  "/navigation/languages/1/$ref",
		msg:      `docs.json at /navigation/languages/1/$ref: reference "./de.json" names de.json, which does not exist; create the file or correct the reference`,
		notExist: true,
	},
	{
		name:    "$ref is not a string",
		schema:  true,
		files:   map[string]string{"docs.json": `{"navigation":{"pages":[{"$ref":3}]}}`},
		file:    "docs.json",
		pointer: "/navigation/pages/0/$ref",
		msg:     `docs.json at /navigation/pages/0/$ref: $ref is a number, not a file name; write "$ref": "file.json" with a path relative to this file`,
	},
	{
		name: "members beside a $ref to an array",
		files: map[string]string{
			"docs.json": `{"navigation":{"pages":[{"$ref":"list.json","group":"G"}]}}`,
			"list.json": `["a"]`,
		},
		file:    "docs.json",
		pointer: "/navigation/pages/0/$ref",
		msg:     `docs.json at /navigation/pages/0/$ref: reference "list.json" names an array, which cannot merge with the members beside $ref; move the members beside $ref into the referenced file, or reference an object`,
	},
	{
		name:    "page path with a .. segment",
		schema:  true,
		files:   nav(`"guides/../secret"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "guides/../secret" has a ".." segment; ` + fixPath,
	},
	{
		name:    "page path climbing out of the site",
		schema:  true,
		files:   nav(`"../outside"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "../outside" has a ".." segment; ` + fixPath,
	},
	{
		name:    "page path absolute after the leading slash",
		schema:  true,
		files:   nav(`"//server/share/page"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "//server/share/page" is an absolute path; ` + fixPath,
	},
	{
		name:    "page path with a drive letter",
		schema:  true,
		files:   nav(`"C:/docs/page"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "C:/docs/page" is an absolute path; ` + fixPath,
	},
	{
		name:    "page path is a URL",
		schema:  true,
		files:   nav(`"https://example.com/page"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "https://example.com/page" is a URL, not a page file; link external pages with an object that has an "href" member`,
	},
	{
		name:    "page path with an extension",
		schema:  true,
		files:   nav(`"guides/intro.mdx"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "guides/intro.mdx" includes the file extension; write the path without .md or .mdx`,
	},
	{
		name:    "empty page path",
		schema:  true,
		files:   nav(`""`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "" is empty; remove the entry or name a page`,
	},
	{
		name:    "page path with a trailing slash",
		files:   nav(`"guides/"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "guides/" has an empty segment; remove the doubled or trailing slash`,
	},
	{
		name:    "page path with a dot segment",
		schema:  true,
		files:   nav(`"./intro"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "./intro" has a "." segment; write the path without "./" segments`,
	},
	{
		name:    "page path with a backslash",
		schema:  true,
		files:   nav(`"guides\\intro"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "guides\\intro" contains a backslash; separate folders with forward slashes`,
	},
	{
		name:    "page path with a fragment",
		schema:  true,
		files:   nav(`"intro#setup"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "intro#setup" has a query or fragment; list the page file only, without ? or #`,
	},
	{
		name:    "operation with a lower-case method",
		files:   nav(`"get /users"`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: page path "get /users" has a segment with surrounding spaces; write an openapi operation's method in capitals, e.g. "GET /users"`,
	},
	{
		name:    "number where an entry is expected",
		schema:  true,
		files:   nav(`7`),
		file:    "docs.json",
		pointer: "/navigation/pages/1",
		msg:     `docs.json at /navigation/pages/1: navigation entry is a number, not a page path or an object; list a page as a string path or a group as an object`,
	},
	{
		name:    "group root that is not a page",
		schema:  true,
		files:   map[string]string{"docs.json": `{"navigation":{"groups":[{"group":"G","root":true,"pages":["a"]}]}}`},
		file:    "docs.json",
		pointer: "/navigation/groups/0/root",
		msg:     `docs.json at /navigation/groups/0/root: navigation entry is a boolean, not a page path or an object; list a page as a string path or a group as an object`,
	},
	{
		name:   "bad page path in a referenced file",
		schema: true,
		files: map[string]string{
			"docs.json": `{"navigation":{"languages":[{"$ref":"es.json"}]}}`,
			"es.json":   `{"tabs":[{"tab":"Docs","pages":["es/index","es/../../etc/passwd"]}]}`,
		},
		file:    "es.json",
		pointer: "/tabs/0/pages/1",
		msg:     `es.json at /tabs/0/pages/1: page path "es/../../etc/passwd" has a ".." segment; ` + fixPath,
	},
}

func TestWalkErrors(t *testing.T) {
	tests := walkErrorCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := writeSite(t, t.TempDir(), tt.files)
			dir := filepath.Join(base, tt.site)
			res, err := manifest.Walk(dir)
			if err == nil {
				t.Fatalf("Walk succeeded with pages %q, want an error", res.Paths())
			}
			want := strings.ReplaceAll(tt.msg, "DIR", dir)
			if err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			var me *manifest.Error
			if !errors.As(err, &me) {
				t.Fatalf("error %T is not a *manifest.Error", err)
			}
			if me.File != tt.file || me.Pointer != tt.pointer {
				t.Errorf("error at file %q pointer %q, want file %q pointer %q", me.File, me.Pointer, tt.file, tt.pointer)
			}
			if me.Line != tt.line || me.Column != tt.column {
				t.Errorf("error at line %d column %d, want line %d column %d", me.Line, me.Column, tt.line, tt.column)
			}
			if me.Problem == "" || me.Fix == "" {
				t.Errorf("error %+v lacks a problem or a fix", me)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.notExist)
			}
		})
	}
}

func TestErrorMessageShapes(t *testing.T) {
	tests := []struct {
		err  *manifest.Error
		want string
	}{
		{&manifest.Error{File: "docs.json", Pointer: "/navigation", Problem: "p", Fix: "f"}, "docs.json at /navigation: p; f"},
		{&manifest.Error{File: "es.json", Line: 2, Column: 3, Problem: "p", Fix: "f"}, "es.json at line 2, column 3: p; f"},
		{&manifest.Error{File: "docs.json", Problem: "p"}, "docs.json: p"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
