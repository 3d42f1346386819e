package mcp

// Descriptions and input schemas of the vault and journal profiles: the
// specs' names, parameters and defaults (specs/003, specs/002), with
// descriptions that say when to call each tool. The snapshots in testdata
// keep every change to them reviewed.

const loadoutDesc = `Fetch the project's architectural blueprint from the vault in under 300 tokens: vision (tier L1 notes), stack, core invariants (tier L3 notes and the decisions that carry guard rules). Call this at the start of any new coding session or before planning major changes. With diff: true (the working tree's changes) or branch (changes since that base), the decisions whose rules cover the changed files come first.`

const loadoutSchema = `{
  "type": "object",
  "properties": {
    "project_name": {"type": "string", "description": "Optional; the server is bound to one project from its working directory, and another name is refused."},
    "diff": {"type": "boolean", "description": "Inspect the working tree's git changes and put the module-relevant decisions first."},
    "branch": {"type": "string", "description": "Optional base branch for comparison (e.g. 'main')."}
  }
}`

const recallDesc = `Search the project's vault — past decisions, designs, how-tos, incidents, notes — with the same hybrid retrieval as lore's activate (BM25 + vectors + one-hop links). Call it first whenever the task needs domain knowledge or a past decision. Default output is one compact line per note: !μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>; full: true returns the whole Markdown of each note.`

const recallSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Search query keywords or technical question."},
    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of notes to return (default: 5; at most 100 are ranked and returned)."},
    "full": {"type": "boolean", "description": "When true, returns whole Markdown notes; when false (default), compact lines."},
    "mode": {"type": "string", "enum": ["hybrid", "bm25", "vector"], "description": "Search mode (default: hybrid)."}
  },
  "required": ["query"]
}`

const guardDesc = `Audit code changes against the rules written in the vault's decisions (deny/require patterns with path globs), deterministically in milliseconds. Call it before committing and after implementing a feature. Checks the given unified diff, else whole files, else the changes since branch, else the working tree's uncommitted changes in repo_path. Reports each violation with rule, file:line, text, the fix and the note that holds the rule; ok is false when an error rule (with strict, any rule) is violated.`

const guardSchema = `{
  "type": "object",
  "properties": {
    "diff": {"type": "string", "description": "Optional unified diff text to audit. If omitted, the working tree changes of repo_path are inspected."},
    "project_name": {"type": "string", "description": "Optional; must be the bound project."},
    "repo_path": {"type": "string", "description": "Optional path to the git repository to audit (default: the server's working directory)."},
    "branch": {"type": "string", "description": "Optional base branch/revision: audit HEAD's changes since it."},
    "strict": {"type": "boolean", "description": "Treat warnings and broken rules as blocking."},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Optional file paths to audit whole instead of a diff."}
  }
}`

const flushDesc = `Write a technical decision, verified fix, ADR or milestone into the vault as a new note, following the vault's folder conventions (category decision → decisions/ with the next number, log → logs/, concept/card → concepts/, skill → skills/, or lore.yaml folders:), with generated frontmatter and [[wikilinks]] to related notes. supersedes marks the old notes status: superseded in the same Draft. The note is a Draft that a person reviews and merges; call it after a task settles something the next task must know.`

const flushSchema = `{
  "type": "object",
  "properties": {
    "title": {"type": "string", "minLength": 1, "description": "Title of the decision or log note."},
    "content": {"type": "string", "minLength": 1, "description": "Detailed Markdown content."},
    "summary": {"type": "string", "description": "One-line summary; becomes the note's description."},
    "category": {"type": "string", "description": "decision, log, concept (alias card), skill, or a custom folder name (default: log)."},
    "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."},
    "related_notes": {"type": "array", "items": {"type": "string"}, "description": "Related notes, linked with [[wikilinks]]."},
    "supersedes": {
      "description": "Notes (id, path or title) this note supersedes; they are marked status: superseded.",
      "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    }
  },
  "required": ["title", "content"]
}`

const distillDesc = `Turn an execution trace, compiler error or debugging session (raw_trace, or an offloaded node_id) into a reusable troubleshooting skill, deterministically: the error signature, the commands in the order that led to the fix, and the final state. target default writes a vault note (a Draft for review); hermes and omp write that agent's SKILL.md. dry_run returns the preview without writing. Call it after a hard-won fix.`

const distillSchema = `{
  "type": "object",
  "properties": {
    "raw_trace": {"type": "string", "description": "Raw execution log, error stack trace, or terminal output."},
    "node_id": {"type": "string", "description": "An offloaded node id from offload_context (e.g. node_1a2b3c4d) instead of raw_trace."},
    "title": {"type": "string", "description": "Skill title (inferred from the error when omitted)."},
    "context_hint": {"type": "string", "description": "What happened, in a sentence or two."},
    "category": {"type": "string", "description": "Target category (default: skill)."},
    "tags": {"type": "array", "items": {"type": "string"}},
    "related_notes": {"type": "array", "items": {"type": "string"}},
    "dry_run": {"type": "boolean", "description": "Return the preview without writing anything."},
    "target": {"type": "string", "enum": ["default", "hermes", "omp"], "description": "default (vault note), hermes (Hermes Agent skill) or omp (Oh My Pi skill)."}
  }
}`

