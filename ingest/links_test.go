package ingest

import (
	"fmt"
	"testing"
)

// TestLinkTargets is data-driven: a line with the destinations the one
// link parser must read from it.
func TestLinkTargets(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"- [Home](/cloud/)", []string{"/cloud/"}},
		{"[a](x) and [b](y)", []string{"x", "y"}},
		{`[t](/x "a title")`, []string{"/x"}},
		{"[t](/a(b)/c)", []string{"/a(b)/c"}},
		{"[My page](</tzdocs/guides/my page/>)", []string{"/tzdocs/guides/my page/"}},
		{`[p](</a \<b\>/>)`, []string{"/a <b>/"}},
		{`[t](<x y> "title")`, []string{"x y"}},
		{"[t](/unclosed", nil},
		{"no link here", nil},
		{"[text] (not a link)", nil},
	} {
		if got := LinkTargets(c.line); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("LinkTargets(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
