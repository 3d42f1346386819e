// Package fts is lore's index, the storage half of memory's machinery: one
// SQLite file (WAL mode) in the vault's git directory, with the schema
// applied by embedded, numbered migrations; incremental indexing and the
// freshness check; the change logs that let several processes share the
// file; the Drafts' overlay rows; the vectors; and the upkeep of the
// in-memory copies of the postings (package fts/internal/memindex) and of
// the vectors' sign bits (package fts/internal/signbits). It must not write
// the vault: the index is derived data, and an index lore cannot use
// (another format, damaged) is set aside and built anew from the notes; one
// that cannot be written is read as it is.
//
// What it offers the retrieval pipeline (package retrieve) are lookups
// (lookups.go: units by exact name, by BM25 over tokens, by vector, by id
// or key, and the link graph around them, each within one project's
// Effective Memory) and records (records.go: the retrieval runs and
// activation states the pipeline writes back). Ranking itself lives in
// package retrieve; the BM25 scores are the index's, because FTS5 computes
// them in SQL and the in-memory copy must give exactly the same ones.
//
// Tokens come from package tokenize, the same for notes and queries; the
// index format (format.go) names its rules with the schema.
//
// Where the pieces are: index.go (open), refresh.go (incremental
// indexing), write.go (a batch's rows), digest.go (freshness without
// reading every row), overlay.go (the Drafts' rows), writegate.go (writers
// take turns),
// lookups.go and records.go (what retrieve reads and writes), rules.go.
// The index's own methods are few: its embedding side is Vectors()
// (vectors.go), its in-memory side Resident(), and what ranking and the
// edges read goes through Lookups() and Records(). The lexical stage has
// two engines behind one interface (engine.go): FTS5 in SQL, and the
// in-memory copy of its scorer (package fts/internal/memindex, kept
// current by resident.go and coldcopy.go; memvec.go with package
// fts/internal/signbits for the vectors' sign bits), held to the same
// scores by a test.
//
// Each decision, with the figures it was made on, is in docs/decisions:
// query-or-and-column-weights.md,
// in-memory-copies.md, index-writes.md, overlay-under-the-write-lock.md,
// freshness-digest.md, writers-gate.md, effective-memory.md,
// vectors-per-text.md and vectors-across-formats.md (carryover.go).
package fts
