package query

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
)

func hs(depths ...int) []tzctx.Heading {
	var out []tzctx.Heading
	for i, d := range depths {
		out = append(out, tzctx.Heading{Depth: d, Text: "h" + itoa(i), Offset: 10 * i})
	}
	return out
}

func repeat(d, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestHeadingsSelection pins A-19: the fall to depth 2 above 40 headings,
// no headings where none of depth 2 remain, the count and length bounds,
// and that only the bounds, not the fall, count as a cut.
func TestHeadingsSelection(t *testing.T) {
	t.Parallel()
	r := &Reader{cfg: Config{Limits: testLimits()}}
	cases := []struct {
		name    string
		in      []tzctx.Heading
		n       int
		cut     bool
		first   string
		nilList bool
	}{
		{name: "none", in: nil, nilList: true},
		{name: "forty mixed stay", in: hs(append(repeat(3, 20), repeat(2, 20)...)...), n: 40, first: "h0"},
		{name: "41 fall to depth 2", in: hs(append(repeat(3, 30), repeat(2, 11)...)...), n: 11, first: "h30"},
		{name: "41 of depth 3 answer none", in: hs(repeat(3, 41)...), nilList: true},
		{name: "50 of depth 2 cut at 40", in: hs(repeat(2, 50)...), n: 40, cut: true, first: "h0"},
	}
	for _, c := range cases {
		got, cut := r.headings(c.in)
		if c.nilList {
			if got != nil || cut {
				t.Errorf("%s: %v, %v; want none", c.name, got, cut)
			}
			continue
		}
		if len(got) != c.n || cut != c.cut || got[0].Text != c.first {
			t.Errorf("%s: %d entries, cut %v, first %q", c.name, len(got), cut, got[0].Text)
		}
	}
	// An astral character exactly at code point 120 stays whole; the
	// text is cut on a code-point boundary.
	long := strings.Repeat("a", 119) + "😀" + "tail"
	got, cut := r.headings([]tzctx.Heading{{Depth: 2, Text: long}, {Depth: 2, Text: "short"}})
	if !cut || got[0].Text != strings.Repeat("a", 119)+"😀" || !utf8.ValidString(got[0].Text) || got[1].Text != "short" {
		t.Errorf("cut heading = %q, %v", got[0].Text, cut)
	}
	exact := strings.Repeat("b", 120)
	if got, cut := r.headings([]tzctx.Heading{{Depth: 2, Text: exact}}); cut || got[0].Text != exact {
		t.Error("a heading of exactly 120 code points was cut")
	}
}

// TestContinuationSentences pins A-20's observable parts.
func TestContinuationSentences(t *testing.T) {
	t.Parallel()
	with := "For a section, read from an offset in headings with this stamp; for a passage's words, use query."
	cutS := "The headings list is cut; for a later section or a passage's words, use query."
	if utf8.RuneCountInString(cutS) > utf8.RuneCountInString(with) {
		t.Error("the cut sentence is longer than the one it replaces")
	}
	r := sampleReader(t)
	lim := 300
	a, _, err := r.ReadDocumentation(t.Context(), DocRequest{Page: str("/cloud/help/faq/"), Paging: Paging{Limit: &lim}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(a.Continuation, cutS) {
		t.Errorf("FAQ continuation = %q", a.Continuation)
	}
	b, _, _ := r.ReadDocumentation(t.Context(), DocRequest{Page: str("/cloud/reference/http/"), Paging: Paging{Limit: &lim}})
	if !strings.HasSuffix(b.Continuation, with) {
		t.Errorf("HTTP reference continuation = %q", b.Continuation)
	}
	c, _, _ := r.ReadDocumentation(t.Context(), DocRequest{Page: str("/cloud/reference/http/"), Paging: Paging{Limit: &lim, Offset: b.NextOffset, Stamp: &b.Stamp}})
	if c.Headings != nil || !strings.HasSuffix(c.Continuation, "For a passage's words, use query.") {
		t.Errorf("later chunk = %+v", c)
	}
}

// TestOffPlaceRead asks at offsets that are not places: the answer starts
// at the last place before, less than one limit back, and the chunk ends at
// the last place within one limit of the offset asked.
func TestOffPlaceRead(t *testing.T) {
	t.Parallel()
	r := sampleReader(t)
	lim := 200
	first, _, _ := r.ReadDocumentation(t.Context(), DocRequest{Tree: str("cloud"), Part: str("full"), Paging: Paging{Limit: &lim}})
	for _, asked := range []int{1, 57, 199, 201, 1234, first.Total - 1} {
		a, _, err := r.ReadDocumentation(t.Context(), DocRequest{Tree: str("cloud"), Part: str("full"), Paging: Paging{Limit: &lim, Offset: &asked, Stamp: &first.Stamp}})
		if err != nil {
			t.Fatal(err)
		}
		end := a.Total
		if a.NextOffset != nil {
			end = *a.NextOffset
		}
		if a.Offset > asked || asked-a.Offset >= lim || end <= asked || end > asked+lim {
			t.Errorf("asked %d: chunk [%d,%d)", asked, a.Offset, end)
		}
		if got := utf8.RuneCountInString(a.Text); got != end-a.Offset {
			t.Errorf("asked %d: text holds %d code points, range %d", asked, got, end-a.Offset)
		}
	}
	// offset == total is the empty last chunk; one past is refused.
	tot := first.Total
	a, _, err := r.ReadDocumentation(t.Context(), DocRequest{Tree: str("cloud"), Part: str("full"), Paging: Paging{Offset: &tot, Stamp: &first.Stamp}})
	if err != nil || a.Text != "" || a.Offset != tot || a.NextOffset != nil || !strings.Contains(a.Continuation, "last") {
		t.Errorf("offset == total: %+v, %v", a, err)
	}
	past := tot + 1
	if _, _, err := r.ReadDocumentation(t.Context(), DocRequest{Tree: str("cloud"), Part: str("full"), Paging: Paging{Offset: &past, Stamp: &first.Stamp}}); tzctx.ErrorCode(err) != tzctx.InvalidRequest {
		t.Errorf("offset past the end: %v", err)
	}
}
