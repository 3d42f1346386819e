// Package fts is lore's index, the storage half of memory's machinery: one
// SQLite file (WAL mode) in the vault's git directory, with the schema applied
// by embedded, numbered migrations; the tokenizer that notes and queries
// share; incremental indexing and the freshness check; the change logs that
// let several processes share the file; the Drafts' overlay rows; the
// vectors; and the in-memory copies of the postings and of the vectors'
// sign bits. It must not write the vault: the index is derived data and `lore
// index --rebuild` recreates it from the notes.
//
// What it offers the retrieval pipeline (package retrieve) are lookups
// (lookups.go: units by exact name, by BM25 over tokens, by vector, by id or
// key, and the link graph around them, each within one project's Effective
// Memory) and records (records.go: the retrieval runs and activation states
// that pipeline writes back). Ranking itself — fusion, link bonus, rerank,
// status, section order, assembly, deltas — lives in package retrieve; the
// BM25 scores are the index's, because FTS5 computes them in SQL and the
// in-memory copy must give exactly the same ones.
//
// Decisions recorded here:
//
//   - Tokens are made in Go (tokenize.go, stem.go) and stored space-separated
//     in a contentless FTS5 table whose ascii tokenizer keeps each as it is,
//     so the same rules apply to notes and queries and an in-memory copy of
//     the postings holds exactly FTS5's tokens: words are lower-cased; code
//     identifiers are split on '_', '-' and camelCase and also kept joined
//     ("parseConfigFile" → parse, config, file, parseconfigfile), and paths
//     on '/', '.' and ':'; runs of Han and kana become overlapping bigrams (a
//     lone character is kept and is queried as a prefix); diacritics are
//     folded ("café" → "cafe") and English words of three or more letters are
//     stemmed by Snowball's English (Porter2) stemmer as the Snowball
//     compiler generates it, github.com/blevesearch/snowballstem ("retrying"
//     → "retri"; the same stems as github.com/kljensen/snowball, used before
//     and kept to test that), memoized per goroutine. A token is at
//     most 255 bytes. TestTokenizerChoice measures the CJK rule against FTS5's
//     unicode61 and trigram tokenizers on testdata/cjk: bigrams find 20 of 20
//     fixture queries first, unicode61 1, trigram 3 (trigram cannot match a
//     two-character word at all). A segmenter such as gse was not needed and
//     would add a dictionary to the binary.
//   - An English stop word's token goes into the index once per text (a
//     column of a unit), not at each occurrence (indexTokens): stop words are
//     40-45 % of English prose and their frequency tells nothing, so the FTS
//     table, its writing and the in-memory copy shrink by about a quarter;
//     a query of stop words alone still finds the texts holding them. On
//     SciFact nDCG@10 went from 0.7023 to 0.7035 (Recall@100 0.9276 to
//     0.9242) lexical, and from 0.7090 to 0.7060 hybrid: a small loss there,
//     kept for a cold index a fifth faster.
//   - Queries are an OR of their distinct tokens (English stop words dropped
//     unless nothing else is left, at most 64 tokens, cut at 2 KiB), ranked by
//     bm25 with column weights path 8, title 6, description/tags/keywords 3,
//     heading path 4, body 1. On SciFact this gives nDCG@10 0.704 (BEIR's BM25:
//     0.665; Anserini's flat BM25: 0.679; FTS5's porter stemmer instead of
//     Snowball gave 0.699). An AND of terms would answer almost nothing for
//     natural-language task descriptions.
//   - In memory (memindex.go, memvec.go): FTS5's bm25() costs about a
//     microsecond per row an OR query matches, and sqlite-vec's binary k-NN
//     ~20 ms over 60,000 vectors. Long-running processes (lore mcp, lore
//     eval, lore bench) call KeepInMemory: BM25 is then scored in Go from a
//     copy of the postings (exactly FTS5's scores and order; compared on
//     hundreds of queries by TestMemIndexMatchesFTS5) and the vector stage's
//     first pass scans sign bits held in memory (rescoring stays in SQL with
//     sqlite-vec's cosine). Both copies follow the index through unit_log and
//     vec_log, so other processes' writes are seen. One-shot commands use SQL
//     alone: building the copies takes seconds. Those that only query
//     (search, activate, load) map the index file (PRAGMA mmap_size,
//     connect.go): a first query reads pages it never read, and mapped that
//     is 2.0–4.4 ms for an activate's links query against 7.0–11.9 through
//     read(); whole commands on the 10,000-note benchmark vault, 31
//     alternating rounds on a slow machine: search p50 84.8 → 77.6 ms,
//     activate 132.3 → 120.3. Nothing else maps it: a rebuild that did
//     peaked at 495 MB of resident memory against 345, and a long-running
//     process would keep every page its unit reads touched. A first try
//     mapped every one-shot command and was reverted when
//     TestReliabilityManyWriters -reliability.long failed 3 of 6 runs with
//     operations answered "database is locked" after the 10 s busy
//     time-out: faster reads made more writers contend, and SQLite's busy
//     handler starved some of them. With the writers' gate (writegate.go)
//     it passed 4 of 4 with the mapping. The postings copy is packed
//     (postings.go, vocab.go): tokens frozen in sorted arrays, postings as
//     varint gaps in one arena, unit keys in another, so the collector has
//     little to mark. 10,000 notes (60,000 units) take 46 MB of heap (89 MB
//     before the packing), 100,000 notes (600,000 units) 320 MB (459 MB); a
//     100,000-note activate takes ~15–19 ms in memory against ~140 ms in SQL.
//     A long-running process then keeps the frozen part (tokens, their
//     postings, unit keys) in an unnamed file beside index.db, mapped
//     read-only (spill.go): a query reads its tokens' pages from the page
//     cache, and the kernel may take back the ones not read lately. With the
//     uid and embed-key maps replaced by open-addressed tables of doc
//     numbers (doctable.go: 52 → 8 MB), the 100,000-note copy's heap went
//     316 → 107 MB (BenchmarkInMemoryCopyOf), the server's resident memory
//     600 → 291 MB (scripts/bench/serve.py), with search and activate as fast.
//     Scoring reads doc lengths and liveness from one dense array (lens), and
//     asks visibility only of a doc that would enter the top k; a doc whose
//     score is below the worst kept is passed over before its 40-byte record
//     is read (100,000 notes: search p50 6.9–8.0 → 6.1–6.3 ms, activate
//     11.5–11.9 → 9.7–9.9, BenchmarkInMemoryCopyOf).
//     Vaults over 1,000,000 units (~170,000 such notes) are left to SQL
//     (the bound was 150,000 units before the packing). lore mcp keeps a
//     soft memory limit a quarter above its live heap (cmd/lore/memlimit.go).
//   - Writes: every delete of a batch runs before its first insert. A
//     statement that can reach the FTS table through a trigger opens a
//     statement savepoint, at which FTS5 writes its pending terms out as a
//     segment; interleaved, that made one segment per file. The writer's
//     statements run under a context that is never cancelled (the driver
//     watches a cancellable one with a goroutine per statement); the caller's
//     context is checked between files. A batch's links and unit_log rows
//     are written by one statement each at its end (a statement writing many
//     rows opens a savepoint, so it must come after the FTS inserts). Units
//     have no index of unit keys or of 71-byte embed hashes (random-order
//     inserts cost a cold index ~2 s): held units are found through their
//     resource id, vectors through a 64-bit embed_key (migrations 0003 and
//     0004). In a refresh of many batches, FTS5 does not merge its segments
//     while a batch writes (ftsAutomerge: a fifth fewer page writes); its
//     default merging is back on at every commit. While such a refresh runs,
//     Go's GC target is 400 (gc.go: its garbage is ~75 KB a note). A new
//     index file has 16 KiB pages (a quarter of the WAL writes of 4 KiB ones);
//     an existing file keeps its own. `lore index --rebuild` never empties
//     the index: it parses and writes every file again, each batch replacing
//     its files' rows in one transaction, and then rewrites the Drafts' rows,
//     so a process reading meanwhile never finds a note missing (emptying
//     first made loads answer "not found" and let a create take an existing
//     path while it ran: TestAttack_RebuildNeverHidesANoteFromAnotherProcess).
//     The price: each file's old rows are deleted through the units' delete
//     trigger (an FTS5 delete per unit), so `lore index --rebuild --no-embed`
//     of `lore bench`'s 10,000 notes takes 7.2 and 8.0 s, against 4.7 and
//     4.8 s when it emptied the index first (80ad217), in alternating runs.
//     One transaction for the whole rebuild would hide nothing either, but
//     would hold SQLite's write lock for the whole run, and every other
//     process's freshness check would fail after its 10 s busy time-out.
//   - The Drafts' rows (overlay.go) are written under SQLite's write lock
//     after reading the refs again: a process that read older refs writes
//     nothing, so no process overwrites a newer overlay with an older one.
//   - The exact stage puts a resource whose id, path or title (case-insensitive)
//     is the whole query first.
//   - Freshness: every Search, Load and Stats first calls Refresh, which walks
//     the vault (folders in parallel, one fstatat per file), reads and hashes
//     only files whose size or nanosecond mtime changed, and re-indexes only
//     those whose bytes changed. A file edited to the same size within the same
//     mtime tick is caught by `lore index --rebuild` (git has the same limit).
//     A generation counter in the meta table tells a process when another one
//     changed the index, so several processes can share the file.
//     A process without a snapshot in memory (every one-shot command)
//     first compares digests (digest.go): each working-tree row keeps a
//     salted 62-bit hash of its path, size and mtime, one aggregate over an
//     index of those keys sums them, and the walk sums the keys of what it
//     found; only when they differ is the snapshot of every row read. On
//     10,000 notes that snapshot was 27–33 ms of a 58–70 ms `lore search`;
//     the digest is about a millisecond, and the walk (15–20 ms: one
//     fstatat per file, kernel time) is now what the check costs. Opening
//     an up-to-date index reads the schema version once, outside any
//     transaction, so it never waits for another process's writer.
//   - Writes go in batches of 1,000 files per immediate transaction, so readers
//     (WAL) are never blocked for long; Go parses the next batch while SQLite
//     writes the current one. Writers take turns through a gate
//     (writegate.go: the process's turn, then a flock on index.db-writer)
//     before SQLite's lock: SQLite's busy handler alone let a writer that
//     had waited keep losing to newcomers, and `go test -run
//     ManyProcessesStoreAtOnce ./drafts -long` failed 3 of 3 runs with
//     "the index is busy"; with the gate it passed 3 of 3.
//   - Effective Memory: with a project set, resources under projects/<other>/
//     are invisible to Search, Load and Activate; without one, every
//     working-tree resource is visible. A project's open Drafts (supplied by
//     an OverlaySource, package drafts) are indexed as extra rows tagged with
//     the Draft and its project, and the working-tree paths they change are
//     listed in shadows; a project sees its Draft rows instead of the rows
//     they shadow, no other project (nor the project-less view) sees them.
//     The freshness check compares a cheap signature of the Draft refs and
//     re-indexes only Drafts whose head moved. Results from a Draft carry
//     its draft_id.
//   - Vectors are stored per distinct unit text (content_hash), so an unchanged
//     unit is never embedded again and copies share one vector. The index
//     records the model's name and dimension and drops every vector when they
//     change. Embedding runs only in EmbedPending (lore index, servers), never
//     in a query: a unit not yet embedded still competes through the lexical
//     lists. A model that is not ready makes activate answer
//     search_model_preparing instead of quietly going lexical.
package fts
