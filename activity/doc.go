// Package activity projects agents' own session logs on this machine into
// "user request → memory query → fragments delivered" (specs/004), for the
// workspaces bound to a vault. Each log format is a source, one file each
// (codex.go, claude.go, dsh.go): its home folder, environment variables and
// lore activity flag, where its files are, how its header and its records
// read. Adding a format is one such file, its entry in sources (source.go)
// and its sample writer in the contract test (source_test.go), which runs
// every source through the same checks. Three sources:
//
//   - Codex CLI rollouts, found recursively under <codex home>/sessions and
//     <codex home>/archived_sessions (an active copy wins over an archived
//     one; rollouts whose session_meta says they are a sub-agent's are
//     left out; titles come from <codex home>/session_index.jsonl).
//   - Claude Code transcripts, <claude home>/projects/<encoded cwd>/<id>.jsonl
//     (files under a subagents/ folder or named agent-*.jsonl, and records
//     marked isSidechain, are left out).
//   - DSH sessions, <dsh home>/sessions/<encoded workspace>/<id>/session.jsonl.zstd:
//     append-only, one zstd frame per record; every complete frame is read,
//     and a half-written last frame is left for the next read.
//
// Decisions:
//
//   - Session identity is (host, session_id). A session is listed only when
//     its workspace (cwd) is a bound workspace or inside one; the bindings
//     come from the user's bindings file (lore bind) plus the binding of the
//     directory lore runs in. A project filter covers all of the project's
//     workspaces; a workspace filter must match a binding, else the list is
//     empty.
//   - Listing reads only a bounded header of each log (64 KiB) and never a
//     whole session; a damaged header is skipped. Summaries are kept in an
//     in-memory snapshot (the last eight), and a cursor pages through one
//     snapshot; an unknown snapshot (another process) is rebuilt.
//   - Opening a session parses it whole (up to 256 MiB of log) and pages its
//     requests. Each human message starts a request; memory activations
//     until the next human message belong to it. A lore activation is a call
//     of lore's tool — the `memory` tool with op.activate, or the legacy
//     `activate` tool with a top-level query — on a server named lore (or
//     the legacy clumsies), in every shape the spec lists; other servers,
//     other tools and memory's load/store are ignored. Calls without a result
//     are "pending"; results without a call are dropped.
//   - run_id joins an activation to its retrieval run in the workspace's
//     vault, only when the run belongs to the workspace's project; a log
//     without run_id is joined only when (project, query) matches exactly one
//     run. total_us is shown only for a joined run. A fragment whose content
//     the tool result omitted (reuse) or cut is filled from the run's stored
//     copy of what was delivered.
//   - Nothing here writes: not the logs, not memory.
package activity
