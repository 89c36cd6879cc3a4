package ingest

import (
	"fmt"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// TestLinkTargets is data-driven: a line with the destinations the one
// link parser must read from it.
func TestLinkTargets(t *testing.T) {
	t.Parallel()
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

// TestPageLinksAttributes is data-driven: a copy and the link attributes
// PageLinks must read from it (HTML's <a href>, the generators' link
// components' href and to, over several lines), and those it must not:
// bound values, expressions, code, comments, <link href>.
func TestPageLinksAttributes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, copy string
		want       []string
	}{
		{"html a", `See <a href="/guide/">the guide</a> and <a href='../api.md#x'>api</a>.` + "\n", []string{"/guide/", "../api.md#x"}},
		{"docusaurus Link", `<Link to="/docs/intro">Intro</Link> <Link to={"/docs/a"}>a</Link> <Link to={'/docs/b'} /> <Link to={` + "`/docs/c`" + `} />` + "\n", []string{"/docs/intro", "/docs/a", "/docs/b", "/docs/c"}},
		{"starlight LinkCard over lines", "<LinkCard\n\tslot=\"preview\"\n\ttitle=\"Customizing > Starlight\"\n\thref=\"/guides/customization/\"\n/>\n", []string{"/guides/customization/"}},
		{"mintlify Card", `<Card title="Quickstart" icon="rocket" href="/quickstart">Start</Card>` + "\n", []string{"/quickstart"}},
		{"unquoted", "<a href=/x/ title=y>x</a>\n", []string{"/x/"}},
		{"markdown and attribute in order", "[a](/one) <a href=\"/two\">2</a> [b](/three)\n", []string{"/one", "/two", "/three"}},
		{"bound and expressions", `<a :href="dep.url">x</a> <a v-bind:href="u">y</a> <Link to={` + "`/posts/${id}`" + `}>z</Link> <Link to={url}>w</Link> <a href={{repo.url}}>v</a>` + "\n", nil},
		{"code and comments", "```jsx\n<Link to=\"/posts\">Posts</Link>\n```\n<!-- <a href=\"/gone\">x</a> -->\n`<a href=\"/code\">`\n", nil},
		{"not navigation", "<link rel=\"stylesheet\" href=\"/style.css\" />\n", nil},
		{"an unclosed tag ends at a blank line", "a <b and\n\nthen href=\"/x\" in prose\n", nil},
		{"JSX template literals around a Markdown link", "<code>{`Array<{ icon: `}[StarlightIcon](/reference/icons/){`; href: string }>`}</code>\n", []string{"/reference/icons/"}},
		{"empty and other attributes", `<a href="">x</a> <img src="/logo.png" /> <a id="top"></a>` + "\n", nil},
	} {
		got := []string{}
		for _, l := range PageLinks(c.copy, textmap.Scan(c.copy)) {
			got = append(got, l.Target)
		}
		if fmt.Sprint(got) != fmt.Sprint(append([]string{}, c.want...)) {
			t.Errorf("%s: PageLinks = %q, want %q", c.name, got, c.want)
		}
	}
}
