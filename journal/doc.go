// Package journal implements the keyword/time memory contract of
// specs/002 (now, keywords_list, keywords_list_global, remember, recall) on
// top of the vault: each memory is a small Markdown note under
// journal/<userId>/<projectId>/ with its fields in frontmatter, written
// through drafts.Store.Remember: a new note inside the namespace's own
// folder, published at once as an append-only diary (lore.yaml
// journal.auto_publish: false leaves it a Draft for review). remember never
// changes, renames or deletes a note. Journal notes are the journal's own:
// they appear in no project's memory, vault-profile or CLI results (the
// index leaves journal/ out of them), and their diary sections are never
// indexed, so a diary is returned only by recall with include_diary.
//
// It reads through vault.Lister (the index implements it) and writes
// through drafts; both the MCP profile and the `lore journal` CLI use it.
//
// Rules, as the spec gives them: the namespace is exactly
// {userId}/{projectId} (two non-empty segments; no "." or ".." segments, no
// leading dot — a dot-folder would be invisible to the index — no
// backslashes or control characters, at most 64 bytes each). Keywords are
// trimmed, lower-cased and de-duplicated; time-like keywords (dates, times,
// "today", "昨天", …) are dropped, and a full date ("2025-07-12",
// "2025年7月12日") is replaced by its derived keywords 2025年, 7月, 12日, so
// that short keywords match it. At least one keyword must remain.
// occurred_at and start/end are RFC 3339 or YYYY-MM-DD (an end date covers
// its whole day); importance is 1–5; limit defaults to 20 and is at most
// 100. recall's query is a case-insensitive substring of slice, diary or
// source after its time expressions (time>=X, time<=X, time=a..b) are taken
// out. Results are ordered by matched keywords, then importance, then time
// (newest first); keyword lists by length, then alphabetically (the
// global one by item count first).
package journal
