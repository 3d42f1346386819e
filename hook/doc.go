// Package hook is lore in the agents' own hooks: the JSON Claude Code and
// the Codex CLI send a hook command on stdin at fixed points of a session,
// and the JSON they read back. Both clients speak the same shape (Codex
// adopted Claude Code's): every input carries session_id, cwd,
// hook_event_name and transcript_path; SessionStart adds source (startup,
// resume, clear, compact), UserPromptSubmit the prompt, PreToolUse the
// tool_name and tool_input (for Bash, its command). Context goes back as
// {"hookSpecificOutput": {"hookEventName": E, "additionalContext": T}}, and
// a refused tool call as PreToolUse's permissionDecision "deny" with its
// reason. Unknown fields are ignored: the clients add fields between
// versions.
//
// The references, read for this: Claude Code's hooks reference
// (https://code.claude.com/docs/en/hooks) and Codex's hooks documentation
// (https://developers.openai.com/codex/hooks) with its generated schemas
// (codex-rs/hooks/schema/generated in github.com/openai/codex).
//
// What lore does at each event is the Responder's (respond.go): the
// session start's loadout, the prompt's reviewed memory within its budget,
// the pre-tool check of a commit, each within hooks.deadline_ms, failures
// logged and never in the person's way. What it needs of the rest of lore
// (the binding, activate, the loadout, the guard's rules) is a Backend the
// program wires: cmd/lore's lore hook, with the index and a warm server.
// Beside it are the wire (wire.go), the commands a pre-tool hook checks
// (commit.go), the text a prompt gets and how lore activity reads it back
// (memory.go), and the per-session activation state (sessions.go).
package hook
