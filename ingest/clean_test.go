package ingest

import (
	"reflect"
	"testing"
)

// TestCleanText: an MDX page's imports and exports (single and several
// lines, leading or after text) are left out, never in fenced code nor in
// a page that is not MDX; a heading's attribute list is left out and its
// id kept as the heading's anchor; tags are left out of headings, their
// text kept, and a link left empty by it goes too; a page with nothing to
// clean is returned byte for byte.
func TestCleanText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		in      string
		mdx     bool
		out     string
		lead    int
		anchors map[int]string
	}{
		{"leading imports", "\nimport Tabs from '@theme/Tabs';\nimport {\n  A,\n} from './a';\n\n# Title\n\nText.\n", true,
			"# Title\n\nText.\n", 6, nil},
		{"export after text", "# T\n\nexport const x = {\n  a: 1,\n}\n\nMore.\n", true,
			"# T\n\n\n\n\n\nMore.\n", 0, nil},
		{"in a fence", "# T\n\n```js\nimport x from 'y'\n```\n", true,
			"# T\n\n```js\nimport x from 'y'\n```\n", 0, nil},
		{"not MDX", "import x from 'y'\n\n# T\n", false,
			"import x from 'y'\n\n# T\n", 0, nil},
		{"prose", "Import the data.\nexport your work\n", true,
			"Import the data.\nexport your work\n", 0, nil},
		{"attribute list", "# Python Types { #python-types-intro }\n\n## Install {: #install .x }\n\n```\n## Not { #x }\n```\n", false,
			"# Python Types\n\n## Install\n\n```\n## Not { #x }\n```\n", 0, map[int]string{0: "python-types-intro", 2: "install"}},
		{"tags", "## MPA Mode <Badge type=\"warning\" text=\"experimental\" />\r\n## Target [<Badge text=\"NRV\" type=\"warning\" />](#from-v7)\n## `<T>` stays\n## <Only/>\n", false,
			"## MPA Mode\r\n## Target\n## `<T>` stays\n## <Only/>\n", 0, nil},
		{"nothing", "\n\n# T  \n\ntext <b>x</b>\n", true, "\n\n# T  \n\ntext <b>x</b>\n", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, lead, anchors := cleanText(c.in, c.mdx)
			if out != c.out || lead != c.lead || !reflect.DeepEqual(anchors, c.anchors) {
				t.Errorf("got %q, %d, %v\nwant %q, %d, %v", out, lead, anchors, c.out, c.lead, c.anchors)
			}
		})
	}
	for in, want := range map[string]string{
		"MPA Mode <Badge type=\"warning\" text=\"experimental\" />": "MPA Mode",
		"Install { #install }": "Install",
		"<code>x</code> and y": "x and y",
		"Plain {braces}":       "Plain {braces}",
		"<Icon />":             "<Icon />",
	} {
		if got := cleanTitle(in); got != want {
			t.Errorf("cleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
