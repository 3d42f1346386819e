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
// What lore does at each event is cmd/lore's (lore hook); this package is
// the wire, the commands a pre-tool hook checks (commit.go) and the
// per-session activation state (sessions.go).
package hook
