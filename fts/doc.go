// Package fts is lore's local index: one SQLite file (WAL mode) in the vault's
// git directory, with the schema applied by embedded, numbered migrations. It
// owns incremental indexing, the lexical stage of retrieval (FTS5 with BM25) and
// load; the vector stage, fusion and activation state slot in beside them. It
// must not write the vault: the index is derived data and `lore index --rebuild`
// recreates it from the notes.
//
// Decisions recorded here:
//
//   - Terms are made in Go (tokenize.go) and stored space-separated in a
//     contentless FTS5 table (porter unicode61), so the same rules apply to
//     notes and queries: words are lower-cased; code identifiers are split on
//     '_', '-' and camelCase and also kept joined ("parseConfigFile" → parse,
//     config, file, parseconfigfile), and paths on '/', '.' and ':'; runs of Han
//     and kana become overlapping bigrams (a lone character is kept and is
//     queried as a prefix). TestTokenizerChoice measures this against FTS5's
//     unicode61 and trigram tokenizers on testdata/cjk: bigrams find 20 of 20
//     fixture queries first, unicode61 1, trigram 3 (trigram cannot match a
//     two-character word at all). A segmenter such as gse was not needed and
//     would add a dictionary to the binary.
//   - Queries are an OR of their distinct terms (English stop words dropped
//     unless nothing else is left, at most 64 terms, cut at 2 KiB), ranked by
//     bm25 with column weights path 8, title 6, description/tags/keywords 3,
//     heading path 4, body 1. On SciFact this gives nDCG@10 0.698 (BEIR's BM25:
//     0.665; Anserini's flat BM25: 0.679). An AND of terms would answer almost
//     nothing for natural-language task descriptions.
//   - The exact stage puts a resource whose id, path or title (case-insensitive)
//     is the whole query first.
//   - Freshness: every Search, Load and Stats first calls Refresh, which walks
//     the vault (folders in parallel, one fstatat per file), reads and hashes
//     only files whose size or nanosecond mtime changed, and re-indexes only
//     those whose bytes changed. A file edited to the same size within the same
//     mtime tick is caught by `lore index --rebuild` (git has the same limit).
//     A generation counter in the meta table tells a process when another one
//     changed the index, so several processes can share the file.
//   - Writes go in batches of 1,000 files per immediate transaction, so readers
//     (WAL) are never blocked for long; Go parses the next batch while SQLite
//     writes the current one.
//   - Effective Memory: with a project set, resources under projects/<other>/
//     are invisible to Search and Load; without one, everything is visible.
package fts