const offloadDesc = `Move verbose terminal output — build logs, test traces, error dumps over 30 lines — out of your context: it is stored locally (never committed) and you get a Mermaid state diagram of at most 15 lines naming the phases and first errors, plus a node_id for inspect_log_node. Call it instead of pasting long output into the conversation.`

const offloadSchema = `{
  "type": "object",
  "properties": {
    "content": {"type": "string", "minLength": 1, "description": "The raw terminal output or stack trace to store."},
    "task_id": {"type": "string", "description": "Optional task identifier shown with the summary."}
  },
  "required": ["content"]
}`

const inspectDesc = `Read back the raw text of an offloaded log by its node_id (from offload_context or gc_session_context), whole or a line range. Call it when you need the exact lines of an error.`

const inspectSchema = `{
  "type": "object",
  "properties": {
    "node_id": {"type": "string", "minLength": 1, "description": "The node id, e.g. node_1a2b3c4d."},
    "start_line": {"type": "integer", "minimum": 1, "description": "Optional first line (1-based)."},
    "end_line": {"type": "integer", "minimum": 1, "description": "Optional last line (inclusive)."}
  },
  "required": ["node_id"]
}`

const gcDesc = `Garbage-collect a long agent trajectory: tool outputs longer than threshold lines outside the last hot_window turns are offloaded and replaced by one-line references, repeated error dumps collapse into references to the first. Returns the folded trajectory, tokens before and after, the reduction (TRR), and where it sits in context_window against the 15–60% smart zone.`

const gcSchema = `{
  "type": "object",
  "properties": {
    "trajectory_json": {"type": "string", "minLength": 1, "description": "JSON: {\"session_id\": \"…\", \"turns\": [{\"role\": \"…\", \"content\": \"…\"}, …]}."},
    "threshold": {"type": "integer", "minimum": 1, "description": "Line threshold before a tool output is folded (default: 20)."},
    "hot_window": {"type": "integer", "minimum": 0, "description": "Recent turns kept untouched (default: 5)."},
    "context_window": {"type": "integer", "minimum": 1000, "description": "Context window in tokens for the smart-zone figure (default: 128000)."}
  },
  "required": ["trajectory_json"]
}`

const nowDesc = `Current time, local and UTC (RFC 3339, to the second, with the local offset). Call it before answering about the current date or time, or before recording something relative ("next Monday"), unless the conversation already states the current time.`

const kwListDesc = `List the keywords already used in a namespace ({userId}/{projectId}), shortest first. Call it before remember or recall when unsure which keywords exist, and reuse them; if it is empty, look at keywords_list_global.`

const kwListSchema = `{
  "type": "object",
  "properties": {"namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."}},
  "required": ["namespace"],
  "additionalProperties": false
}`

const kwGlobalDesc = `List keywords across every namespace, with how many namespaces and memories use each. Use it as a vocabulary when a namespace has none yet.`

const rememberDesc = `Record a memory: 3–8 short keywords, a slice (1–3 objective sentences) and a diary (context, reasons, what follows), optionally occurred_at, importance 1–5 and source. Call it when the user shares lasting preferences, decisions, milestones or plans ("remind me on …"), and at each key point of a task. Memories become notes under journal/<userId>/<projectId>/ in the vault, readable by people. Avoid secrets.`

const rememberSchema = `{
  "type": "object",
  "properties": {
    "namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."},
    "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Short keywords; trimmed, lower-cased, de-duplicated; time-like ones are ignored, a full date adds its year/month/day keywords."},
    "slice": {"type": "string", "minLength": 1, "description": "The important content."},
    "diary": {"type": "string", "minLength": 1, "description": "Context, reasons, consequences."},
    "occurred_at": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD."},
    "importance": {"type": "integer", "minimum": 1, "maximum": 5},
    "source": {"type": "string"}
  },
  "required": ["namespace", "keywords", "slice", "diary"],
  "additionalProperties": false
}`

const recallJDesc = `Recall memories of a namespace by keywords and time range, best first (matched keywords, importance, recency); matched_keywords says why each matched. Call it before answering about past events, preferences, project history or earlier agreements.`

const recallJSchema = `{
  "type": "object",
  "properties": {
    "namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."},
    "keywords": {"type": "array", "items": {"type": "string"}},
    "start": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD."},
    "end": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD (a date covers the whole day)."},
    "query": {"type": "string", "description": "Text to find in slice, diary or source; may hold time>=…, time<=…, time=a..b."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Default 20, at most 100."},
    "include_diary": {"type": "boolean", "description": "Return diaries too (default false)."}
  },
  "required": ["namespace"],
  "additionalProperties": false
}`
