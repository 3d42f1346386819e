// Package tokenize makes the tokens that notes are indexed by and queries
// look up: one set of rules for both, in Go, so the FTS5 table (package fts,
// whose ascii tokenizer takes the tokens as they are), the in-memory copy of
// its postings, and the ranking rules of package retrieve that compare a
// query's words with a section's all hold the very same tokens.
//
// Words are lower-cased; code identifiers are split on '_', '-' and
// camelCase and also kept joined ("parseConfigFile" → parse, config, file,
// parseconfigfile), paths on '/', '.' and ':'; an acronym's plural gives the
// acronym ("PDFs" → pdf); runs of Han and kana become overlapping bigrams;
// diacritics are folded and English words of three or more letters stemmed
// with Snowball's English (Porter2) stemmer (stem.go); a token is at most
// 255 bytes. Text gives a text's tokens as the index stores them (an
// English stop word once per text), QueryTerms a query's distinct terms
// (stop words and Chinese question phrasing left out: MaskPhrasing; a
// phrasal verb also as its noun), EachToken every token with whether it is
// a stop word. A Memo remembers the tokens of the terms a worker has seen.
//
// The package is pure Go and tests without cgo. A change to what any rule
// makes is a change of fts.IndexFormat: the index is rebuilt rather than
// mixing old tokens with new. The decision, with the figures it was made
// on, is docs/decisions/tokenizer.md (and stop-words-once.md).
package tokenize
