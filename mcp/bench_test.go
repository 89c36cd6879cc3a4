package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/mcp"
)

// BenchmarkResourceRead reads whole texts through resources/read, as a
// client's request reaches the MCP server: the cloud tree's outline,
// read in chunks of text_max_limit through read_documentation, and the
// bundle, a JSON catalog entry read through read_context. Its figure
// is the allocations of one read (-benchmem).
func BenchmarkResourceRead(b *testing.B) {
	f := newFixture(b)
	srv := f.s.MCPServer()
	ctx := mcp.WithCaller(context.Background(), "", anonymous)
	for _, uri := range []string{mcp.OutlineURI("cloud"), mcp.ContextURI("bundle")} {
		msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{"uri": uri}})
		if err != nil {
			b.Fatal(err)
		}
		read := func() int {
			resp, ok := srv.HandleMessage(ctx, msg).(mcpgo.JSONRPCResponse)
			if !ok {
				b.Fatalf("resources/read %s was refused", uri)
			}
			res, ok := resp.Result.(mcpgo.ReadResourceResult)
			if !ok || len(res.Contents) != 1 {
				b.Fatalf("resources/read %s answered %T", uri, resp.Result)
			}
			return len(res.Contents[0].(mcpgo.TextResourceContents).Text)
		}
		b.Run(uri, func(b *testing.B) {
			b.SetBytes(int64(read()))
			b.ReportAllocs()
			for b.Loop() {
				read()
			}
		})
	}
}
