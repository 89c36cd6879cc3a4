package source

import "testing"

// TestSiteBase: the VitePress and Starlight readers give the base their
// configuration deploys the site under, without slashes; the root and
// VitePress's relative base give none.
func TestSiteBase(t *testing.T) {
	for _, c := range []struct {
		name  string
		s     Source
		files map[string]string
		want  string
	}{
		{"vitepress", VitePress{}, map[string]string{".vitepress/config.ts": "export default { base: '/vite/' }\n", "index.md": "# Home\n"}, "vite"},
		{"vitepress nested", VitePress{}, map[string]string{".vitepress/config.ts": "export default defineConfig({ base: '/org/vite/' })\n", "index.md": "# Home\n"}, "org/vite"},
		{"vitepress root", VitePress{}, map[string]string{".vitepress/config.ts": "export default { base: '/' }\n", "index.md": "# Home\n"}, ""},
		{"vitepress relative", VitePress{}, map[string]string{".vitepress/config.ts": "export default { base: './' }\n", "index.md": "# Home\n"}, ""},
		{"vitepress none", VitePress{}, map[string]string{".vitepress/config.ts": "export default { title: 'T' }\n", "index.md": "# Home\n"}, ""},
		{"starlight", Starlight{}, map[string]string{"astro.config.mjs": "import starlight from '@astrojs/starlight';\nexport default defineConfig({ base: '/docs', integrations: [starlight({ title: 'S' })] });\n", "src/content/docs/index.md": "---\ntitle: Home\n---\n"}, "docs"},
		{"starlight none", Starlight{}, map[string]string{"astro.config.mjs": "import starlight from '@astrojs/starlight';\nexport default defineConfig({ integrations: [starlight({ title: 'S' })] });\n", "src/content/docs/index.md": "---\ntitle: Home\n---\n"}, ""},
	} {
		if got := mustRead(t, c.s, c.files).SiteBase; got != c.want {
			t.Errorf("%s: SiteBase %q, want %q", c.name, got, c.want)
		}
	}
}
