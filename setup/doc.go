// Package setup writes lore into an agent client's own files (lore setup
// claude|codex): the MCP server and the hooks (package hook), merged with
// what is there. It never drops or reorders a user's other servers, hooks
// or settings: JSON is edited in place with sjson (keys keep their order,
// the rest of the file its bytes), read with gjson, and TOML is read with
// go-toml and changed only by adding or removing lore's own marked lines,
// so comments survive. Each change is planned first (Plan), shown as a diff
// (Change.Diff), and written with a backup of the file before it (Apply);
// running it again changes nothing, and --remove takes out exactly what it
// added: the hooks whose command is lore's hook command for that client,
// the server named lore whose command is lore, the marked TOML lines.
//
// The files, by client and scope (the clients' own documentation:
// https://code.claude.com/docs/en/settings, https://code.claude.com/docs/en/mcp,
// https://code.claude.com/docs/en/hooks; https://developers.openai.com/codex/hooks,
// https://developers.openai.com/codex/mcp):
//
//	claude project  .mcp.json (mcpServers.lore), .claude/settings.json (hooks)
//	claude user     ~/.claude.json (mcpServers.lore), ~/.claude/settings.json (hooks)
//	codex project   .codex/config.toml ([mcp_servers.lore], [features]), .codex/hooks.json
//	codex user      ~/.codex/config.toml, ~/.codex/hooks.json
package setup
