// Package mcp will be the MCP front end of the plane: tools, resources and
// prompts over stdio and streamable HTTP, answered through the same
// dispatcher as HTTP (internal/dispatch). Its tools are the dispatcher's
// registered actions, each listed with the description, schemas and
// annotations its definition carries. It holds no code yet; the MCP issue
// builds it.
package mcp
