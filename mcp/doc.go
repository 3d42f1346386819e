// Package mcp is lore's MCP server (mark3labs/mcp-go over stdio, or the
// Streamable HTTP transport on loopback, http.go). A profile
// chooses the tools an agent sees, all on the same vault, index and Drafts:
// "memory", the default, is the single `memory` tool of specs/000 (tagged
// operations activate, load and store over the Effective Memory of the
// project the server was bound to at start-up); "vault" is the eight tools
// of specs/003 and "sidecar" its five; "journal" is the five tools of
// specs/002. Tool names, parameters and defaults are the specs'; the
// snapshots in testdata keep every change to them reviewed.
//
// In the vault profile the text content is the format the contract gives
// (Markdown loadout, compact recall lines, the guard report, the Mermaid
// summary), and structuredContent holds the same result as data. A guard
// violation is a result (ok: false), not a tool error. project_name, where
// the vault contract has it, must name the bound project. Journal results
// are {"data": …} as specs/002 shows them.
//
// Decisions:
//
//   - Input is decoded strictly into typed structs (vault.DecodeStrict):
//     exact, case-sensitive field names, no unknown or repeated fields, no
//     null anywhere, and required fields checked with errors that name them.
//     Input mistakes are tool results with isError: true and the code
//     invalid_input, like every domain failure; only malformed protocol
//     messages are JSON-RPC errors.
//   - Every tool result carries the domain object in structuredContent and
//     the same JSON as its text content, and always says isError (false on
//     success: mcp-go omits a false isError, so the stdout writer adds it,
//     and the HTTP transport's writer likewise). A failure's object is
//     {"error": {"code", "message"}}. activate is the exception to "the same
//     JSON": its text is vault.Activation.Text, a rendering for agents in
//     which the notes' own text is most of the tokens (render.go).
//   - HTTP (lore mcp --http ADDR, http.go): one process serves every agent
//     window of a vault; each session is bound by its URL to a project and
//     a profile (one mcp-go server per pair, made on first use, all on the
//     same index and Draft store). A request must name a loopback Host and
//     no foreign Origin (DNS rebinding, pages in a browser), carry the
//     bearer token kept in <data dir>/mcp-http.token (0600, made once, so
//     client configurations survive restarts), and hold a message within
//     the stdio limits (size, nesting, id length); all are refused before
//     any MCP handling. The listener is loopback or a Unix socket (0600)
//     only. <data dir>/mcp-http.json says where a running server listens.
//     One server serves one vault: a session cannot choose another.
//   - The server speaks the initialize handshake and answers it with the
//     version the client asked for when that is one it knows (2025-11-25,
//     2025-06-18, 2025-03-26, 2024-11-05), else 2025-11-25. A
//     `server/discover` probe (the stateless protocol of 2026-07-28, which
//     lore does not serve over stdio yet) gets a JSON-RPC "method not found"
//     error, so newer clients fall back to initialize.
//   - Nothing but protocol goes to stdout; logs go to stderr. The server
//     exits when stdin closes.
//   - Every request is answered, at bounded cost: a message over 64 MiB, one
//     nested deeper than 64 levels, or one whose id is longer than 256 bytes
//     gets a JSON-RPC error (-32600) before it is decoded, and an id is never
//     echoed at any length (stdio.go).
//   - guard_check reads only the bound workspace's repository: repo_path must
//     resolve (symlinks followed) inside it, files are relative paths read
//     through os.Root, only regular files of at most 8 MiB are read (a FIFO
//     or a device is refused, never waited on), and a violation quotes only
//     its line; at most 200 violations are listed, the rest counted.
//   - Freshness: the index follows the vault on every call (as everywhere);
//     the server also watches the vault with fsnotify so that check costs a
//     look at the changed paths only, and embeds new units in the
//     background, off the query path.
package mcp
