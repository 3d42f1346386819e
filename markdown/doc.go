// Package markdown reads one note: Obsidian-flavoured Markdown with a YAML
// frontmatter block, into the vault's words (vault.Resource with its Units,
// Links and RuleSpecs). It is the only package that parses Markdown for the
// index; the web UI renders with goldmark on its own.
//
// What it reads: the frontmatter (frontmatter.go; a type error in one key
// keeps the others), the heading sections and their links with goldmark
// (markdown.go), within the bounds that keep goldmark linear on hostile
// input (parsebound.go), the units cut from the sections (units.go), the
// guard rules a note writes (rules.go), what an embed shows (embeds.go) and
// what a reader of the note sees of its text (visible.go: comments hidden,
// pictures and link destinations dropped). Parse (parse.go) puts these
// together and refuses what is not text (CheckContent).
//
// Decisions recorded here:
//
//   - Units. Every top-level heading starts a section; text before the first
//     heading is the section "_". A section whose text beyond the heading line is
//     empty is not a unit (it would deliver only a title). The key is
//     vault.UnitKey's, so adding or editing one section leaves the keys and
//     hashes of the others as they were. A section over vault.MaxUnitTokens is
//     split at paragraph boundaries, then lines, then runes. A unit's content is
//     the exact byte range of the file, and its content_hash is sha256 over
//     those bytes.
//   - Bad files never stop indexing: invalid frontmatter leaves the file
//     searchable as text with the problem recorded (Resource.Problem); binary,
//     non-UTF-8, conflicted and oversize files are refused with an error that
//     says which, and a panic in the parser is one file's error, not the
//     process's.
package markdown
