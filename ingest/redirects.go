package ingest

import (
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/source"
)

// FollowRedirects returns where target redirects to by a site's
// redirects, following up to eight; a ":name*" wildcard at the end of a
// source carries the rest of the target to the destination's. tzctx check
// follows a Mintlify site's with it, and the link resolver every other
// generator's.
func FollowRedirects(rs []source.Redirect, target string) (string, bool) {
	norm := func(s string) string { return "/" + strings.Trim(s, "/") }
	cur, moved := norm(target), false
	for range 8 {
		next := ""
		for _, r := range rs {
			src := norm(r.Source)
			if i := strings.LastIndex(src, "/:"); i >= 0 && strings.HasSuffix(src, "*") && !strings.Contains(src[i+2:len(src)-1], "/") {
				prefix := src[:i]
				if cur == prefix || strings.HasPrefix(cur, prefix+"/") {
					rest := strings.TrimPrefix(strings.TrimPrefix(cur, prefix), "/")
					dest := r.Destination
					if j := strings.LastIndex(dest, "/:"); j >= 0 && strings.HasSuffix(dest, "*") {
						dest = dest[:j] + "/" + rest
					}
					next = dest
					break
				}
				continue
			}
			if src == cur {
				next = r.Destination
				break
			}
		}
		if next == "" {
			break
		}
		if externalLinkRE.MatchString(next) {
			return next, true
		}
		cur, moved = norm(next), true
	}
	return cur, moved
}
