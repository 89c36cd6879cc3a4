package source

import (
	"path"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
)

// docuCurrent is Docusaurus's name of the version its docs folder holds.
const docuCurrent = "current"

// docuVersionRoutes returns, for a Docusaurus site, the version a tree
// read at version served ("" for the docs folder) is, and the site's other
// versions and locales as the routes it serves them under: each version
// below routeBasePath at its path (the docs options' versions.NAME.path,
// else "" for the last version, "next" for current, else its name), the
// last version being the docs options' lastVersion, else the first of
// versions.json, else current; current is left out where
// includeCurrentVersion is false. Each locale of i18n.locales but the
// default is served under its name from the site's root. A site without
// versions.json has one version, current, served at routeBasePath.
func docuVersionRoutes(conf, docsOpts *jslit.Object, cfgDir, docsPath string, versions []string, hasVersions bool, served string) (Other, []Other) {
	if served == "" {
		served = docuCurrent
	}
	var others []Other
	if i18n, ok := conf.Get("i18n").(*jslit.Object); ok {
		def, _ := jslit.Str(i18n.Get("defaultLocale"))
		locales, _ := i18n.Get("locales").([]any)
		for _, l := range locales {
			if name, ok := jslit.Str(l); ok && name != def && name != "" {
				others = append(others, Other{Folder: path.Join(cfgDir, "i18n", name), Route: name})
			}
		}
	}
	if !hasVersions {
		return Other{Folder: path.Clean(path.Join(cfgDir, docsPath)), Version: docuCurrent}, others
	}
	last, _ := jslit.Str(docsOpts.Get("lastVersion"))
	if last == "" && len(versions) > 0 {
		last = versions[0]
	}
	if last == "" {
		last = docuCurrent
	}
	opts, _ := docsOpts.Get("versions").(*jslit.Object)
	route := func(name string) string {
		if vo, ok := opts.Get(name).(*jslit.Object); ok {
			if p, ok := jslit.Str(vo.Get("path")); ok {
				return strings.Trim(p, "/")
			}
		}
		switch name {
		case last:
			return ""
		case docuCurrent:
			return "next"
		}
		return name
	}
	all := slices.Clone(versions)
	if inc, ok := docsOpts.Get("includeCurrentVersion").(bool); !ok || inc {
		all = append([]string{docuCurrent}, all...)
	}
	var self Other
	for _, name := range all {
		folder := path.Join(cfgDir, "versioned_docs", "version-"+name)
		if name == docuCurrent {
			folder = path.Clean(path.Join(cfgDir, docsPath))
		}
		o := Other{Folder: folder, Route: route(name), Version: name}
		if name == served {
			self = o
			continue
		}
		others = append(others, o)
	}
	if self.Version == "" {
		self = Other{Folder: path.Clean(path.Join(cfgDir, docsPath)), Route: route(served), Version: served}
	}
	return self, others
}
