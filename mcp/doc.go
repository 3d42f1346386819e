// Package mcp is lore's MCP server (mark3labs/mcp-go over stdio, or the
// Streamable HTTP transport on loopback, http.go). A profile chooses the
// tools an agent sees, all on the same vault, index and Drafts: "memory",
// the default, is the single `memory` tool of the memory contract (tagged
// operations activate, load and store over the Effective Memory of the
// project the server was bound to at start-up); "vault" is the eight tools
// of the vault contract and "sidecar" its five; "journal" is the five tools
// of the journal contract. Tool names, parameters and defaults are the
// contracts'; the snapshots in testdata keep every change to them reviewed.
//
// In the vault profile the text content is the format the contract gives
// (Markdown loadout, compact recall lines, the guard report, the Mermaid
// summary), and structuredContent holds the same result as data. A guard
// violation is a result (ok: false), not a tool error. Journal results are
// {"data": …} as the journal contract shows them.
//
// Input is decoded strictly into typed structs; every failure is a tool
// result with isError and the contract's code, and a panic in a call
// answers that call with an internal error (its stack goes to the log).
// Nothing but protocol goes to stdout. In a workspace bound to no vault the
// server still answers initialize and tools/list, and every call with what
// to run (NewUnavailable).
//
// Each tool is one file, tool_<name>.go: its description, input schema,
// input type and handler, as a toolDef; tools.go's profiles is the one
// place tools are registered, and the handler, schema and snapshot tests
// loop over it. Adding a tool is one new file, its entry in profiles, its
// calls in handlers_test.go and its snapshot (go test ./mcp -update).
//
// Each decision is in docs/decisions, in the mcp-*.md files: strict input,
// results, HTTP, protocol versions, stdout and limits, guard_check's
// confinement, freshness.
package mcp
