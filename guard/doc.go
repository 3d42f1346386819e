// Package guard holds code changes to the rules written in memory:
// deterministic checks, no language model, in about a millisecond.
//
// Rules come from published memory only: the vault's working tree (the org
// ref plus a person's own uncommitted edits), never a Draft. An agent's
// unreviewed proposal can neither add a rule nor switch one off by marking
// its note superseded; only a person's merge (or edit) does that. The index
// keeps each resource's rules (see vault.RuleSpec for the two written
// forms). Rules of superseded or deprecated resources do not apply, nor
// those under another project's projects/<name>/ folder. A rule that cannot
// be checked — a pattern that does not compile, a bad glob, a rule written
// wrong — is reported as broken by `lore guard` and `lore doctor`, never
// skipped silently; it blocks a commit only with --strict (a typo in a note
// should not stop every commit of a team, but nobody should miss it).
//
// guard reads its rules through vault.RuleReader (the index, package fts,
// keeps each resource's rules and implements it); it imports no index code.
//
// Decisions:
//
//   - Patterns are Go regular expressions (RE2: no backtracking, so no rule
//     can hang a commit), or literal text with literal: true. Body-form
//     rules ("- deny: SELECT * FROM") are literal unless written /regexp/,
//     because prose patterns are usually meant as text.
//   - deny is checked against added lines only: a rule written today does
//     not fail every commit that touches an old file. require is checked
//     against the whole content (after the change) of each touched file its
//     globs cover; deleted and binary files are skipped.
//   - Globs: one without "/" matches the file name in any folder ("*.sh"),
//     as in .gitignore; one with "/" is anchored at the repository root and
//     "**" spans folders. A rule without paths covers every file.
//   - Speed: each rule's regexp gets a required literal (regexp/syntax),
//     and each file's added lines a 64-Kbit set of 4-byte windows, so most
//     rules are ruled out without running a regexp or even a substring
//     search (BenchmarkCheck1000x200: a 1,000-line diff against 200 rules;
//     docs/BENCHMARKS.md, "Guard").
//   - Diffs come from the git CLI with fixed options (no colour, no external
//     diff, a/ b/ prefixes, renames, no context); ParseDiff also reads plain
//     `diff -u` output, CRLF, quoted paths and "\ No newline" markers, and
//     refuses combined merge diffs. File contents for require rules come
//     from the index (staged) or the revision, through one `git cat-file
//     --batch`.
//   - The pre-commit hook (Install) keeps an existing hook as
//     pre-commit.lore-chained and runs it first; Uninstall puts it back.
//     The hook calls the lore binary that installed it (or $LORE_BIN, or lore
//     on PATH). .pre-commit-hooks.yaml at the repository root serves the
//     pre-commit framework.
//   - Loadout: vision (tier L1), stack (tag stack) and invariants (tier L3,
//     or notes with rules), at most 300 tokens by lore's estimator; with a
//     diff, the notes whose rule globs cover the changed files come first.
package guard
