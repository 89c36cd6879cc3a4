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
		if got := pageLinkTargets(c.copy); fmt.Sprint(got) != fmt.Sprint(append([]string{}, c.want...)) {
			t.Errorf("%s: PageLinks = %q, want %q", c.name, got, c.want)
		}
	}
}

// pageLinkTargets returns the targets PageLinks reads from a copy.
func pageLinkTargets(copyText string) []string {
	got := []string{}
	for _, l := range PageLinks(copyText, textmap.Scan(copyText)) {
		got = append(got, l.Target)
	}
	return got
}

// TestPageLinksJSXCommentsAndEntities is data-driven: a link inside an
// MDX JSX comment ({/* … */}, on one line or over several) is no link; a
// link attribute's HTML entities are decoded before it is resolved, a
// JSX string literal's are not (JavaScript reads them as written), and a
// Markdown destination's are (CommonMark decodes them).
func TestPageLinksJSXCommentsAndEntities(t *testing.T) {
	for _, c := range []struct {
		name, copy string
		want       []string
	}{
		{"one line", "{/* [old](/gone) */} [new](/guide/)\n", []string{"/guide/"}},
		{"over lines", "{/*\nSee [old](/gone) and <a href=\"/gone2\">x</a>.\n*/}\n[after](/after)\n", []string{"/after"}},
		{"two on a line", "{/* [a](/a) */}[b](/b){/* [c](/c) */}\n", []string{"/b"}},
		{"in code it is code", "`{/*` [a](/a) `*/}`\n", []string{"/a"}},
		{"entities in an attribute", `<a href="/search?q=a&amp;b=c">s</a> <a href="&#x2F;guide&#47;">g</a>` + "\n", []string{"/search?q=a&b=c", "/guide/"}},
		{"not in a JSX string", `<Link to={"/x&amp;y"}>x</Link>` + "\n", []string{"/x&amp;y"}},
		{"in a Markdown destination", "[a](/a&amp;b)\n", []string{"/a&b"}},
	} {
		if got := pageLinkTargets(c.copy); fmt.Sprint(got) != fmt.Sprint(append([]string{}, c.want...)) {
			t.Errorf("%s: PageLinks = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRewriteEntityLinks: an attribute whose target is written with
// entities resolves, and the served text keeps the rest of the page as
// written, only the target replaced; a link in a JSX comment stays as
// written.
func TestRewriteEntityLinks(t *testing.T) {
	r := fixtureResolver(t, "starlight", siteFacts{root: "src/content/docs"}, []fixturePage{
		{"index", "src/content/docs/index.mdx", "# Home\n"},
		{"guides/a-b", "src/content/docs/guides/a-b.mdx", "# A\n## Hello, World!\n"},
	})
	in := "<a href=\"&#x2F;guides&#x2F;a-b&#x2F;#hello-world\" title=\"A &amp; B\">x</a>\n{/* [old](/guides/a-b/) */}\n"
	want := "<a href=\"/d/guides/a-b/#hello-world\" title=\"A &amp; B\">x</a>\n{/* [old](/guides/a-b/) */}\n"
	if got := rewriteLinks(r, "src/content/docs/index.mdx", in, textmap.Scan(in)); got != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
}
