package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// mcpMetadataPath is where /mcp's RFC 9728 protected resource metadata is
// served: the well-known path of a resource whose path is /mcp.
const mcpMetadataPath = server.WellKnownProtectedResourcePath + "/mcp"

// resourceMetadataPath is the path of the metadata /mcp's challenge
// names: the well-known path of o.Resource where set, else
// mcpMetadataPath; "" where o is nil, when no metadata is served.
func resourceMetadataPath(o *identity.OIDCConfig) string {
	switch {
	case o == nil:
		return ""
	case o.Resource != "":
		return server.ProtectedResourceMetadataPath(o.Resource)
	}
	return mcpMetadataPath
}

// resourceMetadataURL is what /mcp's challenge names as resource_metadata:
// the metadata URL of o.Resource where set; else the path, which /mcp
// puts on the request's scheme and Host, a Host that passed hostGuard.
func resourceMetadataURL(o *identity.OIDCConfig) string {
	p := resourceMetadataPath(o)
	if o == nil || o.Resource == "" {
		return p
	}
	u, err := url.Parse(o.Resource)
	if err != nil {
		return p
	}
	return u.Scheme + "://" + u.Host + p
}

// mountResourceMetadata serves the RFC 9728 protected resource metadata of
// /mcp on mux, naming o's issuer as its authorization server, so an
// OAuth client that /mcp refuses finds where to get a token. It is served
// at resourceMetadataPath(o), at mcpMetadataPath and at the bare
// well-known path. Requests pass through wrap (the access log).
//
// The resource is o.Resource where set; else it is derived from each
// request as scheme://Host/mcp (https where the request came over TLS or
// X-Forwarded-Proto says https), so the metadata is built per request.
// Behind a proxy that rewrites the host or path, set oidc.resource.
func mountResourceMetadata(mux *http.ServeMux, o *identity.OIDCConfig) {
	meta := func(resource string) server.ProtectedResourceMetadataConfig {
		return server.ProtectedResourceMetadataConfig{
			Resource:               resource,
			AuthorizationServers:   []string{o.Issuer},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "tzctx",
		}
	}
	var h http.Handler
	if o.Resource != "" {
		h = server.NewProtectedResourceMetadataHandler(meta(o.Resource))
	} else {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			server.NewProtectedResourceMetadataHandler(meta(requestScheme(r)+"://"+r.Host+"/mcp")).ServeHTTP(w, r)
		})
	}
	seen := map[string]bool{}
	for _, p := range []string{resourceMetadataPath(o), mcpMetadataPath, server.WellKnownProtectedResourcePath} {
		if !seen[p] {
			seen[p] = true
			mux.Handle(p, h)
		}
	}
}

// requestScheme is the scheme a request was sent with, as /mcp's
// challenge reads it.
func requestScheme(r *http.Request) string {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return "https"
	}
	return "http"
}
