// Package vault is lore's domain: a vault is a folder of Markdown notes (inside a
// git repository) with lore.yaml at its root. The package holds the folder —
// its walk, path safety, lore.yaml and the workspace binding — and the words
// a note is read into (Resource, Unit, Link, Frontmatter, RuleSpec, their ids,
// keys and hashes), and defines the one error type every edge maps. Reading
// a note's Markdown into those words is package markdown's job. It imports no
// SQLite, go-git or MCP code; adapters depend on it.
//
// It is also where the words of DESIGN.md live as types, so that the edges
// depend on the domain and not on the index: a resource as load returns it
// (Loaded), a search Hit, an Activation and its Fragments, the assembly
// Limits, a RecallHit, a rule-bearing RuleSource (memory.go, rules.go), a
// store Op and its StoreResult (operation.go), and the interfaces the edges
// hold (ports.go: Searcher, Loader, Lister, Activator, RuleReader,
// RunReader). Package fts implements those interfaces, package drafts
// carries out the operations; mcp, web, journal, guard and activity import
// neither fts nor SQLite. The package keeps its name: a vault of notes is
// what lore's domain is, and a second "memory" package beside it would
// split one vocabulary in two.
//
// Decisions recorded here:
//
//   - Identity. A resource's id is its frontmatter `id`, kept exactly as written
//     (mem_…, or historic ctx_/rul_/wfl_ prefixes). A file without an id gets a
//     derived id "path_" + the first 16 hex digits of sha256(vault-relative path).
//     It is stable while the file keeps its path, and the file is never rewritten
//     to hold it; renaming the file gives it a new derived id (it stays addressable
//     by its exact path). When two files claim the same frontmatter id, the one
//     with the lexically smaller path keeps it and the other is indexed under its
//     derived id and reported as a problem.
//   - Units. A note's sections become units (package markdown cuts them);
//     unit_key is <resource_id>/<heading-slug>/<n>/<chunk> (UnitKey), where n
//     counts earlier sections with the same slug.
//   - Paths are vault-relative, '/'-separated and NFC-normalized. Only .md files
//     are memory; dot-folders (.git, .obsidian, …) are skipped. Containment is
//     checked with internal/within and files are opened through os.Root, so "..",
//     absolute paths and symlinks out of the vault are refused.
//   - Bad files never stop indexing: a file markdown.Parse refuses is skipped,
//     and the index reports it as a problem; the others are indexed.
package vault
