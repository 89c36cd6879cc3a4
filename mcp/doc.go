// Package mcp is the MCP front end of the plane: tools, resources and
// prompts over stdio and streamable HTTP, every one answered through the
// same dispatcher as HTTP (internal/action/dispatch), so validation, identity,
// gating and records are HTTP's.
//
// The tools are the dispatcher's registered actions, each listed with its
// contract description, request and response schemas and annotations as
// the contract defines them (ActionTool). The resources are the catalog
// entries list_context lists to the caller, read through read_context,
// and templates for documentation pages and outlines, read through
// read_documentation (URIs in URI), each answer taken typed from the
// dispatcher (dispatch.Chunk, dispatch.CatalogPage). The prompts are the
// skills among the contract set's entries of the served texts (Texts),
// listed to the callers list_context lists them to. The tools'
// descriptions, the prompts' and the instructions follow the served
// texts, which follow the served version.
// Server wires them into one mcp-go server; HTTPHandler and ServeStdio
// are its two transports.
package mcp
