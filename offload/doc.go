// Package offload keeps long logs out of an agent's context (specs/003:
// offload_context, inspect_log_node, gc_session_context) and distills
// debugging traces into skill notes (distill_session_skill). Everything is
// deterministic: no model runs.
//
// Decisions:
//
//   - Offloaded text is stored content-addressed under the vault's local
//     lore folder (<gitdir>/lore/offload/node_<sha256[:8]>.log; derived data,
//     never committed). The same text always gets the same node id; if two
//     different texts ever share the short id, the later one gets a longer
//     one. Text of 30 lines or fewer is not offloaded (it is returned as is);
//     at most MaxText (8 MiB) is accepted.
//   - The summary is a Mermaid stateDiagram-v2 of at most 15 lines: the
//     phases recognized in order (dependencies, compilation, tests, lint,
//     deploy, run) and the first errors (lines that name an error, panic,
//     failure or exception), ending in the node that holds the text. The
//     reduction figure compares lore's token estimate of the text with that
//     of the summary.
//   - gc_session_context folds a trajectory {"session_id", "turns": [...]}:
//     in every turn outside the last hot_window, a string field content,
//     output or tool_output longer than threshold lines is offloaded and
//     replaced by a one-line reference; a repeat of an earlier folded text
//     becomes a reference to the first. Other fields are kept as they are.
//     The result reports tokens before and after, TRR (1 − after/before) and
//     where the folded trajectory sits in context_window against the
//     15–60 % smart zone.
//   - distill_session_skill reads a trace (or an offloaded node): the error
//     signature (the first line naming an error), the commands in order
//     (shell prompts "$ ", "> ", "❯ ", "PS …>", or "+ " from set -x; not
//     "# ", which compilers print before a package's errors), and the
//     final state (the last lines, preferring a line that reports success).
//     target default writes a vault note under the skill category's folder
//     as a Draft; hermes writes $HERMES_HOME/skills/<category>/<name>/SKILL.md
//     (HERMES_HOME defaults to ~/.hermes), and omp writes
//     ~/.omp/agent/skills/<name>/SKILL.md (PI_CODING_AGENT_DIR overrides the
//     agent folder): both in the Agent Skills format those projects document
//     (YAML frontmatter with name — lower-case letters, digits and hyphens,
//     at most 64 — and description; Hermes' own version and
//     metadata.hermes.tags), one skill per folder. dry_run writes nothing.
package offload
