package fts

// IndexFormat names the term-making rules (package tokenize), the schema, and what the
// index derives from a note. An index file of another format is rebuilt from
// the vault (see OpenFile), so old and new terms never mix; only its vectors
// may be carried over, by the name of their input (carryover.go).
// lore-26: a rule note whose frontmatter cannot be read is indexed with an
// unreadable rule, on which the guard fails closed.
const IndexFormat = "lore-26"
