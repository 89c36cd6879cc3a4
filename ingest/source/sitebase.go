package source

import (
	"path"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/source/jslit"
)

// siteBase returns the base a site's configuration deploys the whole site
// under (VitePress's base, Astro's base: "/vite/"), without surrounding
// slashes; "" where it sets none, or the root ("/", VitePress's relative
// "./").
func siteBase(conf *jslit.Object) string {
	s, ok := jslit.Str(conf.Get("base"))
	if !ok {
		return ""
	}
	return strings.Trim(path.Clean("/"+s), "/")
}
