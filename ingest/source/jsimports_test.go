package source

import (
	"context"
	"testing"
)

// TestSidebarsImported: a navigation module that takes its sidebars from
// sibling modules (VitePress's config importing a sidebar and a function
// building one, Docusaurus's sidebars file requiring and importing its
// parts, Starlight's config importing its sidebar) is read in the
// sidebar's order with its titles and no warning, where the base fell
// back to the folder's order with a warning.
func TestSidebarsImported(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"vitepress", map[string]string{
			"docs/.vitepress/config.mts": `import { defineConfig } from 'vitepress'
import { sidebarGuide } from './sidebar/guide'
import { reference } from './sidebar'
export default defineConfig({
  themeConfig: {
    sidebar: {
      '/guide/': { base: '/guide/', items: sidebarGuide('Introduction') },
      '/reference/': reference,
    },
  },
})
`,
			"docs/.vitepress/sidebar/guide.ts":     "export function sidebarGuide(label: string) {\n  return [{ text: label, items: [{ text: 'What is it?', link: 'what' }, { text: 'Getting Started', link: 'getting-started' }] }]\n}\n",
			"docs/.vitepress/sidebar/index.ts":     "export { reference } from './reference.js'\n",
			"docs/.vitepress/sidebar/reference.ts": "export const reference = [{ text: 'Reference', items: [{ text: 'CLI', link: '/reference/cli' }, { text: 'Config', link: '/reference/config' }] }]\n",
			"docs/guide/getting-started.md":        "# Start\n",
			"docs/guide/what.md":                   "# What\n",
			"docs/reference/config.md":             "# Config\n",
			"docs/reference/cli.md":                "# CLI\n",
		}, `guide/what|docs/guide/what.md|What is it?|Introduction
guide/getting-started|docs/guide/getting-started.md|Getting Started|Introduction
reference/cli|docs/reference/cli.md|CLI|Reference
reference/config|docs/reference/config.md|Config|Reference
`},
		{"docusaurus", map[string]string{
			"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: require.resolve('./sidebars.js')}}]]}",
			"sidebars.js":          "import { guides } from './sidebars/guides'\nmodule.exports = {docs: ['intro', ...guides, require('./sidebars/api.js')]}\n",
			"sidebars/guides.js":   "export const guides = [{type: 'category', label: 'Guides', items: ['setup', 'deploy']}]\n",
			"sidebars/api.js":      "module.exports = {type: 'category', label: 'API', items: ['api']}\n",
			"docs/api.md":          "# API\n",
			"docs/deploy.md":       "# Deploy\n",
			"docs/intro.md":        "# Intro\n",
			"docs/setup.md":        "# Setup\n",
		}, `intro|docs/intro.md||
setup|docs/setup.md||Guides
deploy|docs/deploy.md||Guides
api|docs/api.md||API
`},
		// A JSON sidebar imported by a VitePress config, and a Docusaurus
		// sidebars.js that requires a JSON file and calls a function a
		// CommonJS module exports.
		{"vitepress json", map[string]string{
			"docs/.vitepress/config.mts":    "import { defineConfig } from 'vitepress'\nimport guide from './sidebar.json' with { type: 'json' }\nexport default defineConfig({ themeConfig: { sidebar: { '/guide/': guide } } })\n",
			"docs/.vitepress/sidebar.json":  `[{"text": "Guide", "items": [{"text": "What is it?", "link": "/guide/what"}, {"text": "Getting Started", "link": "/guide/getting-started"}]}]`,
			"docs/guide/getting-started.md": "# Start\n",
			"docs/guide/what.md":            "# What\n",
		}, `guide/what|docs/guide/what.md|What is it?|Guide
guide/getting-started|docs/guide/getting-started.md|Getting Started|Guide
`},
		{"docusaurus json and require", map[string]string{
			"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {sidebarPath: require.resolve('./sidebars.js')}}]]}",
			"sidebars.js":          "const base = require('./sidebars/base.json')\nconst category = require('./sidebars/category')\nconst { api } = require('./sidebars/api.js')\nmodule.exports = {docs: [...base.docs, category('Guides', ['setup', 'deploy']), api]}\n",
			"sidebars/base.json":   `{"docs": ["intro"]}`,
			"sidebars/category.js": "module.exports = (label, items) => ({type: 'category', label, items})\n",
			"sidebars/api.js":      "exports.api = {type: 'category', label: 'API', items: ['api']}\n",
			"docs/api.md":          "# API\n",
			"docs/deploy.md":       "# Deploy\n",
			"docs/intro.md":        "# Intro\n",
			"docs/setup.md":        "# Setup\n",
		}, `intro|docs/intro.md||
setup|docs/setup.md||Guides
deploy|docs/deploy.md||Guides
api|docs/api.md||API
`},
		{"starlight", map[string]string{
			"astro.config.mjs":          "import starlight from '@astrojs/starlight';\nimport { sidebar } from './sidebar.mjs';\nexport default {integrations: [starlight({title: 'D', sidebar})]}\n",
			"sidebar.mjs":               "export const sidebar = [{label: 'Start', items: ['zeta', 'alpha']}]\n",
			"src/content/docs/alpha.md": "---\ntitle: Alpha\n---\n",
			"src/content/docs/zeta.md":  "---\ntitle: Zeta\n---\n",
		}, `zeta|src/content/docs/zeta.md||Start
alpha|src/content/docs/alpha.md||Start
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := folder(t, c.files)
			tree, err := Detect(dir).Read(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := pagesOf(tree.Pages); got != c.want {
				t.Errorf("pages\n%swant\n%s", got, c.want)
			}
			if len(tree.Warnings) != 0 {
				t.Errorf("warnings %q, want none", tree.Warnings)
			}
		})
	}
}
