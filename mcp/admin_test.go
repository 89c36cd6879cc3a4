package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/action/actions"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/mcp"
)

// TestAdminActionsAreNoTools: the operator actions, registered on the
// dispatcher before the MCP front end is built over it, become no tool,
// so tools/list never offers one and tools/call cannot reach one; the
// reading actions stay tools.
func TestAdminActionsAreNoTools(t *testing.T) {
	t.Parallel()
	d, err := plane.New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	op := &actions.Operator{Versions: sample}
	for _, a := range []*dispatch.Action{actions.AdminStatus(nil, op), actions.AdminActivate(nil, op)} {
		if err := d.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	s, err := mcp.New(d, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range s.MCPServer().ListTools() {
		names = append(names, name)
		if strings.HasPrefix(name, "admin_") {
			t.Errorf("the MCP front end made a tool of %s", name)
		}
	}
	if len(names) != 6 {
		t.Errorf("tools %v, want the six reading actions", names)
	}
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "admin_activate", map[string]any{"version": "x"}
	if res, err := c.CallTool(ctx, req); err == nil && !res.IsError {
		t.Errorf("tools/call admin_activate was answered: %+v", res.Content)
	}
}
