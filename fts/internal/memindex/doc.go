// Package memindex is the in-memory copy of the index's lexical side: a
// copy of the FTS table's tokens that a long-running process (lore mcp,
// lore serve) keeps to score BM25 in Go, and the unit each vector belongs
// to. Package fts fills it from the index, keeps it current and asks it;
// nothing else imports it.
//
// FTS5's bm25() costs about a microsecond for every row an OR query matches
// (it reads each row's size and position lists), and agents' task
// descriptions match tens of thousands of units in a large vault. Here a
// query walks the postings of its few tokens and adds up scores in an
// array (retrieve's BenchmarkSearchInMemory and BenchmarkInMemoryCopyOf, in
// docs/BENCHMARKS.md).
//
// The ranking is FTS5's, exactly: the same tokens (made by package
// tokenize and given to FTS5's ascii tokenizer, which keeps them as they
// are), the same statistics (rows, tokens, rows holding a phrase, every
// row's length, Draft rows included), bm25's formula with its k1 = 1.2 and
// b = 0.75 evaluated in the same order in float64 (the logarithm is C's, as
// SQLite's: bm25log.go), and ties by rowid. fts's TestMemIndexMatchesFTS5
// holds the two to the same scores.
//
// Where the pieces are: index.go (docs, adding, removing, compacting,
// scoring, visibility), postings.go (packed postings), vocab.go (the
// tokens, frozen and added), doctable.go (docs by uid and by vector),
// spill.go (frozen parts mapped from unnamed files), runbuild.go (a build
// that gathers postings in runs on disk), copyfile.go (the saved copy's
// file format, which a new process maps instead of building).
package memindex
