package textmap

import (
	"slices"
	"testing"
)

// TestAnchor pins A-21's anchor rule on single heading texts.
func TestAnchor(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"Getting Started", "getting-started"},
		{"Errors & Codes", "errors--codes"},
		{"read_context (CTX-07)", "read_context-ctx-07"},
		{"`read_context` and *paging*", "read_context-and-paging"},
		{"API v2.1: what's new?", "api-v21-whats-new"},
		{"  leading and trailing  ", "--leading-and-trailing--"},
		{"Tabs\tare dropped", "tabsare-dropped"},
		{"Ünïcödé Straße", "ünïcödé-straße"},
		{"Ωmega ΣΑΣ", "ωmega-σασ"},
		{"日本語 見出し", "日本語-見出し"},
		{"Café 😀 ok", "café--ok"},
		{"Step ٣", "step-٣"},
		// strings.ToLower turns İ into i and a combining dot (a mark, not
		// a letter), which the rule drops.
		{"İstanbul", "istanbul"},
		{"!!!", ""},
		{"", ""},
		// Inline JSX and HTML is markup, not heading text: its tags are
		// dropped and their content kept, as a renderer's slugger sees it.
		{"`colors` - <Badge color=\"red\">required</Badge>", "colors---required"},
		{"Limits<br/>and bounds", "limitsand-bounds"},
		{"New <Tag value={1} kind='x'>beta</Tag>", "new-beta"},
		// A tag inside a code span, escaped, or not a tag is text.
		{"POST `/api/v1/actions/<action>`", "post-apiv1actionsaction"},
		{"Resource \\<String\\>", "resource-string"},
		{"Type <Microsoft.Win32.RegistryValueKind>", "type-microsoftwin32registryvaluekind"},
		{"a < b and c > d", "a--b-and-c--d"},
		{"unclosed `<code> span", "unclosed--span"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := Anchor(tt.text); got != tt.want {
				t.Errorf("Anchor(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestAnchors pins the page-order suffixes of repeated anchors.
func TestAnchors(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  []string
	}{
		{"none", nil, []string{}},
		{"distinct", []string{"One", "Two"}, []string{"one", "two"}},
		{"repeats", []string{"Usage", "Example", "Usage", "usage", "USAGE"}, []string{"usage", "example", "usage-1", "usage-2", "usage-3"}},
		{"repeats after punctuation", []string{"Errors!", "Errors?", "Errors"}, []string{"errors", "errors-1", "errors-2"}},
		{"suffix already taken", []string{"Intro", "Intro", "Intro-1", "Intro"}, []string{"intro", "intro-1", "intro-1-1", "intro-2"}},
		{"non-ascii repeats", []string{"Über", "über", "ÜBER"}, []string{"über", "über-1", "über-2"}},
		{"empty anchors", []string{"!!!", "???"}, []string{"", "-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := make([]Heading, len(tt.texts))
			for i, s := range tt.texts {
				hs[i] = Heading{Depth: 2, Text: s, Offset: i}
			}
			if got := Anchors(hs); !slices.Equal(got, tt.want) {
				t.Errorf("Anchors = %q, want %q", got, tt.want)
			}
		})
	}
}
