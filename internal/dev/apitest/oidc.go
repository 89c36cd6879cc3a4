package apitest

import (
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// OIDCConfig is the oidc member that trusts the test issuer iss.
func OIDCConfig(iss *testkit.Issuer) *identity.OIDCConfig {
	return &identity.OIDCConfig{Issuer: iss.URL, Audience: iss.Audience, JWKSURL: iss.JWKSURL}
}

// InitializeBody is an MCP initialize request, as curl would send it.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
