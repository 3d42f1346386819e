// Package fts is lore's local index: one SQLite file (WAL mode) in the vault's
// git directory, with the schema applied by embedded, numbered migrations. It
// owns incremental indexing, the lexical stage of retrieval (FTS5 with BM25) and
// load; the vector stage, fusion and activation state slot in beside them. It
// must not write the vault: the index is derived data and `lore index --rebuild`
// recreates it from the notes.
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
//     alone: building the copies takes seconds. The postings copy is packed
//     (postings.go, vocab.go): tokens frozen in sorted arrays, postings as
//     varint gaps in one arena, unit keys in another, so the collector has
//     little to mark. 10,000 notes (60,000 units) take 46 MB of heap (89 MB
//     before the packing), 100,000 notes (600,000 units) 320 MB (459 MB); a
//     100,000-note activate takes ~15–19 ms in memory against ~140 ms in SQL.
//     Scoring reads doc lengths and liveness from one dense array (lens), and
//     asks visibility only of a doc that would enter the top k.
//     Vaults over 1,000,000 units (~170,000 such notes) are left to SQL
//     (the bound was 150,000 units before the packing). lore mcp keeps a
//     soft memory limit half above its live heap (cmd/lore/memlimit.go).
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
//   - Writes go in batches of 1,000 files per immediate transaction, so readers
//     (WAL) are never blocked for long; Go parses the next batch while SQLite
//     writes the current one.
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
//
// Activate (activate.go, assemble.go, state.go, runs.go):
//
//   - Stages: freshness check → exact id/path/title → BM25 (top 40) → query
//     embedding and sqlite-vec k-NN over vec0 with cosine distance (top 40;
//     hits with similarity ≤ 0 are no evidence and dropped) → fusion, exact
//     matches pinned first, top 40 kept → one-hop link bonus: a candidate whose
//     resource links to or from another candidate's (wikilink by
//     title/id/path, Markdown link, supersedes, superseded_by) gains 0.05 × the
//     top fused score → optional HTTP rerank of the top 24 (its scores replace
//     fused ones there) → status: superseded and deprecated resources' scores
//     are halved and kept below their successor's → section order → assembly.
//     Ties go to units
//     with a term match, then by unit key, so ranking is deterministic for a
//     given vault, index and model.
//   - Fusion departs from DESIGN.md's reciprocal-rank fusion by default, on
//     measurement. The default ("score") is BM25 over the best BM25 among the
//     candidates plus 0.3 × cosine similarity, the similarity computed for
//     every candidate that has a vector. On SciFact with the built-in model
//     (vector alone: nDCG@10 0.218) RRF with k = 60 gave 0.444 — rank fusion
//     lets a weak list overturn a strong one — and weighted RRF never beat
//     lexical (0.699); score fusion gives 0.707 (β 0.2–0.6 all 0.700–0.707).
//     lore.yaml `retrieval: {fusion: rrf}` selects RRF (k = 60), which suits a
//     strong embedding endpoint.
//   - Section order (sections.go): every unit of a note carries the note's
//     path, title and description in its row, so sections of one note tie on
//     them and BM25's length normalization favoured the shortest one; the
//     per-note cap then kept whichever two sorted first. Now the places a
//     note's candidates hold in the ranking go, best first, to the sections
//     whose own heading (weight 4) and body match the query best, scored as
//     BM25 over that note's candidate sections as a collection of their own
//     (a term in every section tells nothing), English stop words included
//     at weight 0.25 ("before" tells "Before the release" from "After");
//     ties go to vector similarity, then to the note's order. Documents
//     keep their places, so SciFact is unchanged by construction. On the 40
//     questions of testdata/demo-questions.jsonl (written before this
//     change; `lore eval --questions testdata/demo-questions.jsonl
//     testdata/demo-vault --mode M`): lexical success@1 0.725 → 0.750,
//     success@3 0.925 → 0.925, MRR 0.823 → 0.829; hybrid success@1 0.750 →
//     0.750, success@3 0.925 → 0.950, MRR 0.840 → 0.846. The README's
//     question ("what must I check before shipping a new version?") went
//     from second (lexical) and not delivered (hybrid) to first in both;
//     "fix the sync retry budget" from the ADR's Why to its Decision.
//   - Vectors are stored per distinct unit text (content_hash), so an unchanged
//     unit is never embedded again and copies share one vector. The index
//     records the model's name and dimension and drops every vector when they
//     change. Embedding runs only in EmbedPending (lore index, servers), never
//     in a query: a unit not yet embedded still competes through the lexical
//     lists. A model that is not ready makes activate answer
//     search_model_preparing instead of quietly going lexical.
//   - Assembly: at most 12 fragments, 2 per resource, 2,400 tokens (lore.yaml
//     retrieval: overrides), counted with vault.EstimateTokens (within 10% of
//     cl100k_base). A candidate is cut as overlap when its text (content_hash)
//     was already delivered or its byte range overlaps a delivered one. reuse
//     fragments carry no body and cost no tokens.
//   - State: next_state is "las2." + base64url(16-byte id + 12-byte
//     HMAC-SHA256 tag of the id under a random per-vault key kept in the
//     data folder, state.key): 43 characters. The id names a row of
//     activation_states holding at most 256 (unit_key, first 8 bytes of
//     content_hash, "path › headings") entries, most recently delivered
//     first; rows are kept 7 days after their last use. Before, the token
//     carried the entries itself ("las1.", still read): on the 40 demo
//     questions its median was 82 tokens (lexical) and 119 (hybrid), about
//     80 bytes more per held unit, now 16. Tokens over 32 KiB, damaged,
//     edited, from another vault or whose row is gone are
//     invalid_activation_state. removed lists held units that no longer
//     resolve in the project's memory (deleted, renamed away, or now
//     invisible), never units merely not selected; the text rendering names
//     them by their stored "path › headings".
//   - Fusion weight: lore.yaml retrieval.vector_weight (default 0.3). On the
//     generated conversational set (testdata/convo) 0.6 gives nDCG@10
//     0.4939 against 0.4850; on SciFact 0.2–0.6 all gave 0.700–0.707: the
//     default stays.
//   - Every valid activate writes a retrieval run (table runs): the query, every
//     candidate with its rank and score at every stage and its outcome
//     (delivered:add|replace|reuse, cut:budget|per_resource|total|overlap),
//     a stored copy of each delivered text with its byte range, and timings.
package fts
