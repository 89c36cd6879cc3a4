// Package mcp will be the MCP front end of the plane: tools, resources and
// prompts over stdio and streamable HTTP, answered through the same
// dispatcher as HTTP (internal/dispatch). It holds no code yet; the MCP
// issue builds it.
package mcp
